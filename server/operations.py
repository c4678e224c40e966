"""What a load balancer and a metrics scraper ask a node: readiness checks and the
job queue's state for ``/metrics`` (``server/views.py`` serves them; the design is in
docs/design/operations.md).

Ready means this node can do its work now: its database answers, its object store
answers, and some queue process is alive. A queue process names its database
connections ``gitloom-queue`` (``manage.py qcluster``) and polls the job table every
0.2 s, so "alive" is a Postgres session of that name that ran a statement lately:
visible from any node of a fleet, with no heartbeat table to write.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.conf import settings
from django.db import DatabaseError, connection
from prometheus_client.core import GaugeMetricFamily

from gitloom.core.errors import GitLoomError
from memories.selectors import job_queue_state
from namespaces.storage import object_store

QUEUE_APPLICATION_NAME = "gitloom-queue"
# A key no namespace can have (namespace keys start '<account>#'): reading it asks the
# store a question without touching anyone's data.
_PROBE_KEY = "readyz-probe"


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError as exc:
        connection.close()  # the next request opens a fresh one
        return f"unreachable ({type(exc).__name__})"
    return "ok"


def _object_storage() -> str:
    try:
        object_store().get(_PROBE_KEY)
    except GitLoomError as exc:
        return f"unreachable ({exc.code})"
    except OSError as exc:
        return f"unreachable ({type(exc).__name__})"
    return "ok"


def _queue() -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND application_name = %s"
            " AND greatest(state_change, backend_start) > now() - make_interval(secs => %s)",
            [QUEUE_APPLICATION_NAME, settings.GITLOOM_READY_QUEUE_SECONDS],
        )
        (live,) = cursor.fetchone()
    return "ok" if live else "no live queue worker"


def readiness() -> dict[str, str]:
    """Each dependency: ``"ok"`` or what is wrong with it, in a few words."""
    database = _database()
    queue = "unknown (the database is unreachable)"
    if database == "ok":
        try:
            queue = _queue()
        except DatabaseError as exc:  # the database went away between the two queries
            connection.close()
            database = f"unreachable ({type(exc).__name__})"
    return {"database": database, "object_storage": _object_storage(), "queue": queue}


class JobQueueCollector:
    """Jobs queued and running, and the oldest queued job's age, read at scrape time
    (from the database every node shares, so any node's scrape gives the same)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            state = job_queue_state()
        except DatabaseError:
            connection.close()
            return  # the families are absent from this scrape: the database is down
        jobs = GaugeMetricFamily(
            "gitloom_jobs",
            "Jobs now queued or running (those that ended: gitloom_jobs_finished_total).",
            labels=["state"],
        )
        jobs.add_metric(["queued"], state.queued)
        jobs.add_metric(["running"], state.running)
        yield jobs
        yield GaugeMetricFamily(
            "gitloom_job_oldest_queued_age_seconds",
            "How long the oldest queued job has waited (0: none waits).",
            value=state.oldest_queued_seconds,
        )
