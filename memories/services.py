"""Writes to a namespace's memories: accepting ingestion jobs, forgetting, importing,
reverting a job (``memories.reverts``).

Every write is one commit through ``namespaces.repository`` followed, synchronously, by
``retrieval.services.after_repository_change`` (the namespace's recorded head, then the
index), so a write reported done is visible to ``/v1/retrieve``. A job accepted here is
run by the queue (``memories.jobs``) through ``memories.conversation_jobs`` (a
conversation) or ``memories.import_jobs`` (an import).
"""

from __future__ import annotations

import hashlib
import json
import uuid

from django.db import IntegrityError, InterfaceError, OperationalError, connection, transaction

from accounts.webhooks.events import webhook_emit
from gitloom.core.errors import ServiceUnavailable
from memories.errors import (
    IdempotencyKeyReused,
    InvalidFormat,
    InvalidIdempotencyKey,
    MemoryNotFound,
)
from memories.imports import bundle_upload_check, memory_import, tar_check, upload_put  # noqa: F401 (memory_import: the service callers use)
from memories.job_states import job_requeued
from memories.jobs import enqueue_drain_on_commit
from memories.models import Job
from memories.purges import memory_purge, namespace_purge  # noqa: F401 (the services callers use)
from memories.reverts import (  # noqa: F401 (the service callers use)
    Revert,
    job_revert,
    job_revert_preview,
    job_reverted_in,
)
from memories.selectors import unlinked_by_forget
from memories.transcripts import validate_transcript
from namespaces import repository
from namespaces.memory_format import validate_memory_path
from namespaces.models import Namespace
from retrieval.services import after_repository_change

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
    if idempotency_key is not None and not key:
        # A header sent empty is a client bug (an unset variable), not "no key": treated
        # as absent, its retries would make duplicates while the client believes them safe.
        raise InvalidIdempotencyKey("Idempotency-Key is empty; send a key or leave the header out.")
    if len(key) > MAX_IDEMPOTENCY_KEY_CHARS or any(ord(ch) < 32 for ch in key):
        raise InvalidIdempotencyKey("Idempotency-Key is at most 255 printable characters.")
    if key:
        existing = Job.objects.filter(account=account, idempotency_key=key).first()
        if existing is not None:
            return _same_request(existing, request_hash), False
    public_id = uuid.uuid4()
    try:
        with transaction.atomic():
            job = Job.objects.create(
                public_id=public_id,
                account=account,
                namespace=namespace,
                idempotency_key=key,
                request_hash=request_hash,
                payload=payload,
                session_id=payload["session_id"] or "",
            )
            enqueue_drain_on_commit(namespace_id=namespace.pk)
    except IntegrityError:
        # Two retries raced with the same key: the other one won.
        existing = Job.objects.get(account=account, idempotency_key=key)
        return _same_request(existing, request_hash), False
    except (OperationalError, InterfaceError):
        # The connection failed inside the transaction, perhaps at its COMMIT: the row
        # decides. Committed, the write is accepted (202); not, it is a 503 to retry.
        return _committed_job(public_id), True
    return job, True


def _committed_job(public_id: uuid.UUID) -> Job:
    connection.close()  # never reuse the broken connection; the next query opens one
    try:
        job = Job.objects.filter(public_id=public_id).first()
    except (OperationalError, InterfaceError):
        raise ServiceUnavailable(
            "The database went away while the write was being accepted, and cannot say "
            f"yet whether it was: it is job {public_id} if it was (GET /v1/jobs/{public_id}"
            "). Retry with the same Idempotency-Key, which returns that job if it exists.",
            job=str(public_id),
        ) from None
    if job is None:
        raise ServiceUnavailable(
            "The database went away before the write was accepted; nothing was stored. Try again."
        )
    return job


def _same_request(job: Job, request_hash: str) -> Job:
    if job.request_hash != request_hash:
        raise IdempotencyKeyReused()
    return job


def job_retry(*, job: Job) -> Job:
    """Queue a failed job again (operators' console)."""
    if job.status != Job.Status.FAILED:
        return job
    job = job_requeued(job=job)
    enqueue_drain_on_commit(namespace_id=job.namespace_id)
    return job


# --- forgetting --------------------------------------------------------------------


def memory_delete(*, namespace: Namespace, path: str) -> repository.CommitResult:
    """Forget a memory: one commit that removes the file (history keeps it) and every
    ``related`` link to it from the other memories."""
    validate_memory_path(path)

    def apply(snapshot: repository.Snapshot) -> dict[str, bytes | None]:
        if not snapshot.exists(path):
            raise MemoryNotFound()
        return {path: None, **unlinked_by_forget(snapshot, path)}

    result = repository.repository_commit(
        prefix=namespace.storage_prefix,
        apply=apply,
        message=f"Forget {path}",
        trailers={"Gitloom-Action": "forget", "Gitloom-Path": path},
    )
    after_repository_change(
        namespace=namespace,
        commit=result.commit,
        announce=lambda: webhook_emit(
            account_id=namespace.account_id,
            type="memory.forgotten",
            namespace=namespace.name,
            commit=result.commit,
            paths=[path],
        ),
    )
    return result


# --- import ------------------------------------------------------------------------


def import_accept(
    *, namespace: Namespace, data: bytes, kind: str = "auto", replace: bool = False
) -> Job:
    """Queue an import that is too big to run inside a request: the upload is kept in
    object storage beside the namespace's repository and one job imports it (validate
    everything, one commit, the index), so it ends either rejected with nothing
    committed (the job failed with the reason) or committed and indexed (done)."""
    if kind == "auto":
        kind = "bundle" if repository.is_bundle(data) else "tar"
    if kind not in ("tar", "bundle"):
        raise InvalidFormat("Import format is `tar`, `bundle` or `auto`.")
    if kind == "tar":
        tar_check(data)  # a hostile or broken archive is 400 now, not a failed job
    else:
        bundle_upload_check(data)  # its references and sizes, likewise
    digest = hashlib.sha256(data).hexdigest()
    upload = upload_put(namespace=namespace, data=data)
    with transaction.atomic():
        job = Job.objects.create(
            account=namespace.account,
            namespace=namespace,
            request_hash=digest,
            payload={
                "import": {"format": kind, "upload": upload, "bytes": len(data), "replace": replace}
            },
        )
        enqueue_drain_on_commit(namespace_id=namespace.pk)
    return job
