"""The queue deliveries run on: a django-q2 cluster of their own, beside the jobs'.

Jobs and deliveries share Postgres (the ORM broker) but not workers: the jobs' cluster
takes tasks from the ``gitloom`` queue, this one from ``gitloom-webhooks`` with
``GITLOOM_WEBHOOK_WORKERS`` workers. A receiver that hangs holds a webhook worker for
at most its timeouts, and never a worker a job is waiting for. ``qcluster`` (and so
``serve``) starts both; ``start_webhook_cluster`` is how.

Tasks carry only "send account A's due deliveries" (``delivery.send_due``); what is due
lives in the delivery rows, so a task lost with its worker loses nothing: the
``gitloom-webhooks-sweep`` schedule (every minute) and each cluster start queue a
sender for every account with deliveries due (``delivery.sweep``).
"""

from __future__ import annotations

from django.conf import settings

WEBHOOK_QUEUE = "gitloom-webhooks"


def enqueue_send(*, account_id: str) -> None:
    from django_q.tasks import async_task

    async_task(
        "accounts.webhooks.delivery.send_due",
        account_id,
        task_name=f"webhooks-{account_id}",
        cluster=WEBHOOK_QUEUE,
        # The dedicated lane exists only with workers; inline mode (tests without a
        # cluster) would put a receiver's latency on the request, so it queues anyway.
        sync=False,
    )


def enqueue_sweep() -> None:
    from django_q.tasks import async_task

    async_task(
        "accounts.webhooks.delivery.sweep", cluster=WEBHOOK_QUEUE, task_name="webhooks-sweep"
    )


def start_webhook_cluster():
    """Start the webhook cluster (sentinel, workers, monitor, pusher) from this process,
    as django-q2's ``qcluster`` starts the jobs' cluster; returns it (``.stop()``).

    django-q2 reads its worker count and scheduler switch from one global ``Conf``; the
    cluster's sentinel is forked by ``start()``, so it is given its own values for the
    fork and the parent's are put back: this cluster runs no schedules (the jobs'
    cluster does), and has ``GITLOOM_WEBHOOK_WORKERS`` workers."""
    from django_q.brokers import get_broker
    from django_q.cluster import Cluster
    from django_q.conf import Conf

    cluster = Cluster(get_broker(WEBHOOK_QUEUE))
    saved = Conf.WORKERS, Conf.SCHEDULER
    Conf.WORKERS, Conf.SCHEDULER = max(1, settings.GITLOOM_WEBHOOK_WORKERS), False
    try:
        cluster.start()
    finally:
        Conf.WORKERS, Conf.SCHEDULER = saved
    enqueue_sweep()  # what was due when the queue last stopped goes out now
    return cluster
