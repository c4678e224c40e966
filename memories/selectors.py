from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.core import signing
from django.db.models import QuerySet

from accounts.models import Account
from gitloom.core.errors import InvalidInput
from memories.errors import InvalidFormat, InvalidTier, JobNotFound, MemoryNotFound
from memories.models import Job
from namespaces import repository
from namespaces.errors import CommitNotFound, CommitNotInHistory, InvalidCommitId, InvalidMemory
from namespaces.memory_format import (
    TIERS,
    Memory,
    parse_memory,
    render_memory,
    validate_memory_path,
)
from namespaces.models import Namespace
from namespaces.selectors import commit_check

logger = logging.getLogger("gitloom.memories")


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


def memories_linking_to(*, namespace: Namespace, path: str) -> list[str]:
    """The other memories a forget of ``path`` would rewrite: those with a ``related``
    link to it, which the forget drops (shown before a forget is confirmed)."""
    snapshot = repository.repository_snapshot(prefix=namespace.storage_prefix)
    return sorted(unlinked_by_forget(snapshot, path))


def unlinked_by_forget(snapshot: repository.Snapshot, path: str) -> dict[str, bytes]:
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
        try:
            memory = parse_memory(data, path=other)
        except InvalidMemory:  # unreadable: it cannot be rewritten, and must not stop this
            continue
        kept = [link for link in memory.related if link.path != path]
        if len(kept) != len(memory.related):
            memory.related = kept
            changed[other] = render_memory(memory)
    return changed


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


def jobs_waiting_summary() -> tuple[int, float | None]:
    """How many jobs are queued (not yet started) on this deployment, and the oldest
    one's age in seconds (None when there are none)."""
    from django.db.models import Count, Min
    from django.utils import timezone

    row = Job.objects.filter(status=Job.Status.QUEUED).aggregate(
        n=Count("seq"), oldest=Min("created")
    )
    if not row["n"]:
        return 0, None
    return row["n"], (timezone.now() - row["oldest"]).total_seconds()


def job_list(*, namespace: Namespace) -> QuerySet[Job]:
    return Job.objects.filter(namespace=namespace).select_related("namespace").order_by("-seq")


@dataclass(frozen=True)
class JobLink:
    source: str
    type: str
    target: str


def job_links(*, job: Job) -> list[JobLink]:
    """The links the job's commit holds among the memories it linked (its result's
    ``linked`` names both ends of each, new files included): read from the memories
    themselves as that commit left them. Empty when that commit is no longer readable
    (a purge gave it a new id, an imported bundle replaced the history)."""
    linked = set((job.result or {}).get("linked") or [])
    if not linked or not job.commit:
        return []
    try:
        snapshot = repository.repository_snapshot(
            prefix=job.namespace.storage_prefix, commit=job.commit
        )
    except (CommitNotFound, InvalidCommitId):
        return []
    links = []
    for path in sorted(linked):
        raw = snapshot.read(path)
        if raw is None:
            continue
        try:
            memory = parse_memory(raw, path=path)
        except InvalidMemory:
            continue
        links += [
            JobLink(path, link.type, link.path) for link in memory.related if link.path in linked
        ]
    return links


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
    """A page of memories in path order, read from the repository at its head.

    A file that does not parse (hand-edited history, or one an older GitLoom wrote) is
    left out with a warning naming it: one bad file never fails the listing of its
    neighbours. It can still be fetched, forgotten and seen in its history.
    """
    if tier is not None and tier not in TIERS:
        raise InvalidTier(f"tier must be one of {', '.join(TIERS)}.")
    snapshot = repository.repository_snapshot(prefix=namespace.storage_prefix)
    items: list[MemoryFile] = []
    next_cursor = None
    for path, blob in snapshot.walk(tier or ""):
        if cursor and path <= cursor:
            continue
        raw = snapshot.read_blob(blob)
        try:
            memory = parse_memory(raw, path=path)
        except InvalidMemory as exc:
            logger.warning(
                "namespace %s: skipping unreadable memory file %s: %s",
                namespace.pk,
                path,
                exc.message,
            )
            continue
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


# --- provenance: blame, and changes since a commit ---------------------------------

# What a commit was: `ingest` when a job of this namespace made it, else its
# `Gitloom-Action` trailer (`forget`, `import`, `revert`, ...), else `other` (a commit
# GitLoom did not write here, e.g. history brought in with an imported bundle, even if
# it names a job of wherever it came from). The same rule as memories.reverts.
INGEST, OTHER = "ingest", "other"


def commit_action(trailers: dict[str, str], *, job: Job | None) -> str:
    if job is not None:
        return INGEST
    return trailers.get("Gitloom-Action") or OTHER


def _jobs_named(namespace: Namespace, trailer_values: Iterable[str | None]) -> dict[str, Job]:
    """The namespace's jobs among the ``Gitloom-Job`` trailer values, by id (one query).

    Scoped to the namespace: a trailer is text in a commit, and an imported bundle can
    carry any, including the id of another namespace's (or account's) job.
    """
    ids = set()
    for value in trailer_values:
        try:
            ids.add(uuid.UUID(value or ""))
        except ValueError:
            continue
    if not ids:
        return {}
    jobs = Job.objects.filter(namespace=namespace, public_id__in=ids)
    return {str(job.public_id): job for job in jobs}


@dataclass(frozen=True)
class SourceMessage:
    """A message of a job's transcript that a memory version cites in ``sources``."""

    id: str
    role: str
    content: str
    name: str | None = None
    timestamp: str | None = None


@dataclass(frozen=True)
class BlameCommit:
    """A commit that wrote lines of a memory: what wrote it and from which messages."""

    commit: str
    time: datetime
    said: datetime
    message: str
    trailers: dict[str, str]
    action: str
    job: Job | None
    session_id: str | None
    extractor: str | None
    prompt_version: str | None
    sources: list[str]
    messages: list[SourceMessage] = field(default_factory=list)


@dataclass(frozen=True)
class MemoryBlame:
    path: str
    commit: str
    blob: str
    line_count: int
    hunks: list[repository.BlameHunk]
    commits: list[BlameCommit]


def job_messages(job: Job) -> list[SourceMessage]:
    """The job's transcript with the ids ``sources`` cite: a message posted without an
    id has the one the job gave it (``memories.transcripts.payload_messages``)."""
    tag = job.public_id.hex[:8]
    return [
        SourceMessage(
            id=item.get("id") or f"{tag}-m{index + 1}",
            role=item.get("role", ""),
            content=item.get("content", ""),
            name=item.get("name"),
            timestamp=item.get("timestamp"),
        )
        for index, item in enumerate((job.payload or {}).get("messages") or [])
    ]


def _version_sources(path: str, content: bytes) -> list[str]:
    try:
        return parse_memory(content, path=path).sources
    except InvalidMemory:  # an old version GitLoom did not write; nothing to cite
        return []


def memory_blame(*, namespace: Namespace, path: str) -> MemoryBlame:
    """Each line of the memory at the head with the commit that last changed it, the job
    that made that commit (a job of this namespace, by its ``Gitloom-Job`` trailer), its
    session, extractor and prompt version, the ``sources`` of the memory as that commit
    left it, and the job's messages those sources name."""
    validate_memory_path(path)
    blame = repository.repository_blame(prefix=namespace.storage_prefix, path=path)
    if blame is None:
        raise MemoryNotFound()
    jobs = _jobs_named(namespace, (c.trailers.get("Gitloom-Job") for c in blame.commits))
    commits = []
    for entry in blame.commits:
        trailers = entry.trailers
        job = jobs.get(trailers.get("Gitloom-Job", ""))
        sources = _version_sources(path, entry.content)
        cited = set(sources)
        messages = [m for m in job_messages(job) if m.id in cited] if job is not None else []
        session = trailers.get("Gitloom-Session")
        if session is None and job is not None:
            session = job.session_id
        commits.append(
            BlameCommit(
                commit=entry.commit,
                time=entry.time,
                said=entry.said or entry.time,
                message=entry.message,
                trailers=trailers,
                action=commit_action(trailers, job=job),
                job=job,
                session_id=session if session and session != "-" else None,
                extractor=trailers.get("Gitloom-Extractor") or None,
                prompt_version=trailers.get("Gitloom-Prompt-Version") or None,
                sources=sources,
                messages=messages,
            )
        )
    return MemoryBlame(
        path=path,
        commit=blame.commit,
        blob=blame.blob,
        line_count=blame.line_count,
        hunks=blame.hunks,
        commits=commits,
    )


def _job_id(trailers: dict[str, str], jobs: dict[str, Job]) -> str | None:
    job = jobs.get(trailers.get("Gitloom-Job", ""))
    return str(job.public_id) if job is not None else None


@dataclass(frozen=True)
class ChangedMemory:
    path: str
    change: str  # add, modify, delete
    blob: str | None
    commit: str
    time: datetime
    action: str
    job: str | None


@dataclass(frozen=True)
class ChangesPage:
    since: str | None
    commit: str
    changes: list[ChangedMemory]
    next_cursor: str | None


def _commit_param(value: str, *, name: str) -> str:
    value = value.strip().lower()
    if not repository.SHA_RE.fullmatch(value):
        raise InvalidCommitId(f"`{name}` must be a commit id: 40 hexadecimal digits.")
    return value


# A changes cursor pins the first page's head (a commit id) and says where the page
# ended; it is signed with the namespace and `since` it was handed out for, so a made-up
# or edited cursor, or one of another namespace or another `since`, is 400 (never a
# listing relative to a commit the caller chose, nor a 410 that would send a client to
# re-sync for nothing).
_CURSOR_SIGNER = signing.Signer(salt="gitloom.memories.changes-cursor")
_BAD_CURSOR = "cursor must be the next_cursor of an earlier page of this same listing (same since)."


def _changes_cursor(*, namespace: Namespace, since: str | None, commit: str, after: str) -> str:
    return _CURSOR_SIGNER.sign_object([namespace.pk, since, commit, after])


def _changes_cursor_read(
    cursor: str, *, namespace: Namespace, since: str | None
) -> tuple[str, str]:
    """The pinned commit and the last path of a ``next_cursor`` handed out for this
    namespace and ``since``; ``InvalidInput`` for any other string."""
    try:
        value = _CURSOR_SIGNER.unsign_object(cursor)
    except (signing.BadSignature, ValueError, UnicodeError):
        raise InvalidInput(_BAD_CURSOR) from None
    if not (isinstance(value, list) and len(value) == 4 and value[:2] == [namespace.pk, since]):
        raise InvalidInput(_BAD_CURSOR)
    commit, after = value[2], value[3]
    if not (isinstance(commit, str) and repository.SHA_RE.fullmatch(commit)):
        raise InvalidInput(_BAD_CURSOR)
    if not (isinstance(after, str) and after):
        raise InvalidInput(_BAD_CURSOR)
    return commit, after


def namespace_changes(
    *, namespace: Namespace, since: str | None, cursor: str | None = None, limit: int = 200
) -> ChangesPage:
    """The memory files added, modified and deleted from commit ``since`` to the head, in
    path order, ``limit`` a page, each with the commit and job that last touched it.
    ``since`` ``None``: every file at the head, as added (a full listing).

    The first page pins the head it answers for; ``next_cursor`` carries it with the
    last path, the namespace and ``since``, signed (:func:`_changes_cursor`), so later
    pages answer for the same commit however the namespace moves meanwhile, and a
    cursor that was not handed out for this very listing is ``InvalidInput`` (400).
    ``since`` (or the pinned commit, should a purge rewrite it between two pages) not
    on the head's first-parent line is ``CommitNotInHistory`` (410); one a purge replaced is ``CommitPurged`` (410).
    """
    since = _commit_param(since, name="since") if since else None
    until = after = None
    if cursor:
        until, after = _changes_cursor_read(cursor, namespace=namespace, since=since)
    try:
        page = repository.repository_changes(
            prefix=namespace.storage_prefix, since=since, until=until, after=after, limit=limit
        )
    except CommitNotInHistory:
        # A commit a purge rewrote says so (410 commit_purged, with the id that replaced
        # it) rather than only "not in the history".
        for commit in (since, until):
            if commit:
                commit_check(namespace=namespace, commit=commit)
        raise
    jobs = _jobs_named(namespace, (c.trailers.get("Gitloom-Job") for c in page.changes))
    changes = [
        ChangedMemory(
            path=change.path,
            change=change.kind,
            blob=change.blob,
            commit=change.commit,
            time=change.time,
            action=commit_action(
                change.trailers, job=jobs.get(change.trailers.get("Gitloom-Job", ""))
            ),
            job=_job_id(change.trailers, jobs),
        )
        for change in page.changes
    ]
    next_cursor = (
        _changes_cursor(
            namespace=namespace, since=since, commit=page.commit, after=changes[-1].path
        )
        if page.more and changes
        else None
    )
    return ChangesPage(since=since, commit=page.commit, changes=changes, next_cursor=next_cursor)


@dataclass
class JobQueueState:
    queued: int
    running: int
    oldest_queued_seconds: float  # 0 when nothing waits


def job_queue_state() -> JobQueueState:
    """Jobs waiting and running across every account, and how long the oldest has
    waited: what an operator's dashboard shows (``/metrics``). One statement on the
    ``(status, created)`` index; done and failed jobs, which only grow, are counted as
    they end instead (``gitloom_jobs_finished_total``)."""
    from django.db.models import Count, Min, Q
    from django.utils import timezone

    row = Job.objects.filter(status__in=(Job.Status.QUEUED, Job.Status.RUNNING)).aggregate(
        queued=Count("seq", filter=Q(status=Job.Status.QUEUED)),
        running=Count("seq", filter=Q(status=Job.Status.RUNNING)),
        oldest=Min("created", filter=Q(status=Job.Status.QUEUED)),
    )
    oldest = row["oldest"]
    return JobQueueState(
        queued=row["queued"],
        running=row["running"],
        oldest_queued_seconds=max(0.0, (timezone.now() - oldest).total_seconds())
        if oldest
        else 0.0,
    )
