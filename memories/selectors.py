from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db.models import QuerySet

from accounts.models import Account
from gitloom.errors import InvalidInput
from memories.errors import InvalidFormat, JobNotFound, MemoryNotFound
from memories.models import Job
from namespaces import repository
from namespaces.memory_format import Memory, parse_memory, validate_memory_path
from namespaces.models import Namespace


@dataclass(frozen=True)
class MemoryFile:
    path: str
    memory: Memory
    raw: bytes
    blob: str
    commit: str


def memory_get(*, namespace: Namespace, path: str) -> MemoryFile:
    validate_memory_path(path)
    snapshot = repository.repository_snapshot(prefix=namespace.storage_prefix)
    raw = snapshot.read(path)
    if raw is None:
        raise MemoryNotFound()
    return MemoryFile(
        path=path,
        memory=parse_memory(raw, path=path),
        raw=raw,
        blob=snapshot.blob_id(path) or "",
        commit=snapshot.commit or "",
    )


def memory_history(*, namespace: Namespace, path: str) -> list[repository.Version]:
    validate_memory_path(path)
    versions = repository.repository_path_log(prefix=namespace.storage_prefix, path=path)
    if not versions:
        raise MemoryNotFound()
    return versions


def job_get_for_account(*, account: Account, job_id: str) -> Job:
    try:
        public_id = uuid.UUID(job_id)
    except ValueError:
        raise JobNotFound() from None
    try:
        return Job.objects.select_related("namespace").get(account=account, public_id=public_id)
    except Job.DoesNotExist:
        raise JobNotFound() from None


def job_list(*, namespace: Namespace) -> QuerySet[Job]:
    return Job.objects.filter(namespace=namespace).select_related("namespace").order_by("-seq")


@dataclass(frozen=True)
class JobPage:
    items: list[Job]
    next_cursor: str | None


def job_page(*, namespace: Namespace, cursor: str | None = None, limit: int = 50) -> JobPage:
    """A page of the namespace's jobs, newest first. ``cursor`` is the previous page's
    ``next_cursor``: the id of its last job, so a page never repeats or skips a job
    however many are accepted meanwhile."""
    jobs = job_list(namespace=namespace)
    if cursor:
        bad = InvalidInput("cursor must be the next_cursor of an earlier page.")
        try:
            last = uuid.UUID(cursor)
        except ValueError:
            raise bad from None
        seq = Job.objects.filter(namespace=namespace, public_id=last).values("seq").first()
        if seq is None:
            raise bad
        jobs = jobs.filter(seq__lt=seq["seq"])
    items = list(jobs[: limit + 1])
    more = len(items) > limit
    items = items[:limit]
    return JobPage(items=items, next_cursor=str(items[-1].public_id) if more else None)


@dataclass(frozen=True)
class MemoryPage:
    items: list[MemoryFile]
    next_cursor: str | None
    commit: str


def memory_list(
    *,
    namespace: Namespace,
    tier: str | None = None,
    tag: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> MemoryPage:
    """A page of memories in path order, read from the repository at its head."""
    snapshot = repository.repository_snapshot(prefix=namespace.storage_prefix)
    items: list[MemoryFile] = []
    next_cursor = None
    for path, blob in snapshot.walk(tier or ""):
        if cursor and path <= cursor:
            continue
        raw = snapshot.read_blob(blob)
        memory = parse_memory(raw, path=path)
        if tag and tag not in memory.tags:
            continue
        if len(items) == limit:
            next_cursor = items[-1].path
            break
        items.append(
            MemoryFile(path=path, memory=memory, raw=raw, blob=blob, commit=snapshot.commit or "")
        )
    return MemoryPage(items=items, next_cursor=next_cursor, commit=snapshot.commit or "")


@dataclass(frozen=True)
class Export:
    data: bytes
    content_type: str
    filename: str


EXPORT_FORMATS = {
    "bundle": ("application/x-git-bundle", "{name}.bundle"),
    "tar": ("application/gzip", "{name}.tar.gz"),
}


def namespace_export(*, namespace: Namespace, fmt: str = "bundle") -> Export:
    """The namespace's repository to take away: a git bundle, or a tar.gz of its files."""
    if fmt not in EXPORT_FORMATS:
        raise InvalidFormat("Export format is `bundle` or `tar`.")
    prefix = namespace.storage_prefix
    if fmt == "bundle":
        data = repository.repository_export_bundle(prefix=prefix)
    else:
        data = repository.repository_export_tar(prefix=prefix)
    content_type, filename = EXPORT_FORMATS[fmt]
    return Export(
        data=data, content_type=content_type, filename=filename.format(name=namespace.name)
    )
