"""Running one ingestion job: pipeline, one commit, then the index.

The queue (``memories.jobs``) calls :func:`job_run` for a namespace's oldest pending job
while it holds the namespace's lock. The job's state changes go through
``memories.job_states``; the commit is followed by the one step after every repository
change (``retrieval.services.after_repository_change``), so a job reported done is
visible to ``/v1/retrieve``.
"""

from __future__ import annotations

import functools
import logging
import time
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from gitloom.core.errors import GitLoomError
from gitloom.core.times import as_utc
from memories.errors import InvalidArchive, JobAttemptsExhausted, JobInternalError
from memories.extraction.candidates import memory_candidates
from memories.extraction.types import Message
from memories.imports import memory_import, upload_delete, upload_get
from memories.job_states import (
    job_done,
    job_extracted,
    job_failed,
    job_paused,
    job_started,
)
from memories.models import Job
from memories.relinks import relink, relinked
from memories.transcripts import payload_messages
from namespaces import repository
from namespaces.memory_format import render_memory
from namespaces.repository import moved_trailers
from retrieval.services import after_repository_change

logger = logging.getLogger("gitloom.memories")
# One line when a job starts and one when it ends, for operators following the queue.
jobs_logger = logging.getLogger("gitloom.jobs")

# How far back a re-run job looks for the commit an earlier attempt may have made.
JOB_COMMIT_LOOKBACK = 200


def _job_commit_in_history(*, prefix: str, job: Job) -> str | None:
    for entry in repository.repository_log(prefix=prefix, limit=JOB_COMMIT_LOOKBACK):
        if entry.trailers.get("Gitloom-Job") == str(job.public_id):
            return entry.commit
        if entry.time < job.created.replace(microsecond=0) - timezone.timedelta(minutes=1):
            break
    return None


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
    jobs_logger.info(
        "job started namespace=%s job=%s attempt=%d", job.namespace, job.public_id, job.attempts
    )
    started = time.monotonic()
    job = _job_attempt(job)
    if job.status != Job.Status.RUNNING:  # a paused job said so itself
        _log_job_end(job, duration_ms=round((time.monotonic() - started) * 1000))
    return job


def _log_job_end(job: Job, *, duration_ms: int) -> None:
    result = job.result or {}
    failed = job.status == Job.Status.FAILED
    jobs_logger.log(
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


def _job_attempt(job: Job) -> Job:
    if "import" in job.payload:
        return _import_attempt(job)
    namespace = job.namespace
    prefix = namespace.storage_prefix
    try:
        # Only a re-run (a worker died mid-job, or an operator retried it) can find its
        # own commit already in the history; a first attempt skips the log walk.
        earlier = _job_commit_in_history(prefix=prefix, job=job) if job.attempts > 1 else None
        if earlier is not None:
            # An earlier attempt committed and then died: finish it, don't redo it.
            changes = repository.repository_diff(
                prefix=prefix, old=_parent_of(prefix, earlier), new=earlier
            )
            after_repository_change(namespace=namespace, commit=earlier)
            (entry,) = repository.repository_log(prefix=prefix, start=earlier, limit=1)
            moved = {old: new for new, old in repository.moves_of(entry.trailers).items()}
            return job_done(
                job=job,
                commit=earlier,
                created=[
                    c.path for c in changes if c.kind == "add" and c.path not in moved.values()
                ],
                rewritten=sorted(
                    [c.path for c in changes if c.kind == "modify"] + list(moved.values())
                ),
                linked=[],
                moved=moved,
            )
        # Imported here, not at the top: the pipeline brings spaCy, seconds of imports,
        # and every process that loads the apps (manage.py commands, the MCP server, a
        # bare gunicorn) would pay it. (No torch: the service's requirements have none;
        # thinc loads it only where requirements-dev.txt installed it.) serve and
        # qcluster import it before they fork their workers, so those share it.
        from memories.extraction import default_extractor, run_pipeline

        snapshot = repository.repository_snapshot(prefix=prefix)
        extractor = default_extractor()
        messages = payload_messages(job.payload, job_tag=job.public_id.hex[:8])
        result = run_pipeline(
            messages=messages,
            session_id=job.payload.get("session_id"),
            existing=lambda texts, limit: memory_candidates(
                namespace=namespace, texts=texts, limit=limit
            ),
            extractor=extractor,
            # each topic folder is counted once per job, however many drafts ask
            topic_sizes=functools.cache(lambda folder: sum(1 for _ in snapshot.walk(folder))),
            now=job.created,
        )
        job_extracted(
            job=job,
            extractor=result.extractor,
            prompt_version=result.prompt_version,
            usage=result.usage.as_dict(),
        )
        files = {**result.created, **result.rewritten}
        for memory in files.values():
            relink(memory, result.moved)
        if not files:
            return job_done(job=job, commit="", created=[], rewritten=[], linked=[])
        rendered: dict[str, bytes | None] = {
            path: render_memory(memory) for path, memory in files.items()
        }
        rendered.update({old: None for old in result.moved})  # a file that followed its fact

        def apply(snap):
            if not result.moved:
                return rendered
            return {**relinked(snap, result.moved, skip=rendered), **rendered}

        commit = repository.repository_commit(
            prefix=prefix,
            apply=apply,
            message=_job_message(job, result),
            trailers={
                "Gitloom-Job": str(job.public_id),
                # No session: no trailer (the API says null; commits before said "-").
                **({"Gitloom-Session": job.session_id} if job.session_id else {}),
                "Gitloom-Extractor": result.extractor,
                "Gitloom-Prompt-Version": result.prompt_version,
                **moved_trailers(result.moved),
            },
            said=said_at(messages),
        )
        after_repository_change(namespace=namespace, commit=commit.commit)
        linked = sorted(
            {link.source for link in result.links} | {link.target for link in result.links}
        )
        return job_done(
            job=job,
            commit=commit.commit,
            created=sorted(result.created),
            rewritten=sorted(result.rewritten),
            linked=linked,
            moved=result.moved,
        )
    except GitLoomError as exc:
        usage = exc.details.get("usage") if isinstance(exc.details, dict) else None
        return job_failed(job=job, code=exc.code, message=exc.message, usage=usage)
    except Exception:
        logger.exception("job %s failed unexpectedly", job.public_id)
        return job_failed(job=job, code=JobInternalError.code, message=JobInternalError.message)


def said_at(messages: list[Message]) -> datetime | None:
    """When a job's conversation was said: its latest message timestamp (the commit's
    author date; None, no timestamp at all, means now). A time in the future is now."""
    times = [as_utc(m.timestamp) for m in messages if m.timestamp is not None]
    return min(max(times), timezone.now()) if times else None


def _import_attempt(job: Job) -> Job:
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
        earlier = _job_commit_in_history(prefix=prefix, job=job)
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
                prefix=prefix, old=_parent_of(prefix, earlier), new=earlier
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


def _parent_of(prefix: str, commit: str) -> str | None:
    for entry in repository.repository_log(prefix=prefix, start=commit, limit=2):
        if entry.commit != commit:
            return entry.commit
    return None


def _job_message(job: Job, result) -> str:
    return (
        f"Ingest job {job.public_id}: {len(result.created)} new, "
        f"{len(result.rewritten)} rewritten ({result.extractor} extractor)"
    )
