"""Running one import job: the upload validated whole, one commit, the index in steps.

The queue (``memories.jobs``) hands a namespace's oldest pending job to ``job_run``, which
calls :func:`import_job_run` when the job carries an import (``memories.imports`` holds
the import itself; the upload waits in object storage until the job is done).
"""

from __future__ import annotations

import logging
import time

from django.conf import settings

from gitloom.core.errors import GitLoomError
from memories.errors import InvalidArchive, JobInternalError
from memories.imports import memory_import, upload_delete, upload_get
from memories.job_commits import job_commit_in_history, parent_of
from memories.job_states import job_done, job_extracted, job_failed, job_paused
from memories.models import Job
from namespaces import repository
from retrieval.services import after_repository_change

logger = logging.getLogger("gitloom.memories")
# The queue's own log (``memories.jobs``): a paused import says so there.
jobs_logger = logging.getLogger("gitloom.jobs")


def import_job_run(job: Job) -> Job:
    """A queued import: validate all, one commit (none if nothing changes), the index.
    Run again after a crash it makes no second commit and still brings the index up.

    The index is brought up in steps (``retrieval.indexer``) until half the queue's
    timeout is spent; a big import then pauses (``job_paused``: still ``running``, the
    start not counted as an attempt) and its namespace's next drain goes on from the
    step it reached. So the job ends ``done`` only once its commit is indexed, and no
    attempt outlasts ``GITLOOM_JOB_TIMEOUT``."""
    deadline = time.monotonic() + settings.GITLOOM_JOB_TIMEOUT / 2
    spec = job.payload["import"]
    job_extracted(job=job, extractor="import", prompt_version="", usage={})
    try:
        data = upload_get(key=spec["upload"])
        if data is None:
            raise InvalidArchive("The upload of this import is gone; send it again.")
        prefix = job.namespace.storage_prefix
        earlier = job_commit_in_history(prefix=prefix, job=job)
        if earlier is not None:
            # An earlier attempt committed (then crashed, or paused while indexing):
            # report that commit (importing again would change nothing and say so),
            # and bring the index up to the head.
            indexed = after_repository_change(
                namespace=job.namespace,
                commit=repository.repository_head(prefix=prefix),
                deadline=deadline,
            )
            if not indexed.complete:
                return _import_paused(job, indexed)
            changes = repository.repository_diff(
                prefix=prefix, old=parent_of(prefix, earlier), new=earlier
            )
            return _import_done(
                job,
                spec,
                commit=earlier,
                created=[c.path for c in changes if c.kind == "add"],
                rewritten=[c.path for c in changes if c.kind == "modify"],
            )
        result = memory_import(
            namespace=job.namespace,
            data=data,
            kind=spec["format"],
            replace=bool(spec.get("replace")),
            job_id=str(job.public_id),
            index=False,
        )
        indexed = after_repository_change(
            namespace=job.namespace, commit=result.commit, deadline=deadline
        )
        if not indexed.complete:
            return _import_paused(job, indexed)
        job = job_done(
            job=job,
            commit=result.commit if not result.noop else "",
            created=sorted(result.created),
            rewritten=sorted(result.modified),
            linked=[],
        )
    except GitLoomError as exc:
        job = job_failed(job=job, code=exc.code, message=exc.message)
    except Exception:
        logger.exception("import job %s failed unexpectedly", job.public_id)
        return job_failed(job=job, code=JobInternalError.code, message=JobInternalError.message)
    upload_delete(key=spec["upload"])
    return job


def _import_paused(job: Job, indexed) -> Job:
    jobs_logger.info(
        "job paused namespace=%s job=%s: committed, index at %s of %s, going on next drain",
        job.namespace,
        job.public_id,
        indexed.commit,
        indexed.target,
    )
    return job_paused(job=job)


def _import_done(job: Job, spec: dict, *, commit: str, created, rewritten) -> Job:
    job = job_done(
        job=job, commit=commit, created=sorted(created), rewritten=sorted(rewritten), linked=[]
    )
    upload_delete(key=spec["upload"])
    return job
