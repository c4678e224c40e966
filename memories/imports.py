"""Importing a tar.gz of memory files or a git bundle into a namespace: all or nothing.

``memory_import`` validates every file, makes one commit (or none when nothing
changes) and brings the index up to it. A small import runs inside its request; a big
one is queued (``memories.services.import_accept``) and run by the queue through
``memories.import_jobs``, which calls ``memory_import`` on the upload kept in object storage
(``upload_put``/``upload_take``) and then indexes the commit in steps, within the job's
time. Running it again after a crash is safe: the same files or bundle make no second
commit, and the index is brought up either way.
"""

from __future__ import annotations

import uuid

from django.conf import settings

from accounts.webhooks.events import webhook_emit
from memories.archives import TarWork, read_tar
from memories.errors import InvalidArchive, InvalidFormat
from namespaces import repository
from namespaces.errors import InvalidMemory
from namespaces.memory_format import (
    MAX_MEMORY_BYTES,
    Memory,
    parse_memory,
    render_memory,
    validate_links,
    validate_memory_path,
)
from namespaces.models import Namespace
from namespaces.storage import object_store
from retrieval.services import after_repository_change

MAX_IMPORT_FILES = 200_000


def upload_put(*, namespace: Namespace, data: bytes) -> str:
    """Keep an upload for a queued import; returns its storage key."""
    key = f"{namespace.storage_prefix}uploads/{uuid.uuid4().hex}"
    object_store().put(key, data)
    return key


def upload_get(*, key: str) -> bytes | None:
    return object_store().get(key)


def upload_delete(*, key: str) -> None:
    object_store().delete(key)


def _import_files_from_tar(data: bytes) -> dict[str, Memory]:
    """Every memory in a tar(.gz), validated file by file; raises on the first problem.

    The archive is read by ``memories.archives`` (capped and streaming), never by
    ``tarfile``, whose header parsing trusts its input.
    """
    memories: dict[str, Memory] = {}
    for name, content in tar_members(data):
        memories[name] = parse_memory(content, path=name)
    if not memories:
        raise InvalidArchive("The archive holds no memory files.")
    return memories


def _render_checked(path: str, memory: Memory) -> bytes:
    """The canonical bytes of an imported memory, read back before anything is stored:
    a value the reader would not give back as it was (a date, a number, a string)
    is refused here, at the door, rather than stored where it would break the listing."""
    rendered = render_memory(memory)
    try:
        readable = parse_memory(rendered, path=path) == memory
    except InvalidMemory:
        readable = False
    if not readable:
        raise InvalidMemory(
            f"{path}: the header cannot be stored in the canonical form and read back "
            "unchanged; check its dates, numbers and strings.",
            path=path,
        )
    return rendered


def tar_check(data: bytes) -> None:
    """The archive's structure, paths and sizes (not the memories' format): fast enough
    for a request, so a hostile or broken archive is 400 before any job is queued."""
    if not any(True for _ in tar_members(data)):
        raise InvalidArchive("The archive holds no memory files.")


def tar_members(data: bytes, *, work: TarWork | None = None):
    """``(path, bytes)`` of each file, with the path, the size and duplicates checked;
    ``work`` counts what reading cost (``memories.archives.TarWork``)."""
    seen: set[str] = set()
    for name, content in read_tar(
        data,
        max_files=MAX_IMPORT_FILES,
        max_file_bytes=MAX_MEMORY_BYTES,
        max_total_bytes=settings.GITLOOM_MAX_IMPORT_BYTES,
        work=work,
    ):
        validate_memory_path(name)
        if len(content) > MAX_MEMORY_BYTES:
            raise InvalidMemory(f"{name}: over the {MAX_MEMORY_BYTES}-byte limit for one memory.")
        if name in seen:
            raise InvalidArchive(f"{name}: appears twice.")
        seen.add(name)
        yield name, content


def bundle_upload_check(data: bytes) -> None:
    """A bundle's header, references and sizes (a file over the limit for one memory
    included), before a job is queued for it; the job checks everything else."""
    repository.bundle_check(data, validate_blob_size=_blob_fits)


def _blob_fits(size: int) -> None:
    if size > MAX_MEMORY_BYTES:
        raise InvalidMemory(
            f"A file in the bundle is {size} bytes, over the {MAX_MEMORY_BYTES}-byte limit "
            "for one memory."
        )


def memory_import(
    *,
    namespace: Namespace,
    data: bytes,
    kind: str = "auto",
    replace: bool = False,
    job_id: str | None = None,
    index: bool = True,
) -> repository.CommitResult:
    """Import a tar.gz of memory files or a git bundle: all or nothing, one commit.

    A tar adds or replaces the files it holds, at the paths it gives, and leaves the
    namespace's other files alone. A bundle brings in its history (see
    ``repository_import_bundle``). Either way every file is validated first. ``kind``
    ``auto`` tells a bundle by its header. ``index=False`` leaves bringing the index up
    to the caller (an import job does it in steps, ``memories.import_jobs``).
    """
    prefix = namespace.storage_prefix
    # A queued import names its job, as an ingest's commit does: blame and history then
    # lead from the commit to the job, and a re-run after a crash finds its own commit.
    job_trailer = {"Gitloom-Job": job_id} if job_id else {}
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
            replace=replace,
            validate_blob_size=_blob_fits,
            message="Import git bundle",
            trailers={"Gitloom-Action": "import", "Gitloom-Import": "bundle", **job_trailer},
            validate=validate,
            validate_file=validate_file,
        )
    elif kind == "tar":
        memories = _import_files_from_tar(data)
        rendered = {path: _render_checked(path, memory) for path, memory in memories.items()}

        def apply(snapshot: repository.Snapshot) -> dict[str, bytes]:
            validate_links(memories=memories, existing_paths=_Existing(snapshot))
            return rendered

        result = repository.repository_commit(
            prefix=prefix,
            apply=apply,
            message=f"Import {len(rendered)} memory files",
            trailers={"Gitloom-Action": "import", "Gitloom-Import": "tar", **job_trailer},
        )
    else:
        raise InvalidFormat("Import format is `tar`, `bundle` or `auto`.")
    if index:

        def announce() -> None:
            for type, paths in (
                ("memory.created", result.created),
                ("memory.rewritten", result.modified),
            ):  # noqa: A001
                if paths and not result.noop:
                    webhook_emit(
                        account_id=namespace.account_id,
                        type=type,
                        namespace=namespace.name,
                        commit=result.commit,
                        paths=sorted(paths),
                    )

        after_repository_change(namespace=namespace, commit=result.commit, announce=announce)
    return result


class _Existing:
    """``path in existing`` against a snapshot, without listing the whole tree."""

    def __init__(self, snapshot: repository.Snapshot):
        self.snapshot = snapshot

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.snapshot.exists(path)
