"""The per-namespace write queue on django-q2.

A job row is written (status ``queued``) before ``POST /v1/memories`` answers, so an
accepted write is never lost. The queue carries only "drain namespace N": the task takes
the namespace's advisory lock and runs its oldest pending job (acceptance order,
``seq``), then queues the next drain if more wait. So writes to one namespace are
serialised, and writes to different namespaces run in parallel on different workers.
A task that cannot take the lock leaves: the holder looks for pending jobs after it
unlocks, so no job is stranded. ``requeue_pending`` runs every minute as a safety net.

A worker that dies mid-job leaves the job ``running``; its Postgres session ends, which
frees the lock, and django-q2 redelivers the unacknowledged task after ``Q_CLUSTER
["retry"]`` seconds. The job then runs again, but first looks for its own commit (the
``Gitloom-Job`` trailer) in the repository, so its commit appears exactly once. A job
whose attempts keep ending that way (every start counts in ``attempts``) is failed with
``job_attempts_exhausted`` once it has been started ``GITLOOM_JOB_MAX_ATTEMPTS`` times
(:func:`job_run`), and the drain moves on to the namespace's next job.
"""

from __future__ import annotations

import contextvars
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction

from gitloom.core.metrics import JOB_SECONDS, JOBS_FINISHED
from gitloom.core.tracing import traced
from memories.conversation_jobs import conversation_job_run
from memories.errors import JobAttemptsExhausted
from memories.import_jobs import import_job_run
from memories.job_states import job_failed, job_started
from memories.models import Job
from namespaces.errors import WriteConflict

logger = logging.getLogger("gitloom.jobs")

# First key of the two-key advisory lock; the second is the namespace id.
_LOCK_CLASS = 7_146_001
_drains_inline = contextvars.ContextVar("gitloom_drains_inline", default=False)


@contextmanager
def drains_inline() -> Iterator[None]:
    """Run the drains asked for inside the block in this process, at once, instead of on
    the queue's workers (``GITLOOM_QUEUE_SYNC`` for one block): for tools that drive the
    write path with no worker cluster, such as ``eval_locomo``."""
    token = _drains_inline.set(True)
    try:
        yield
    finally:
        _drains_inline.reset(token)


def enqueue_drain(*, namespace_id: int) -> None:
    """Ask a worker to drain the namespace (after the accepting transaction commits)."""
    from django_q.tasks import async_task

    async_task(
        "memories.jobs.drain_namespace",
        namespace_id,
        task_name=f"drain-namespace-{namespace_id}",
        sync=settings.GITLOOM_QUEUE_SYNC or _drains_inline.get(),
    )


def enqueue_drain_on_commit(*, namespace_id: int) -> None:
    """Queue the namespace's drain once the accepting transaction commits. By then the
    job row has committed and the write is accepted: a database that fails the enqueue
    (it went away just after the commit) is logged, not raised, so the caller is
    answered 202 for a job that will run; ``requeue_pending`` queues its drain."""

    def enqueue() -> None:
        try:
            enqueue_drain(namespace_id=namespace_id)
        except (OperationalError, InterfaceError) as exc:
            logger.warning(
                "namespace %s: job accepted, its drain not queued (%s); requeue_pending will",
                namespace_id,
                (str(exc).strip().splitlines() or [type(exc).__name__])[0],
            )

    transaction.on_commit(enqueue)


def _try_lock(namespace_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [_LOCK_CLASS, namespace_id])
        return bool(cursor.fetchone()[0])


def _unlock(namespace_id: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [_LOCK_CLASS, namespace_id])


def _next_job(namespace_id: int) -> Job | None:
    return (
        Job.objects.filter(
            namespace_id=namespace_id, status__in=[Job.Status.QUEUED, Job.Status.RUNNING]
        )
        .order_by("seq")
        .first()
    )


def drain_namespace(namespace_id: int) -> bool:
    """Run the namespace's oldest pending job, then queue the next drain if more wait.

    One job per task keeps each task short (so the queue's timeout and redelivery
    apply per job) and lets other namespaces' work interleave on the workers.
    Returns whether a job ran.
    """
    if not _try_lock(namespace_id):
        return False  # another worker holds the namespace; it queues the next drain
    try:
        job = _next_job(namespace_id)
        if job is not None:
            job_run(job=job)
    finally:
        _unlock(namespace_id)
    # Look again only after the unlock: a job accepted while we held the lock had its
    # own drain refused above, so this look is what picks it up.
    if _next_job(namespace_id) is not None:
        enqueue_drain(namespace_id=namespace_id)
    return job is not None


def job_span_attributes(*, job: Job) -> dict:
    return {"gitloom.job.kind": "import" if "import" in job.payload else "ingest"}


def job_span_result(job: Job) -> dict:
    return {
        "gitloom.job.status": job.status,
        "gitloom.job.attempt": job.attempts,
        "gitloom.job.extractor": job.extractor,
        **({"error.type": job.error_code} if job.error_code else {}),
    }


@traced("gitloom.job", attributes=job_span_attributes, result=job_span_result)
def job_run(*, job: Job) -> Job:
    """Run one job: pipeline, one commit, index. Safe to call again after a crash.

    A job found ``running`` was started before and never finished: its worker died
    (killed, out of memory, its database backend crashed) or was stopped at the queue's
    timeout. After ``GITLOOM_JOB_MAX_ATTEMPTS`` such starts it fails instead of running
    again, so one poisonous job cannot hold its namespace's queue forever.
    """
    if job.status == Job.Status.RUNNING and job.attempts >= settings.GITLOOM_JOB_MAX_ATTEMPTS:
        exhausted = JobAttemptsExhausted(
            f"The job was started {job.attempts} times and each attempt stopped before it "
            "finished (its worker crashed, ran out of memory or timed out); it will not be "
            "tried again."
        )
        job = job_failed(job=job, code=exhausted.code, message=exhausted.message)
        _log_job_end(job, duration_ms=0)
        return job
    job = job_started(job=job)
    logger.info(
        "job started namespace=%s job=%s attempt=%d", job.namespace, job.public_id, job.attempts
    )
    started = time.monotonic()
    job = import_job_run(job) if "import" in job.payload else conversation_job_run(job)
    if job.status != Job.Status.RUNNING:  # a paused job said so itself
        _log_job_end(job, duration_ms=round((time.monotonic() - started) * 1000))
    return job


def _log_job_end(job: Job, *, duration_ms: int) -> None:
    result = job.result or {}
    failed = job.status == Job.Status.FAILED
    JOBS_FINISHED.labels(job.status, job.error_code).inc()
    JOB_SECONDS.labels(job.status).observe(duration_ms / 1000)
    logger.log(
        logging.WARNING if failed else logging.INFO,
        "job %s namespace=%s job=%s attempt=%d duration_ms=%d created=%d rewritten=%d "
        "extractor=%s%s",
        job.status,
        job.namespace,
        job.public_id,
        job.attempts,
        duration_ms,
        len(result.get("created", [])),
        len(result.get("rewritten", [])),
        job.extractor or "-",
        f" error={job.error_code}" if failed else "",
    )


@contextmanager
def namespace_queue_held(*, namespace_id: int, wait: float) -> Iterator[None]:
    """Run a write made outside the queue between two of the namespace's jobs, never
    while one runs: hold the lock a drain holds, waiting up to ``wait`` seconds for a
    running job to finish (then ``WriteConflict``, to try again). Jobs accepted
    meanwhile wait their turn, and a drain is queued for them after the unlock, as a
    drain does for what it leaves."""
    deadline = time.monotonic() + wait
    while not _try_lock(namespace_id):
        if time.monotonic() >= deadline:
            raise WriteConflict(
                "A job of this namespace is running; try again once it has finished."
            )
        time.sleep(0.05)
    try:
        yield
    finally:
        _unlock(namespace_id)
        # A drain that came while we held the lock left at once; pick its jobs up.
        if _next_job(namespace_id) is not None:
            enqueue_drain(namespace_id=namespace_id)


def requeue_pending() -> int:
    """Queue a drain for every namespace with pending jobs (a periodic safety net).

    Covers an accepted job whose drain task was never queued (the process died between
    the commit and the enqueue) or was lost; drains are idempotent, so extra ones are
    harmless.
    """
    namespace_ids = set(
        Job.objects.filter(status__in=[Job.Status.QUEUED, Job.Status.RUNNING])
        .values_list("namespace_id", flat=True)
        .distinct()
    )
    for namespace_id in namespace_ids:
        enqueue_drain(namespace_id=namespace_id)
    return len(namespace_ids)
