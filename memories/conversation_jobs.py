"""Running one conversation job: the pipeline, one commit, then the index.

The queue (``memories.jobs``) hands a namespace's oldest pending job to ``job_run``, which
calls :func:`conversation_job_run` for a posted conversation (an import is
``memories.import_jobs``'). The job's state changes go through ``memories.job_states``;
the commit is followed by the one step after every repository change
(``retrieval.services.after_repository_change``), so a job reported done is visible to
``/v1/retrieve``.
"""

from __future__ import annotations

import functools
import logging
import time
from datetime import datetime

from django.utils import timezone

from gitloom.core.errors import GitLoomError
from gitloom.core.metrics import job_stage_observe
from gitloom.core.times import as_utc
from memories.errors import JobInternalError
from memories.extraction import Message, default_extractor, memory_candidates, run_pipeline
from memories.job_commits import job_commit_in_history, parent_of
from memories.job_states import job_done, job_extracted, job_failed
from memories.models import Job
from memories.relinks import relink, relinked
from memories.transcripts import payload_messages
from namespaces import repository
from namespaces.errors import InvalidMemory
from namespaces.memory_format import render_memory
from namespaces.repository import moved_trailers
from retrieval.services import after_repository_change

logger = logging.getLogger("gitloom.memories")


def conversation_job_run(job: Job) -> Job:
    """A posted conversation: the pipeline, one commit (none when nothing is new), the
    index. Run again after a crash it finishes the commit an earlier attempt made."""
    namespace = job.namespace
    prefix = namespace.storage_prefix
    try:
        # Only a re-run (a worker died mid-job, or an operator retried it) can find its
        # own commit already in the history; a first attempt skips the log walk.
        earlier = job_commit_in_history(prefix=prefix, job=job) if job.attempts > 1 else None
        if earlier is not None:
            # An earlier attempt committed and then died: finish it, don't redo it.
            changes = repository.repository_diff(
                prefix=prefix, old=parent_of(prefix, earlier), new=earlier
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
        snapshot = repository.repository_snapshot(prefix=prefix)
        extractor = default_extractor()
        messages = payload_messages(job.payload, job_tag=job.public_id.hex[:8])
        stage = time.perf_counter()
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
        job_stage_observe("pipeline", stage)
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
        rendered: dict[str, bytes | None] = dict(_render_each(job, files))
        # a move whose new file could not be written keeps its old one
        result.moved = {old: new for old, new in result.moved.items() if new in rendered}
        if not rendered:
            return job_done(job=job, commit="", created=[], rewritten=[], linked=[])
        rendered.update({old: None for old in result.moved})  # a file that followed its fact

        def apply(snap):
            if not result.moved:
                return rendered
            return {**relinked(snap, result.moved, skip=rendered), **rendered}

        stage = time.perf_counter()
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
        job_stage_observe("commit", stage)
        stage = time.perf_counter()
        after_repository_change(namespace=namespace, commit=commit.commit)
        job_stage_observe("index", stage)
        linked = sorted(
            {link.source for link in result.links} | {link.target for link in result.links}
        )
        return job_done(
            job=job,
            commit=commit.commit,
            created=sorted(p for p in result.created if p in rendered),
            rewritten=sorted(p for p in result.rewritten if p in rendered),
            linked=linked,
            moved=result.moved,
        )
    except GitLoomError as exc:
        usage = exc.details.get("usage") if isinstance(exc.details, dict) else None
        return job_failed(job=job, code=exc.code, message=exc.message, usage=usage)
    except Exception:
        logger.exception("job %s failed unexpectedly", job.public_id)
        return job_failed(job=job, code=JobInternalError.code, message=JobInternalError.message)


def _render_each(job: Job, files: dict) -> dict[str, bytes]:
    """Each memory's file; one that cannot be written (a field the format refuses) is
    left out and logged, and never fails the job's other facts."""
    rendered = {}
    for path, memory in files.items():
        try:
            rendered[path] = render_memory(memory)
        except InvalidMemory as exc:
            logger.warning("job %s: left out %s: %s", job.public_id, path, exc.message)
    return rendered


def said_at(messages: list[Message]) -> datetime | None:
    """When a job's conversation was said: its latest message timestamp (the commit's
    author date; None, no timestamp at all, means now). A time in the future is now."""
    times = [as_utc(m.timestamp) for m in messages if m.timestamp is not None]
    return min(max(times), timezone.now()) if times else None


def _job_message(job: Job, result) -> str:
    return (
        f"Ingest job {job.public_id}: {len(result.created)} new, "
        f"{len(result.rewritten)} rewritten ({result.extractor} extractor)"
    )
