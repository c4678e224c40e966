"""Writes to a namespace's memories: ingestion jobs, forgetting, importing.

Every write is one commit through ``namespaces.repository`` followed, synchronously, by
the indexer, so a write reported done is visible to ``/v1/retrieve``.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import logging
import tarfile
import time
import zlib

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Account
from gitloom.errors import GitLoomError
from memories.errors import (
    IdempotencyKeyReused,
    ImportTooLarge,
    InvalidArchive,
    InvalidFormat,
    InvalidIdempotencyKey,
    JobAttemptsExhausted,
    JobInternalError,
    MemoryNotFound,
)
from memories.jobs import enqueue_drain, job_mark_running
from memories.models import Job
from memories.transcripts import payload_messages, validate_transcript
from namespaces import repository
from namespaces.memory_format import (
    MAX_MEMORY_BYTES,
    InvalidMemory,
    Memory,
    parse_memory,
    render_memory,
    validate_links,
    validate_memory_path,
)
from namespaces.models import Namespace
from namespaces.selectors import namespace_get_for_account

logger = logging.getLogger("gitloom.memories")
# One line when a job starts and one when it ends, for operators following the queue.
jobs_logger = logging.getLogger("gitloom.jobs")

MAX_IMPORT_FILES = 200_000
MAX_IDEMPOTENCY_KEY_CHARS = 255
# How far back a re-run job looks for the commit an earlier attempt may have made.
JOB_COMMIT_LOOKBACK = 200


# --- after every commit ------------------------------------------------------------


def namespace_committed(*, namespace: Namespace, commit: str) -> None:
    """Record ``commit`` as the namespace's head, then bring the index up to the
    repository's head.

    The head is recorded before indexing, so a write whose indexing fails (or whose
    process dies first) leaves a namespace whose head is ahead of its index, and
    ``/v1/retrieve`` says so (``commit`` vs ``indexed_commit``) instead of quietly
    answering from the older commit.
    """
    from retrieval.indexer import index_namespace

    _record_head(namespace, commit)
    indexed = index_namespace(namespace=namespace)
    # Another writer's commit may have landed on top of ours meanwhile.
    _record_head(namespace, indexed.commit)


def _record_head(namespace: Namespace, commit: str | None) -> None:
    if commit and commit != namespace.head_commit:
        Namespace.objects.filter(pk=namespace.pk).update(
            head_commit=commit, last_write=timezone.now()
        )
        namespace.head_commit = commit


# --- ingestion ---------------------------------------------------------------------


def _request_hash(namespace: Namespace, payload: dict) -> str:
    canonical = json.dumps({"namespace": namespace.name, **payload}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def job_accept(
    *,
    account: Account,
    namespace: str | None,
    messages: object,
    session_id: object = None,
    metadata: object = None,
    idempotency_key: str | None = None,
) -> tuple[Job, bool]:
    """Validate a transcript and queue it; returns ``(job, created)``.

    Everything is checked before the job row is written; once it is written the write
    is accepted and will not be lost. A retried request with the same Idempotency-Key
    gets the same job back.
    """
    target = namespace_get_for_account(account=account, name=namespace)
    payload = validate_transcript(messages=messages, session_id=session_id, metadata=metadata)
    request_hash = _request_hash(target, payload)
    key = (idempotency_key or "").strip()
    if len(key) > MAX_IDEMPOTENCY_KEY_CHARS or any(ord(ch) < 32 for ch in key):
        raise InvalidIdempotencyKey("Idempotency-Key is at most 255 printable characters.")
    if key:
        existing = Job.objects.filter(account=account, idempotency_key=key).first()
        if existing is not None:
            return _same_request(existing, request_hash), False
    try:
        with transaction.atomic():
            job = Job.objects.create(
                account=account,
                namespace=target,
                idempotency_key=key,
                request_hash=request_hash,
                payload=payload,
                session_id=payload["session_id"] or "",
            )
            transaction.on_commit(lambda: enqueue_drain(namespace_id=target.pk))
    except IntegrityError:
        # Two retries raced with the same key: the other one won.
        existing = Job.objects.get(account=account, idempotency_key=key)
        return _same_request(existing, request_hash), False
    return job, True


def _same_request(job: Job, request_hash: str) -> Job:
    if job.request_hash != request_hash:
        raise IdempotencyKeyReused()
    return job


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
        job = _job_failed(job, code=exhausted.code, message=exhausted.message)
        _log_job_end(job, duration_ms=0)
        return job
    job = job_mark_running(job=job)
    jobs_logger.info(
        "job started namespace=%s job=%s attempt=%d", job.namespace, job.public_id, job.attempts
    )
    started = time.monotonic()
    job = _job_attempt(job)
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
    from memories.candidates import memory_candidates
    from memories.pipeline import default_extractor, run_pipeline

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
            namespace_committed(namespace=namespace, commit=earlier)
            return _job_done(
                job,
                commit=earlier,
                created=[c.path for c in changes if c.kind == "add"],
                rewritten=[c.path for c in changes if c.kind == "modify"],
                linked=[],
            )
        snapshot = repository.repository_snapshot(prefix=prefix)
        extractor = default_extractor()
        result = run_pipeline(
            messages=payload_messages(job.payload, job_tag=job.public_id.hex[:8]),
            session_id=job.payload.get("session_id"),
            existing=lambda texts, limit: memory_candidates(
                namespace=namespace, texts=texts, limit=limit
            ),
            extractor=extractor,
            # each topic folder is counted once per job, however many drafts ask
            topic_sizes=functools.cache(lambda folder: sum(1 for _ in snapshot.walk(folder))),
            now=job.created,
        )
        Job.objects.filter(pk=job.pk).update(
            extractor=result.extractor,
            prompt_version=result.prompt_version,
            usage=result.usage.as_dict(),
        )
        files = {**result.created, **result.rewritten}
        if not files:
            return _job_done(job, commit="", created=[], rewritten=[], linked=[])
        rendered = {path: render_memory(memory) for path, memory in files.items()}
        commit = repository.repository_commit(
            prefix=prefix,
            apply=lambda snap: rendered,
            message=_job_message(job, result),
            trailers={
                "Gitloom-Job": str(job.public_id),
                "Gitloom-Session": job.session_id or "-",
                "Gitloom-Extractor": result.extractor,
                "Gitloom-Prompt-Version": result.prompt_version,
            },
        )
        namespace_committed(namespace=namespace, commit=commit.commit)
        linked = sorted(
            {link.source for link in result.links} | {link.target for link in result.links}
        )
        return _job_done(
            job,
            commit=commit.commit,
            created=sorted(result.created),
            rewritten=sorted(result.rewritten),
            linked=linked,
        )
    except GitLoomError as exc:
        usage = exc.details.get("usage") if isinstance(exc.details, dict) else None
        return _job_failed(job, code=exc.code, message=exc.message, usage=usage)
    except Exception:
        logger.exception("job %s failed unexpectedly", job.public_id)
        return _job_failed(job, code=JobInternalError.code, message=JobInternalError.message)


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


def _job_done(job: Job, *, commit: str, created, rewritten, linked) -> Job:
    Job.objects.filter(pk=job.pk).update(
        status=Job.Status.DONE,
        finished=timezone.now(),
        commit=commit,
        result={"created": created, "rewritten": rewritten, "linked": linked},
        error_code="",
        error_message="",
    )
    job.refresh_from_db()
    return job


def _job_failed(job: Job, *, code: str, message: str, usage: dict | None = None) -> Job:
    fields = {
        "status": Job.Status.FAILED,
        "finished": timezone.now(),
        "error_code": code,
        "error_message": message,
    }
    if usage:
        fields["usage"] = usage
    Job.objects.filter(pk=job.pk).update(**fields)
    job.refresh_from_db()
    return job


def job_retry(*, job: Job) -> Job:
    """Queue a failed job again (operators' console)."""
    if job.status != Job.Status.FAILED:
        return job
    Job.objects.filter(pk=job.pk).update(status=Job.Status.QUEUED, error_code="", error_message="")
    transaction.on_commit(lambda: enqueue_drain(namespace_id=job.namespace_id))
    job.refresh_from_db()
    return job


# --- forgetting --------------------------------------------------------------------


def memory_delete(*, namespace: Namespace, path: str) -> repository.CommitResult:
    """Forget a memory: one commit that removes the file (history keeps it)."""
    validate_memory_path(path)

    def apply(snapshot: repository.Snapshot) -> dict[str, bytes | None]:
        if not snapshot.exists(path):
            raise MemoryNotFound()
        return {path: None}

    result = repository.repository_commit(
        prefix=namespace.storage_prefix,
        apply=apply,
        message=f"Forget {path}",
        trailers={"Gitloom-Action": "forget", "Gitloom-Path": path},
    )
    namespace_committed(namespace=namespace, commit=result.commit)
    return result


# --- import ------------------------------------------------------------------------


def _import_files_from_tar(data: bytes) -> dict[str, Memory]:
    """Every memory in a tar(.gz), validated file by file; raises on the first problem."""
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")  # noqa: SIM115
    except (tarfile.TarError, EOFError, OSError):
        raise InvalidArchive("The upload is not a tar.gz archive.") from None
    memories: dict[str, Memory] = {}
    total = 0
    with archive:
        try:
            for member in archive:
                name = member.name.removeprefix("./")
                if member.isdir():
                    continue
                if not member.isfile():
                    raise InvalidArchive(
                        f"{name}: only regular files may be imported (no links or devices).",
                    )
                validate_memory_path(name)
                if member.size > MAX_MEMORY_BYTES:
                    raise InvalidMemory(
                        f"{name}: over the {MAX_MEMORY_BYTES}-byte limit for one memory.",
                    )
                total += member.size
                if len(memories) >= MAX_IMPORT_FILES or total > settings.GITLOOM_MAX_IMPORT_BYTES:
                    raise ImportTooLarge("The archive holds too much.")
                if name in memories:
                    raise InvalidArchive(f"{name}: appears twice.")
                handle = archive.extractfile(member)
                content = handle.read(MAX_MEMORY_BYTES + 1) if handle else b""
                memories[name] = parse_memory(content, path=name)
        except (tarfile.TarError, EOFError, OSError, zlib.error):
            raise InvalidArchive("The archive is corrupt.") from None
    if not memories:
        raise InvalidArchive("The archive holds no memory files.")
    return memories


def memory_import(
    *, namespace: Namespace, data: bytes, kind: str = "auto"
) -> repository.CommitResult:
    """Import a tar.gz of memory files or a git bundle: all or nothing, one commit.

    A tar adds or replaces the files it holds, at the paths it gives, and leaves the
    namespace's other files alone. A bundle brings in its history (see
    ``repository_import_bundle``). Either way every file is validated first. ``kind``
    ``auto`` tells a bundle by its header.
    """
    prefix = namespace.storage_prefix
    if kind == "auto":
        kind = "bundle" if data.startswith(b"# v2 git bundle") else "tar"
    if kind == "bundle":

        def validate(snapshot: repository.Snapshot) -> None:
            parsed = {}
            for path, _blob in snapshot.walk():
                validate_memory_path(path)
                parsed[path] = parse_memory(snapshot.read(path) or b"", path=path)
            validate_links(memories=parsed, existing_paths=set())

        result = repository.repository_import_bundle(
            prefix=prefix,
            data=data,
            message="Import git bundle",
            trailers={"Gitloom-Action": "import", "Gitloom-Import": "bundle"},
            validate=validate,
        )
    elif kind == "tar":
        memories = _import_files_from_tar(data)
        rendered = {path: render_memory(memory) for path, memory in memories.items()}

        def apply(snapshot: repository.Snapshot) -> dict[str, bytes]:
            validate_links(memories=memories, existing_paths=_Existing(snapshot))
            return rendered

        result = repository.repository_commit(
            prefix=prefix,
            apply=apply,
            message=f"Import {len(rendered)} memory files",
            trailers={"Gitloom-Action": "import", "Gitloom-Import": "tar"},
        )
    else:
        raise InvalidFormat("Import format is `tar`, `bundle` or `auto`.")
    namespace_committed(namespace=namespace, commit=result.commit)
    return result


class _Existing:
    """``path in existing`` against a snapshot, without listing the whole tree."""

    def __init__(self, snapshot: repository.Snapshot):
        self.snapshot = snapshot

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.snapshot.exists(path)
