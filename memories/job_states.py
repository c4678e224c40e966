"""Every change of a job's state, in one place.

::

    queued --job_started--> running --job_done----> done
      ^                        |
      |                        +----job_failed--> failed --job_requeued--> queued

A job that stops itself to go on later (``job_paused``: a large import's indexing)
stays ``running``. A job found ``running`` again (its worker died, or it paused) goes
through ``job_started`` once more,
which counts the attempt, or, after ``GITLOOM_JOB_MAX_ATTEMPTS`` starts, ``job_failed``
(``memories.jobs.job_run``). ``job_extracted`` records which extractor and prompt did the
work, and what it cost, while the job runs. A job row is created ``queued`` by
``memories.services.job_accept``. Each function is one UPDATE of the row, and returns
the job as the row now is.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.webhooks.events import webhook_emit
from memories.models import Job
from namespaces.selectors import commit_current


def job_started(*, job: Job) -> Job:
    with transaction.atomic():
        Job.objects.filter(pk=job.pk).update(
            status=Job.Status.RUNNING,
            started=timezone.now(),
            attempts=job.attempts + 1,
        )
    job.refresh_from_db()
    return job


def job_paused(*, job: Job) -> Job:
    """A running job that stopped on its own with its work so far saved, to go on in
    its namespace's next drain (an import indexing in steps, ``memories.import_jobs``): it
    stays ``running``, and this start is not counted among its attempts, which count
    the starts that ended without the job's say (a crash, a kill, the timeout)."""
    Job.objects.filter(pk=job.pk).update(attempts=max(0, job.attempts - 1))
    job.refresh_from_db()
    return job


def job_extracted(*, job: Job, extractor: str, prompt_version: str, usage: dict) -> None:
    Job.objects.filter(pk=job.pk).update(
        extractor=extractor, prompt_version=prompt_version, usage=usage
    )


def job_done(*, job: Job, commit: str, created, rewritten, linked, moved=None) -> Job:
    # A purge that landed while the job was indexing has given its commit a new id.
    commit = commit_current(namespace=job.namespace_id, commit=commit)
    with transaction.atomic():
        Job.objects.filter(pk=job.pk).update(
            status=Job.Status.DONE,
            finished=timezone.now(),
            commit=commit,
            result={
                "created": created,
                "rewritten": rewritten,
                "linked": linked,
                **({"moved": dict(moved)} if moved else {}),
            },
            error_code="",
            error_message="",
        )
        _announce(job, "job.done", commit=commit, paths=[*created, *rewritten])
        if created:
            _announce(job, "memory.created", commit=commit, paths=list(created))
        if rewritten:
            _announce(job, "memory.rewritten", commit=commit, paths=list(rewritten))
    job.refresh_from_db()
    return job


def _announce(job: Job, type: str, **fields) -> None:  # noqa: A002
    """The job's webhook event, in the transaction of its state change (the outbox)."""
    namespace = job.namespace
    webhook_emit(
        account_id=namespace.account_id,
        type=type,
        namespace=namespace.name,
        job=str(job.public_id),
        **fields,
    )


def job_failed(*, job: Job, code: str, message: str, usage: dict | None = None) -> Job:
    fields = {
        "status": Job.Status.FAILED,
        "finished": timezone.now(),
        "error_code": code,
        "error_message": message,
    }
    if usage:
        fields["usage"] = usage
    with transaction.atomic():
        Job.objects.filter(pk=job.pk).update(**fields)
        _announce(job, "job.failed", commit=None, paths=[], error=code)
    job.refresh_from_db()
    return job


def job_requeued(*, job: Job) -> Job:
    """A failed job back in its namespace's queue (the caller asks for a drain)."""
    Job.objects.filter(pk=job.pk).update(status=Job.Status.QUEUED, error_code="", error_message="")
    job.refresh_from_db()
    return job
