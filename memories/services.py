"""Writes to a namespace's memories: accepting ingestion jobs, forgetting, importing.

Every write is one commit through ``namespaces.repository`` followed, synchronously, by
``retrieval.services.after_repository_change`` (the namespace's recorded head, then the
index), so a write reported done is visible to ``/v1/retrieve``. A job accepted here is
run by the queue (``memories.jobs``) through ``memories.ingest``.
"""

from __future__ import annotations

import hashlib
import json

from django.conf import settings
from django.db import IntegrityError, transaction

from memories.archives import read_tar
from memories.errors import (
    IdempotencyKeyReused,
    InvalidArchive,
    InvalidFormat,
    InvalidIdempotencyKey,
    MemoryNotFound,
)
from memories.job_states import job_requeued
from memories.jobs import enqueue_drain
from memories.models import Job
from memories.transcripts import validate_transcript
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
from retrieval.services import after_repository_change

MAX_IMPORT_FILES = 200_000
MAX_IDEMPOTENCY_KEY_CHARS = 255


# --- ingestion ---------------------------------------------------------------------


def _request_hash(namespace: Namespace, payload: dict) -> str:
    canonical = json.dumps({"namespace": namespace.name, **payload}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def job_accept(
    *,
    namespace: Namespace,
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
    account = namespace.account
    payload = validate_transcript(messages=messages, session_id=session_id, metadata=metadata)
    request_hash = _request_hash(namespace, payload)
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
                namespace=namespace,
                idempotency_key=key,
                request_hash=request_hash,
                payload=payload,
                session_id=payload["session_id"] or "",
            )
            transaction.on_commit(lambda: enqueue_drain(namespace_id=namespace.pk))
    except IntegrityError:
        # Two retries raced with the same key: the other one won.
        existing = Job.objects.get(account=account, idempotency_key=key)
        return _same_request(existing, request_hash), False
    return job, True


def _same_request(job: Job, request_hash: str) -> Job:
    if job.request_hash != request_hash:
        raise IdempotencyKeyReused()
    return job


def job_retry(*, job: Job) -> Job:
    """Queue a failed job again (operators' console)."""
    if job.status != Job.Status.FAILED:
        return job
    job = job_requeued(job=job)
    transaction.on_commit(lambda: enqueue_drain(namespace_id=job.namespace_id))
    return job


# --- forgetting --------------------------------------------------------------------


def memory_delete(*, namespace: Namespace, path: str) -> repository.CommitResult:
    """Forget a memory: one commit that removes the file (history keeps it) and every
    ``related`` link to it from the other memories."""
    validate_memory_path(path)

    def apply(snapshot: repository.Snapshot) -> dict[str, bytes | None]:
        if not snapshot.exists(path):
            raise MemoryNotFound()
        return {path: None, **_unlinked_from(snapshot, path)}

    result = repository.repository_commit(
        prefix=namespace.storage_prefix,
        apply=apply,
        message=f"Forget {path}",
        trailers={"Gitloom-Action": "forget", "Gitloom-Path": path},
    )
    after_repository_change(namespace=namespace, commit=result.commit)
    return result


def _unlinked_from(snapshot: repository.Snapshot, path: str) -> dict[str, bytes]:
    """Every other memory that links to ``path``, rewritten without those links.

    Forgetting a memory must leave no ``related`` link pointing at it, or the namespace's
    own export would no longer import. The blobs are scanned for the path's bytes first,
    so only the few files that can hold such a link are parsed.
    """
    needle = path.encode()
    changed: dict[str, bytes] = {}
    for other, blob in snapshot.walk():
        if other == path:
            continue
        data = snapshot.read_blob(blob)
        if needle not in data:
            continue
        memory = parse_memory(data, path=other)
        kept = [link for link in memory.related if link.path != path]
        if len(kept) != len(memory.related):
            memory.related = kept
            changed[other] = render_memory(memory)
    return changed


# --- import ------------------------------------------------------------------------


def _import_files_from_tar(data: bytes) -> dict[str, Memory]:
    """Every memory in a tar(.gz), validated file by file; raises on the first problem.

    The archive is read by ``memories.archives`` (capped and streaming), never by
    ``tarfile``, whose header parsing trusts its input.
    """
    memories: dict[str, Memory] = {}
    for name, content in read_tar(
        data,
        max_files=MAX_IMPORT_FILES,
        max_file_bytes=MAX_MEMORY_BYTES,
        max_total_bytes=settings.GITLOOM_MAX_IMPORT_BYTES,
    ):
        validate_memory_path(name)
        if len(content) > MAX_MEMORY_BYTES:
            raise InvalidMemory(f"{name}: over the {MAX_MEMORY_BYTES}-byte limit for one memory.")
        if name in memories:
            raise InvalidArchive(f"{name}: appears twice.")
        memories[name] = parse_memory(content, path=name)
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
        kind = "bundle" if repository.is_bundle(data) else "tar"
    if kind == "bundle":

        def validate(snapshot: repository.Snapshot) -> None:
            parsed = {}
            for path, _blob in snapshot.walk():
                validate_memory_path(path)
                parsed[path] = parse_memory(snapshot.read(path) or b"", path=path)
            validate_links(memories=parsed, existing_paths=set())

        def validate_file(path: str, content: bytes) -> None:
            # Every version in the bundle's history, not only its head: older ones
            # show in /history and must be memories too.
            validate_memory_path(path)
            parse_memory(content, path=path)

        result = repository.repository_import_bundle(
            prefix=prefix,
            data=data,
            message="Import git bundle",
            trailers={"Gitloom-Action": "import", "Gitloom-Import": "bundle"},
            validate=validate,
            validate_file=validate_file,
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
    after_repository_change(namespace=namespace, commit=result.commit)
    return result


class _Existing:
    """``path in existing`` against a snapshot, without listing the whole tree."""

    def __init__(self, snapshot: repository.Snapshot):
        self.snapshot = snapshot

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.snapshot.exists(path)
