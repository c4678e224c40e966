"""django-q2's ``qcluster``, refusing to start on a database whose pgvector fails, and
starting warm, with the webhook deliveries' own cluster beside the jobs'
(``accounts.webhooks.lane``).

Listed before ``django_q`` in INSTALLED_APPS, so this command wins the name. The
embedding model loads here, once, before the cluster forks its workers (they share
it); each worker then opens its database connection and embeds once before it takes a
task, so the first job costs what later ones do.
"""

from __future__ import annotations

import signal

from django.conf import settings
from django.core.management.base import CommandError
from django_q.cluster import Cluster
from django_q.management.commands.qcluster import Command as QClusterCommand
from django_q.signals import post_spawn

from accounts.webhooks.lane import start_webhook_cluster
from gitloom.core.checks import vector_problem_message, vector_self_check
from gitloom.core.warm import process_warm_up
from memories.extraction import import_engines
from retrieval.embeddings import embedder_load, embedder_warm_up
from server import queue_sentinel
from server.lifetime import cluster_stops_once, multiprocessing_children_end_with_parent
from server.operations import QUEUE_APPLICATION_NAME


def _warm_worker(sender, proc_name: str, **kwargs) -> None:
    process_warm_up(role="queue", warm=lambda: embedder_warm_up(queries=False))


class Command(QClusterCommand):
    def handle(self, *args, **options):
        from django.db import connection

        problem = vector_self_check()
        if problem is not None:
            raise CommandError(vector_problem_message(problem))
        # Forked workers must not inherit this process's database connection.
        connection.close()
        # Named, so /readyz sees a live queue in pg_stat_activity (server/operations.py).
        connection.settings_dict.setdefault("OPTIONS", {})["application_name"] = (
            QUEUE_APPLICATION_NAME
        )
        embedder_load()
        # The extraction pipeline and its engines too (spaCy), which a process otherwise
        # imports when its first job runs: imported here, the forked workers share them.
        import_engines()

        post_spawn.connect(_warm_worker, dispatch_uid="gitloom-warm-worker")
        # A killed cluster takes its sentinel and workers with it (server.lifetime).
        multiprocessing_children_end_with_parent()
        cluster_stops_once()
        # A queue process's sudden death renews the whole set (server.queue_sentinel).
        queue_sentinel.install()
        # django-q2's own handle() starts one cluster; this starts the webhook lane's
        # first, then the jobs' (whose signal handlers then stop both).
        settings.SECRET_KEY  # noqa: B018 - django-q2 signs tasks with it: fail early
        hooks = start_webhook_cluster()
        connection.close()  # start_webhook_cluster queued a sweep; the jobs' fork is next
        jobs = Cluster()
        stop_jobs = jobs.sig_handler

        def stop_both(signum, frame):
            stop_jobs(signum, frame)
            hooks.stop()

        signal.signal(signal.SIGTERM, stop_both)
        signal.signal(signal.SIGINT, stop_both)
        jobs.start()
        if options.get("run_once", False):
            jobs.stop()
            hooks.stop()
