"""What the API returns, as typed, immutable dataclasses.

Each class has a ``from_dict`` that reads the API's JSON. Fields the client does not
know are ignored, so a newer service with more fields does not break an older client.
Timestamps are timezone-aware ``datetime`` objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


def _time(value: Any) -> datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value
    text = str(value)
    if text.endswith("Z"):  # fromisoformat reads "Z" only from Python 3.11 on
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text)


def _strings(value: Any) -> list[str]:
    return [str(item) for item in value or []]


@dataclass(frozen=True)
class Credential:
    """How the caller authenticated: ``type`` is ``api_key`` or ``session``."""

    type: str
    name: str | None = None
    prefix: str | None = None
    username: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Credential:
        return cls(
            type=data["type"],
            name=data.get("name"),
            prefix=data.get("prefix"),
            username=data.get("username"),
        )


@dataclass(frozen=True)
class WhoAmI:
    account: str
    credential: Credential

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WhoAmI:
        return cls(account=data["account"], credential=Credential.from_dict(data["credential"]))


@dataclass(frozen=True)
class Namespace:
    name: str
    created: datetime | None = None
    head_commit: str = ""
    last_write: datetime | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Namespace:
        return cls(
            name=data["name"],
            created=_time(data.get("created")),
            head_commit=data.get("head_commit") or "",
            last_write=_time(data.get("last_write")),
        )


@dataclass(frozen=True)
class Message:
    """One message of a transcript posted to ``memories.add``."""

    role: str  # user, assistant, system or tool
    content: str
    id: str | None = None
    name: str | None = None
    timestamp: datetime | str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.id is not None:
            data["id"] = self.id
        if self.name is not None:
            data["name"] = self.name
        if self.timestamp is not None:
            stamp = self.timestamp
            data["timestamp"] = stamp.isoformat() if isinstance(stamp, datetime) else stamp
        return data


@dataclass(frozen=True)
class JobError:
    code: str
    message: str


@dataclass(frozen=True)
class JobResult:
    """The memory paths a finished job created, rewrote and linked."""

    created: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    linked: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    calls: int = 0


JOB_STATUSES = ("queued", "running", "done", "failed")


@dataclass(frozen=True)
class Job:
    """A write: ``status`` is ``queued``, ``running``, ``done`` or ``failed``."""

    id: str
    namespace: str
    status: str
    session_id: str | None = None  # None: no session (the API says null)
    attempts: int = 0
    created: datetime | None = None
    started: datetime | None = None
    finished: datetime | None = None
    extractor: str = ""
    prompt_version: str = ""
    commit: str = ""
    result: JobResult = field(default_factory=JobResult)
    usage: Usage = field(default_factory=Usage)
    error: JobError | None = None

    @property
    def is_finished(self) -> bool:
        return self.status in ("done", "failed")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Job:
        result = data.get("result") or {}
        usage = data.get("usage") or {}
        error = data.get("error")
        return cls(
            id=str(data["id"]),
            namespace=data.get("namespace") or "",
            status=data["status"],
            session_id=data.get("session_id") or None,
            attempts=int(data.get("attempts") or 0),
            created=_time(data.get("created")),
            started=_time(data.get("started")),
            finished=_time(data.get("finished")),
            extractor=data.get("extractor") or "",
            prompt_version=data.get("prompt_version") or "",
            commit=data.get("commit") or "",
            result=JobResult(
                created=_strings(result.get("created")),
                rewritten=_strings(result.get("rewritten")),
                linked=_strings(result.get("linked")),
            ),
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
                total_tokens=int(usage.get("total_tokens") or 0),
                calls=int(usage.get("calls") or 0),
            ),
            error=JobError(code=error["code"], message=error.get("message", "")) if error else None,
        )


@dataclass(frozen=True)
class Link:
    """A typed link from one memory to another (``related`` in the file's header)."""

    type: str
    path: str

    @classmethod
    def many(cls, items: Any) -> list[Link]:
        return [cls(type=item["type"], path=item["path"]) for item in items or []]


@dataclass(frozen=True)
class MemorySummary:
    """A memory as ``memories.list`` shows it."""

    path: str
    blob: str
    tier: str
    tags: list[str]
    cues: list[str]
    updated: datetime | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemorySummary:
        return cls(
            path=data["path"],
            blob=data.get("blob") or "",
            tier=data.get("tier") or "",
            tags=_strings(data.get("tags")),
            cues=_strings(data.get("cues")),
            updated=_time(data.get("updated")),
        )


@dataclass(frozen=True)
class JobPage:
    """One page of ``jobs.list``, newest first; pass ``next_cursor`` back for the next."""

    jobs: list[Job]
    next_cursor: str | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JobPage:
        # A service whose /v1/jobs pages with a cursor says `next_cursor`; one that does
        # not answers one page of the newest jobs.
        return cls(
            jobs=[Job.from_dict(item) for item in data.get("jobs") or []],
            next_cursor=data.get("next_cursor") or None,
        )


@dataclass(frozen=True)
class MemoryPage:
    """One page of ``memories.list``; pass ``next_cursor`` back for the next."""

    commit: str
    memories: list[MemorySummary]
    next_cursor: str | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemoryPage:
        return cls(
            commit=data.get("commit") or "",
            memories=[MemorySummary.from_dict(item) for item in data.get("memories") or []],
            next_cursor=data.get("next_cursor") or None,
        )


@dataclass(frozen=True)
class Memory:
    """One memory file: its header fields, its body and the file byte for byte."""

    path: str
    tier: str
    body: str
    cues: list[str]
    tags: list[str] = field(default_factory=list)
    created: datetime | None = None
    updated: datetime | None = None
    confidence: float | None = None
    related: list[Link] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    blob: str = ""
    commit: str = ""
    raw: str = ""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Memory:
        return cls(
            path=data["path"],
            tier=data.get("tier") or "",
            body=data.get("body") or "",
            cues=_strings(data.get("cues")),
            tags=_strings(data.get("tags")),
            created=_time(data.get("created")),
            updated=_time(data.get("updated")),
            confidence=data.get("confidence"),
            related=Link.many(data.get("related")),
            sources=_strings(data.get("sources")),
            blob=data.get("blob") or "",
            commit=data.get("commit") or "",
            raw=data.get("raw") or "",
        )


@dataclass(frozen=True)
class MemoryVersion:
    """One commit that touched a memory: ``change`` is ``add``, ``modify`` or ``delete``."""

    commit: str
    time: datetime | None
    message: str
    change: str
    diff: str
    blob: str | None = None
    trailers: dict[str, str] = field(default_factory=dict)
    said: datetime | None = None  # when it was said (the commit's author date)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemoryVersion:
        return cls(
            commit=data["commit"],
            time=_time(data.get("time")),
            said=_time(data.get("said")),
            message=data.get("message") or "",
            change=data.get("change") or "",
            diff=data.get("diff") or "",
            blob=data.get("blob"),
            trailers={str(k): str(v) for k, v in (data.get("trailers") or {}).items()},
        )


@dataclass(frozen=True)
class MemoryHistory:
    """Every version of a memory, newest first."""

    path: str
    versions: list[MemoryVersion]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemoryHistory:
        return cls(
            path=data["path"],
            versions=[MemoryVersion.from_dict(item) for item in data.get("versions") or []],
        )


@dataclass(frozen=True)
class SourceMessage:
    """A message of a job's transcript that a memory version cites in ``sources``."""

    id: str
    role: str
    content: str
    name: str | None = None
    timestamp: datetime | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SourceMessage:
        return cls(
            id=str(data["id"]),
            role=data.get("role") or "",
            content=data.get("content") or "",
            name=data.get("name"),
            timestamp=_time(data.get("timestamp")),
        )


@dataclass(frozen=True)
class BlameJob:
    """The job of this namespace that made a commit (``jobs.get(id)`` for all of it)."""

    id: str
    status: str
    session_id: str | None = None  # None: no session (the API says null)
    created: datetime | None = None


@dataclass(frozen=True)
class BlameCommit:
    """A commit that wrote lines of a memory: ``action`` is ``ingest`` (a job),
    ``forget``, ``import``, ... or ``other``; ``messages`` are the messages of its job
    that the memory's ``sources`` (as this commit left it) cite."""

    commit: str
    time: datetime | None
    message: str
    action: str
    job: BlameJob | None = None
    session_id: str | None = None
    extractor: str | None = None
    prompt_version: str | None = None
    sources: list[str] = field(default_factory=list)
    messages: list[SourceMessage] = field(default_factory=list)
    trailers: dict[str, str] = field(default_factory=dict)
    said: datetime | None = None  # when it was said (the commit's author date)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BlameCommit:
        job = data.get("job")
        return cls(
            commit=data["commit"],
            time=_time(data.get("time")),
            said=_time(data.get("said")),
            message=data.get("message") or "",
            action=data.get("action") or "",
            job=BlameJob(
                id=str(job["id"]),
                status=job.get("status") or "",
                session_id=job.get("session_id") or None,
                created=_time(job.get("created")),
            )
            if job
            else None,
            session_id=data.get("session_id"),
            extractor=data.get("extractor"),
            prompt_version=data.get("prompt_version"),
            sources=_strings(data.get("sources")),
            messages=[SourceMessage.from_dict(item) for item in data.get("messages") or []],
            trailers={str(k): str(v) for k, v in (data.get("trailers") or {}).items()},
        )


@dataclass(frozen=True)
class BlameHunk:
    """Consecutive lines (``start`` from 1) last changed by the same ``commit``."""

    start: int
    lines: list[str]
    commit: str


@dataclass(frozen=True)
class MemoryBlame:
    """Where each line of a memory came from: ``hunks`` in file order, ``commits`` each
    once, newest first. ``line(n)`` gives line ``n`` with its commit."""

    path: str
    commit: str
    blob: str
    hunks: list[BlameHunk]
    commits: list[BlameCommit]

    def commit_of(self, hunk: BlameHunk) -> BlameCommit:
        return next(entry for entry in self.commits if entry.commit == hunk.commit)

    def line(self, number: int) -> tuple[str, BlameCommit]:
        """Line ``number`` (from 1) and the commit that last changed it."""
        for hunk in self.hunks:
            if hunk.start <= number < hunk.start + len(hunk.lines):
                return hunk.lines[number - hunk.start], self.commit_of(hunk)
        raise IndexError(f"{self.path} has no line {number}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemoryBlame:
        return cls(
            path=data["path"],
            commit=data.get("commit") or "",
            blob=data.get("blob") or "",
            hunks=[
                BlameHunk(
                    start=int(item["start"]),
                    lines=_strings(item.get("lines")),
                    commit=item["commit"],
                )
                for item in data.get("hunks") or []
            ],
            commits=[BlameCommit.from_dict(item) for item in data.get("commits") or []],
        )


@dataclass(frozen=True)
class ChangedMemory:
    """A memory that changed: ``change`` is ``add``, ``modify`` or ``delete`` (``blob``
    None); ``commit``, ``action`` and ``job`` say what last touched it."""

    path: str
    change: str
    commit: str
    blob: str | None = None
    time: datetime | None = None
    action: str = ""
    job: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChangedMemory:
        return cls(
            path=data["path"],
            change=data.get("change") or "",
            commit=data.get("commit") or "",
            blob=data.get("blob"),
            time=_time(data.get("time")),
            action=data.get("action") or "",
            job=str(data["job"]) if data.get("job") else None,
        )


@dataclass(frozen=True)
class ChangesPage:
    """One page of ``namespaces.changes``; pass ``next_cursor`` back for the next."""

    since: str | None
    commit: str
    changes: list[ChangedMemory]
    next_cursor: str | None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ChangesPage:
        return cls(
            since=data.get("since"),
            commit=data.get("commit") or "",
            changes=[ChangedMemory.from_dict(item) for item in data.get("changes") or []],
            next_cursor=data.get("next_cursor") or None,
        )


@dataclass(frozen=True)
class Changes:
    """Every change from ``since`` (None: the empty namespace) to ``commit``: apply them
    to a copy, then keep ``commit`` and ask ``since=commit`` next time."""

    since: str | None
    commit: str
    changes: list[ChangedMemory]


@dataclass(frozen=True)
class Forgotten:
    """What ``memories.delete`` did: the commit that removed the file, and the other
    memories it rewrote to drop their links to it (``unlinked``)."""

    path: str
    deleted: bool
    commit: str
    unlinked: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Forgotten:
        return cls(
            path=data["path"],
            deleted=bool(data.get("deleted")),
            commit=data.get("commit") or "",
            unlinked=_strings(data.get("unlinked")),
        )


@dataclass(frozen=True)
class LaterCommit:
    """A commit after a reverted job's that changed one of its files."""

    commit: str
    time: datetime | None = None
    message: str = ""
    action: str = ""  # ingest (a job), forget, import, revert, or other
    job: str | None = None  # the job that made it, if a job did

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LaterCommit:
        return cls(
            commit=data["commit"],
            time=_time(data.get("time")),
            message=data.get("message") or "",
            action=data.get("action") or "",
            job=data.get("job"),
        )


@dataclass(frozen=True)
class RevertConflictFile:
    """A file a reverted job wrote that later commits changed (``now`` ``changed``) or
    removed (``removed``): the revert leaves it alone. ``change`` is what the job did."""

    path: str
    change: str
    now: str
    commits: list[LaterCommit] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RevertConflictFile:
        return cls(
            path=data["path"],
            change=data.get("change") or "",
            now=data.get("now") or "",
            commits=[LaterCommit.from_dict(item) for item in data.get("commits") or []],
        )


@dataclass(frozen=True)
class Revert:
    """What ``jobs.revert`` did: one commit that undoes the job's. ``already_reverted``:
    the job had been reverted before, ``commit`` is that revert and nothing was written."""

    job: str
    namespace: str
    commit: str
    reverted_commit: str
    already_reverted: bool = False
    removed: list[str] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    unlinked: list[str] = field(default_factory=list)
    skipped: list[RevertConflictFile] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Revert:
        return cls(
            job=str(data["job"]),
            namespace=data.get("namespace") or "",
            commit=data["commit"],
            reverted_commit=data.get("reverted_commit") or "",
            already_reverted=bool(data.get("already_reverted")),
            removed=_strings(data.get("removed")),
            restored=_strings(data.get("restored")),
            unlinked=_strings(data.get("unlinked")),
            skipped=[RevertConflictFile.from_dict(item) for item in data.get("skipped") or []],
        )


@dataclass(frozen=True)
class Purge:
    """What a purge did (``memories.purge``, ``namespaces.purge``): the record of it,
    never the content. ``id`` is ``None`` (and ``versions`` 0) when nothing matched."""

    id: str | None
    kind: str
    credential: str
    paths: list[str]
    versions: int
    previous_commit: str
    commit: str
    commits_replaced: int
    objects_deleted: int
    created: datetime | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Purge:
        return cls(
            id=data.get("id"),
            kind=data.get("kind") or "",
            credential=data.get("credential") or "",
            paths=_strings(data.get("paths")),
            versions=int(data.get("versions") or 0),
            previous_commit=data.get("previous_commit") or "",
            commit=data.get("commit") or "",
            commits_replaced=int(data.get("commits_replaced") or 0),
            objects_deleted=int(data.get("objects_deleted") or 0),
            created=_time(data.get("created")),
        )


@dataclass(frozen=True)
class ImportResult:
    """What an import changed; ``commit`` is empty when nothing did."""

    commit: str
    created: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ImportResult:
        return cls(
            commit=data.get("commit") or "",
            created=_strings(data.get("created")),
            modified=_strings(data.get("modified")),
            deleted=_strings(data.get("deleted")),
        )


@dataclass(frozen=True)
class LexicalMatch:
    """The BM25 arm found the memory: its rank in that arm and its BM25 score."""

    rank: int
    score: float


@dataclass(frozen=True)
class SemanticMatch:
    """The vector arm found the memory through ``cue``, at cosine ``similarity``."""

    rank: int
    cue: str
    similarity: float


@dataclass(frozen=True)
class GraphVia:
    """The link a graph hit was reached by: from the memory at ``source``."""

    source: str
    type: str
    direction: str


@dataclass(frozen=True)
class GraphMatch:
    """The graph arm reached the memory one hop along a ``related`` link."""

    rank: int
    via: GraphVia | None = None


@dataclass(frozen=True)
class Arms:
    """Which arms found a result, and how; an arm that did not is ``None``."""

    lexical: LexicalMatch | None = None
    semantic: SemanticMatch | None = None
    graph: GraphMatch | None = None

    @property
    def names(self) -> list[str]:
        return [name for name in ("lexical", "semantic", "graph") if getattr(self, name)]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Arms:
        data = data or {}
        lexical = data.get("lexical")
        semantic = data.get("semantic")
        graph = data.get("graph")
        via = (graph or {}).get("via")
        return cls(
            lexical=LexicalMatch(rank=int(lexical["rank"]), score=float(lexical.get("score") or 0))
            if lexical
            else None,
            semantic=SemanticMatch(
                rank=int(semantic["rank"]),
                cue=semantic.get("cue") or "",
                similarity=float(semantic.get("similarity") or 0),
            )
            if semantic
            else None,
            graph=GraphMatch(
                rank=int(graph["rank"]),
                via=GraphVia(
                    source=via.get("from") or "",
                    type=via.get("type") or "",
                    direction=via.get("direction") or "",
                )
                if via
                else None,
            )
            if graph
            else None,
        )


@dataclass(frozen=True)
class RetrievalResult:
    """One memory that bears on the query. ``score`` orders results within one response
    and means nothing across responses."""

    path: str
    score: float
    content: str
    tier: str
    arms: Arms = field(default_factory=Arms)
    tags: list[str] = field(default_factory=list)
    cues: list[str] = field(default_factory=list)
    created: datetime | None = None
    updated: datetime | None = None
    confidence: float | None = None
    sources: list[str] = field(default_factory=list)
    related: list[Link] = field(default_factory=list)
    # Only the graph arm brought it: a neighbour of a hit, not a match of the query.
    graph_only: bool = False

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RetrievalResult:
        return cls(
            path=data["path"],
            score=float(data.get("score") or 0),
            content=data.get("content") or "",
            tier=data.get("tier") or "",
            arms=Arms.from_dict(data.get("arms")),
            tags=_strings(data.get("tags")),
            cues=_strings(data.get("cues")),
            created=_time(data.get("created")),
            updated=_time(data.get("updated")),
            confidence=data.get("confidence"),
            sources=_strings(data.get("sources")),
            related=Link.many(data.get("related")),
            graph_only=bool(data.get("graph_only")),
        )


@dataclass(frozen=True)
class AsOf:
    """The past commit a ``retrieve(..., as_of=...)`` read: when it was made (``time``),
    when what it records was said (``said``), and which of the two ``by`` chose it."""

    commit: str
    time: datetime | None = None
    said: datetime | None = None
    by: str = "stored"

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> AsOf | None:
        if not data:
            return None
        return cls(
            commit=data["commit"],
            time=_time(data.get("time")),
            said=_time(data.get("said")),
            by=data.get("by") or "stored",
        )


@dataclass(frozen=True)
class Retrieval:
    """The answer of ``retrieve``: evidence for a model to read, best first.

    ``commit`` is the namespace's head and ``indexed_commit`` the commit the results
    reflect; they differ while the index is behind a write. With ``as_of``, both are
    the past commit read, which ``as_of`` names with its time.
    """

    tenant: str
    namespace: str
    results: list[RetrievalResult]
    commit: str | None = None
    indexed_commit: str | None = None
    took_ms: float = 0.0
    as_of: AsOf | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Retrieval:
        return cls(
            tenant=data["tenant"],
            namespace=data["namespace"],
            results=[RetrievalResult.from_dict(item) for item in data.get("results") or []],
            commit=data.get("commit"),
            indexed_commit=data.get("indexed_commit"),
            took_ms=float(data.get("took_ms") or 0),
            as_of=AsOf.from_dict(data.get("as_of")),
        )
