"""The queue clusters' sentinel: a process that dies suddenly takes the whole set of
processes and their queues with it, and a fresh set starts at once.

django-q2's sentinel replaces a dead worker, pusher or monitor with a new one on the
same ``multiprocessing`` queues. Those queues are guarded by locks shared across the
processes: an idle worker waits for its next task inside ``task_queue.get()`` holding
the queue's reader lock, a process putting a result holds its writer lock. Killed
there, the process never releases it, and every other worker, the replacement
included, waits on it forever: the node's writes stayed ``queued`` until a restart.
No lock of a killed process can be recovered, so this sentinel does not reuse them:
on any death it kills the cluster's other processes (a job they were running is
re-run from its start and commits once: memories.jobs), starts new ones on new
queues, and queues the catch-up both clusters already rely on (a drain for every
namespace with pending jobs, a webhook sweep), so the work resumes within seconds.
A process that exits cleanly (a worker django-q2 retires, a pusher that leaves after a
broker error) or a worker past its timeout is replaced as django-q2 does.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time

from django.db import InterfaceError, OperationalError, connections
from django_q import cluster as django_q_cluster
from django_q.conf import Conf
from django_q.queues import Queue

logger = logging.getLogger("gitloom.queue")


class PatientBroker:
    """The cluster's broker as its pusher uses it, except that a dequeue which fails
    because the database is away (a restart, an outage) waits a second and tries again
    on a fresh connection. django-q2's pusher otherwise logged the failure, slept 10 s
    and exited to be replaced, so the first tasks after the database came back waited
    that long."""

    def __init__(self, broker) -> None:
        self._broker = broker

    def __getattr__(self, name):
        return getattr(self._broker, name)

    def dequeue(self):
        try:
            return self._broker.dequeue()
        except (OperationalError, InterfaceError) as exc:
            logger.warning("The queue's database is away (%s); trying again.", str(exc)[:120])
            connections.close_all()
            time.sleep(1.0)
            return None


class RenewingSentinel(django_q_cluster.Sentinel):
    def spawn_pusher(self):
        return self.spawn_process(
            django_q_cluster.pusher, self.task_queue, self.event_out, PatientBroker(self.broker)
        )

    def reincarnate(self, process) -> None:
        current = [*self.pool, self.pusher, self.monitor]
        if not any(process is each for each in current):
            return  # one of a set already replaced
        if process.exitcode in (None, 0):
            # Alive (a worker past its timeout, which django-q2 ends itself), retired
            # (recycle), or a pusher that left after a broker error: none was killed
            # holding a lock, so django-q2's replacement on the same queues is right.
            super().reincarnate(process)
            return
        logger.critical(
            "A queue process (%s, pid %s) died (exit code %s); starting the queue's "
            "processes afresh on new queues.",
            _role(self, process),
            process.pid,
            process.exitcode,
        )
        self.renew()

    def renew(self) -> None:
        for each in [*self.pool, self.pusher, self.monitor]:
            if each is not None and each.is_alive():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(each.pid, signal.SIGKILL)
        for each in [*self.pool, self.pusher, self.monitor]:
            if each is not None:
                each.join(timeout=5)
        for queue in (self.task_queue, self.result_queue):
            queue.cancel_join_thread()  # nothing of the old queues is waited for
        self.task_queue = Queue(maxsize=Conf.QUEUE_LIMIT) if Conf.QUEUE_LIMIT else Queue()
        self.result_queue = Queue()
        self.event_out = django_q_cluster.Event()
        self.spawn_cluster()
        self.reincarnations += 1
        _catch_up()


def _role(sentinel, process) -> str:
    if process is sentinel.pusher:
        return "pusher"
    if process is sentinel.monitor:
        return "monitor"
    return "worker"


def _catch_up() -> None:
    """Queue what a lost task would have done: both are idempotent."""
    from accounts.webhooks.lane import enqueue_sweep
    from memories.jobs import requeue_pending

    try:
        requeue_pending()
        enqueue_sweep()
    except Exception:  # noqa: BLE001 - the minute's schedule does it again
        logger.exception("Could not queue the catch-up after renewing the queue.")
    finally:
        connections.close_all()  # the next fork must not share this connection


def install() -> None:
    """Make every cluster started in this process use this sentinel."""
    django_q_cluster.Sentinel = RenewingSentinel
