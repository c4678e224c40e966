"""What a job already committed: a job run again after its worker died finds the commit
an earlier attempt made (its ``Gitloom-Job`` trailer) and finishes that one instead of
committing twice. Both kinds of job use it (``conversation_jobs``, ``import_jobs``)."""

from __future__ import annotations

from django.utils import timezone

from memories.models import Job
from namespaces import repository

# How far back a re-run job looks for the commit an earlier attempt may have made.
JOB_COMMIT_LOOKBACK = 200


def job_commit_in_history(*, prefix: str, job: Job) -> str | None:
    """The commit an earlier attempt of the job made, found by its ``Gitloom-Job``
    trailer among the namespace's recent commits; None when it made none."""
    for entry in repository.repository_log(prefix=prefix, limit=JOB_COMMIT_LOOKBACK):
        if entry.trailers.get("Gitloom-Job") == str(job.public_id):
            return entry.commit
        if entry.time < job.created.replace(microsecond=0) - timezone.timedelta(minutes=1):
            break
    return None


def parent_of(prefix: str, commit: str) -> str | None:
    """The commit before ``commit`` (None for the repository's first)."""
    for entry in repository.repository_log(prefix=prefix, start=commit, limit=2):
        if entry.commit != commit:
            return entry.commit
    return None
