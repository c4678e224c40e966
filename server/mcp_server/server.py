"""The MCP tools: each is one call (or a short sequence) of the ``/v1`` API.

Every tool acts for the account of the API key of the request it serves (stdio: the
server's configured key; Streamable HTTP: that request's bearer key), so one account
never sees another's data: the API scopes everything by key. An API error becomes a
tool error whose text starts with the API's error code (``namespace_not_found: ...``).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import httpx
from gitloom_client import (
    AsyncGitLoom,
    ConflictError,
    GitLoomError,
    JobFailedError,
    JobTimeoutError,
    models,
)
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gitloom.core.errors import REGISTRY
from gitloom.core.throttle import forwarded_client_header, peer_address
from memories.conversation_text import conversation_messages

DEFAULT_NAMESPACE = "default"
API_TIMEOUT = 30.0

INSTRUCTIONS = """\
GitLoom is long-term memory for the user you are talking to. Memories are small
markdown files, one fact each, in a namespace (one per end user; `default` unless you
are told otherwise).
- Before answering anything that may depend on what the user said in earlier
  conversations, call `search` with a question-like query and read the results as
  evidence (not as an answer).
- After a conversation (or a turn) that contains facts, preferences or events worth
  keeping, call `remember` with its messages. It returns a job at once; pass
  `wait: true` to return only once the memories are written and searchable.
- A namespace must exist before it is used: `list_namespaces` shows them and
  `create_namespace` makes one.
- `forget` removes a memory (its history keeps the old versions); `revert_job` undoes
  everything one `remember` job wrote (e.g. a conversation stored by mistake).
- `memory_blame` says where each line of a memory came from: the job, and the messages
  of the conversation it was drawn from (to answer "why do you think that?")."""

Tier = Literal["facts", "preferences", "events", "working"]
NamespaceArg = Annotated[
    str,
    Field(
        description="The namespace (one memory, usually one per end user). "
        "It must exist: see list_namespaces and create_namespace."
    ),
]
MemoryPath = Annotated[
    str,
    Field(
        description="A memory's path, as search and list_memories give it, e.g. "
        "facts/camera-gear/sony-a7iii-purchase-1c9e04aa.md"
    ),
]


class MessageIn(BaseModel):
    """One message of a conversation."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant", "system", "tool"]
    content: str = Field(min_length=1)
    id: str | None = Field(None, description="Your id for the message; memories cite it")
    name: str | None = Field(None, description="Who spoke, e.g. the user's name")
    timestamp: str | None = Field(
        None, description="When it was said, ISO 8601 (no zone means UTC)"
    )


class CompactHit(BaseModel):
    """One search result with what an agent reasons with; ``detail="full"`` gives cues,
    arm ranks, sources and the other header fields too."""

    path: str
    content: str
    score: float
    tier: str
    tags: list[str]
    updated: str | None = Field(None, description="when the memory was last written (UTC)")
    found_by: list[str] = Field(description="the arms that found it: lexical, semantic, graph")
    graph_only: bool = Field(
        False, description="true: only linked to a hit, it did not itself match the query"
    )
    related: list[str] = Field(default_factory=list, description="'type: path' of its links")


class FullHit(BaseModel):
    """One search result as the API gives it: every header field and each arm's rank,
    score and matching cue."""

    path: str
    content: str
    score: float
    tier: str
    tags: list[str]
    cues: list[str]
    created: str | None
    updated: str | None
    confidence: float | None
    sources: list[str]
    related: list[dict[str, str]]
    graph_only: bool
    arms: dict[str, Any]


class SearchAnswer(BaseModel):
    tenant: str
    namespace: str
    commit: str | None
    as_of: dict[str, str] | None = Field(
        None, description="the past commit read (commit, time, said, by); null for now"
    )
    results: list[FullHit | CompactHit]
    # With detail="full" only (null otherwise):
    indexed_commit: str | None = None
    took_ms: float | None = None


def _when(value) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value else None


def search_answer(found: models.Retrieval, *, full: bool) -> SearchAnswer:
    """The tool's answer: compact results, or with ``full`` the API's whole result."""
    as_of = None
    if found.as_of:
        as_of = {
            "commit": found.as_of.commit,
            "time": _when(found.as_of.time) or "",
            "said": _when(found.as_of.said) or "",
            "by": found.as_of.by,
        }
    results: list[FullHit | CompactHit] = []
    for hit in found.results:
        if full:
            results.append(
                FullHit(
                    path=hit.path,
                    content=hit.content,
                    score=hit.score,
                    tier=hit.tier,
                    tags=hit.tags,
                    cues=hit.cues,
                    created=_when(hit.created),
                    updated=_when(hit.updated),
                    confidence=hit.confidence,
                    sources=hit.sources,
                    related=[{"type": link.type, "path": link.path} for link in hit.related],
                    graph_only=hit.graph_only,
                    arms=dataclasses.asdict(hit.arms),
                )
            )
            continue
        results.append(
            CompactHit(
                path=hit.path,
                content=hit.content,
                score=round(hit.score, 4),
                tier=hit.tier,
                tags=hit.tags,
                updated=_when(hit.updated),
                found_by=hit.arms.names,
                graph_only=hit.graph_only,
                related=[f"{link.type}: {link.path}" for link in hit.related],
            )
        )
    return SearchAnswer(
        tenant=found.tenant,
        namespace=found.namespace,
        commit=found.commit,
        as_of=as_of,
        results=results,
        indexed_commit=found.indexed_commit if full else None,
        took_ms=found.took_ms if full else None,
    )


@dataclass(frozen=True)
class NamespaceList:
    namespaces: list[models.Namespace]


@contextlib.contextmanager
def api_errors() -> Iterator[None]:
    """An API error as a tool error that names its code first."""
    try:
        yield
    except JobFailedError as exc:
        reason = exc.job.error.message if exc.job.error else "no reason given"
        raise ToolError(
            f"{exc.code}: job {exc.job.id} failed ({reason}); nothing of it was written."
        ) from exc
    except GitLoomError as exc:
        hint = _HINTS.get(exc.code, "")
        raise ToolError(f"{exc.code}: {tool_message(exc)}{hint}") from exc


def tool_message(exc: GitLoomError) -> str:
    """The API's message without the fix it names in HTTP terms: the tools name theirs."""
    declared = REGISTRY.get(exc.code)
    fix = declared.fix if declared is not None else ""
    return exc.message.removesuffix(f" {fix}") if fix else exc.message


def argument_errors(exc: ValidationError) -> str:
    """Which argument, what it takes and what came: pydantic's messages without its
    links to its own documentation, which mean nothing to an agent's user."""
    parts = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        got = error.get("input")
        shown = "" if isinstance(got, dict) else f" (got {got!r:.80})"
        parts.append(f"{where}: {error['msg']}{shown}")
    return "; ".join(parts)


_HINTS = {
    "namespace_not_found": " Create it with create_namespace, or see list_namespaces.",
    "memory_not_found": " See list_memories or search for the paths that exist.",
    "commit_not_in_history": " Call changes_since without `since` for a full listing.",
    "commit_purged": " Call changes_since without `since` for a full listing.",
    "not_authenticated": " Over stdio the key is GITLOOM_API_KEY.",
    "authentication_failed": " Over stdio the key is GITLOOM_API_KEY; keys are made and "
    "revoked in the dashboard.",
}


class CodeFirstServer(MCPServer):
    """An MCP server whose tool errors start with their code, as the README promises:
    the SDK writes ``Error executing tool <name>: `` before every ``ToolError``; an
    argument the schema refuses is ``invalid: ...``. A crash stays the SDK's own."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            text = str(exc).removeprefix(f"Error executing tool {name}: ")
            if isinstance(exc.__cause__, ValidationError):
                text = f"invalid: {argument_errors(exc.__cause__)}"
            raise ToolError(text) from exc.__cause__


def revert_conflict_text(exc: ConflictError) -> str:
    """A revert refused because later writes changed the job's files, in words an agent
    can act on: each file, what changed it, and what to do."""
    lines = [f"{exc.code}: {exc.message}"]
    for conflict in exc.details.get("conflicts") or []:
        by = ", ".join(
            f"{c['commit'][:10]} ({'job ' + c['job'] if c.get('job') else c.get('action')})"
            for c in conflict.get("commits") or []
        )
        lines.append(f"- {conflict['path']}: {conflict['now']} since, by {by}")
    return "\n".join(lines)  # the message already ends with what to do (force included)


class Backend:
    """Where the tools send their API calls: one shared HTTP connection pool, and the
    API key of the request being served."""

    def __init__(self, *, api_url: str, api_key: str | None = None):
        self.api_url = api_url
        self.api_key = api_key
        self._http: httpx.AsyncClient | None = None

    @property
    def http(self) -> httpx.AsyncClient:
        if self._http is None:
            self._http = _CookielessClient(timeout=API_TIMEOUT)
        return self._http

    def client(self, ctx: Context | None) -> AsyncGitLoom:
        key = self.api_key
        request = ctx.request_context.request if ctx is not None else None
        address = None
        if request is not None:  # Streamable HTTP: this request's own key, never another's
            key = bearer_key(request.headers.get("authorization"))
            address = client_address(request.scope, request.headers)
        if not key:
            raise ToolError(
                "not_authenticated: no GitLoom API key (stdio: set GITLOOM_API_KEY; HTTP: "
                "send `Authorization: Bearer <key>`)."
            )
        return self.client_for(key, client=address)

    def client_for(self, key: str, *, client: str | None = None, **options) -> AsyncGitLoom:
        """A client of the API with ``key``, naming ``client`` (the address of the caller
        served over HTTP) to the API's throttle."""
        headers = forwarded_client_header(client) if client else None
        return AsyncGitLoom(
            self.api_url, api_key=key, http_client=self.http, headers=headers, **options
        )

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None


class _NoCookies(httpx.Cookies):
    """An empty jar that keeps nothing a response sets."""

    def extract_cookies(self, response: httpx.Response) -> None:
        pass


class _CookielessClient(httpx.AsyncClient):
    """The pool every caller's requests share keeps no cookies: one caller's must never
    ride on another's request. (The API sets none for a key; reading each response's
    headers for them was ~9 % of httpx's CPU per search, in a py-spy profile.)"""

    @property
    def cookies(self) -> httpx.Cookies:
        return _NO_COOKIES


_NO_COOKIES = _NoCookies()


def client_address(scope: dict, headers) -> str:
    """The HTTP caller's address by the API's own rules (``GITLOOM_TRUSTED_PROXIES``)."""
    peer = (scope.get("client") or ("unknown",))[0]
    return peer_address(peer, forwarded_for=headers.get("x-forwarded-for") or "")


def bearer_key(header: str | None) -> str | None:
    scheme, _, key = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return key.strip() or None


def _read_only() -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )


def build_server(*, api_url: str, api_key: str | None = None) -> tuple[MCPServer, Backend]:
    """The MCP server whose tools call the GitLoom API at ``api_url``; ``api_key`` is the
    key of the stdio transport (HTTP requests bring their own)."""
    backend = Backend(api_url=api_url, api_key=api_key)

    @contextlib.asynccontextmanager
    async def lifespan(server: MCPServer) -> AsyncIterator[dict[str, Any]]:
        # The connection pool now, not in the first tool call: its imports (httpcore)
        # and TLS context were most of that call's time in a profile.
        backend.http  # noqa: B018
        try:
            yield {}
        finally:
            await backend.aclose()

    mcp = CodeFirstServer(
        "gitloom",
        title="GitLoom memory",
        instructions=INSTRUCTIONS,
        version="1",
        lifespan=lifespan,
    )

    @mcp.tool(title="Who am I", annotations=_read_only())
    async def whoami(ctx: Context) -> models.WhoAmI:
        """The GitLoom account these tools act for, and the API key in use."""
        with api_errors():
            return await backend.client(ctx).whoami()

    @mcp.tool(title="List namespaces", annotations=_read_only())
    async def list_namespaces(ctx: Context) -> NamespaceList:
        """The account's namespaces. A namespace is one memory, usually one per end user."""
        with api_errors():
            return NamespaceList(await backend.client(ctx).namespaces.list())

    @mcp.tool(
        title="Create a namespace",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    async def create_namespace(
        ctx: Context,
        name: Annotated[
            str, Field(description="1-64 characters of a-z, 0-9 and '-', e.g. user-8213")
        ] = DEFAULT_NAMESPACE,
    ) -> models.Namespace:
        """Create a namespace, or return it if it exists already. Namespaces are never
        created implicitly: `remember` and `search` need one that exists."""
        with api_errors():
            return await backend.client(ctx).namespaces.create(name, exist_ok=True)

    @mcp.tool(
        title="Remember a conversation",
        annotations=ToolAnnotations(
            read_only_hint=False,
            # Additive: new memories, or a memory rewritten to the current truth whose
            # earlier version stays in its git history. Nothing is lost.
            destructive_hint=False,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    async def remember(
        ctx: Context,
        messages: Annotated[
            list[MessageIn] | None,
            Field(description="The conversation as messages, oldest first. Or use conversation."),
        ] = None,
        conversation: Annotated[
            str | None,
            Field(
                description="The conversation as text instead of messages: lines starting "
                "'user:' or 'assistant:' (also system:, tool:) begin a message; text with no "
                "such line is one user message."
            ),
        ] = None,
        namespace: NamespaceArg = DEFAULT_NAMESPACE,
        session_id: Annotated[
            str | None, Field(description="Your id for the conversation, kept with the job")
        ] = None,
        wait: Annotated[
            bool,
            Field(description="Return only once the job has ended and its memories are searchable"),
        ] = False,
        timeout: Annotated[
            float, Field(ge=1, le=600, description="Seconds to wait at most, with wait")
        ] = 60,
    ) -> models.Job:
        """Store what a conversation says as memories. GitLoom extracts the facts worth
        keeping, writes one small memory per fact (or updates the memory a new fact
        changes) and indexes them for search. Returns the job at once (status queued); with
        wait, returns it done, or still queued/running if the wait ran out (it will still
        run: check it with job_status). The write is accepted once this returns."""
        if (messages is None) == (conversation is None):
            raise ToolError("invalid: give either messages or conversation (one of them).")
        if messages is not None:
            payload: list[dict[str, Any]] = [m.model_dump(exclude_none=True) for m in messages]
        else:
            payload = conversation_messages(conversation or "")
        if not payload:
            raise ToolError("invalid_transcript: the conversation has no messages.")
        client = backend.client(ctx)
        with api_errors():
            job = await client.memories.add(payload, namespace=namespace, session_id=session_id)
            if not wait:
                return job
            try:
                return await client.jobs.wait(job, timeout=timeout)
            except JobTimeoutError as exc:
                return exc.job  # accepted and still pending: the caller keeps the id

    @mcp.tool(title="Search memory", annotations=_read_only())
    async def search(
        ctx: Context,
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=1000,
                description="What you want to know, best as a question: 'what camera do I own'",
            ),
        ],
        namespace: NamespaceArg = DEFAULT_NAMESPACE,
        limit: Annotated[int, Field(ge=1, le=100, description="How many results at most")] = 10,
        tier: Annotated[
            list[Tier] | None, Field(description="Only memories of any of these tiers")
        ] = None,
        tag: Annotated[
            list[str] | None, Field(description="Only memories that carry all these tags")
        ] = None,
        min_similarity: Annotated[
            float | None,
            Field(
                ge=-1,
                le=1,
                description="Drop meaning matches whose cue is less similar than this "
                "(cosine; e.g. 0.35), so an unrelated question can come back empty. It "
                "filters the meaning arm only: a memory whose words match the query (a "
                "name, a number) is still returned by the exact-words arm, however far "
                "its meaning, so it does not empty the results when a word matches",
            ),
        ] = None,
        as_of: Annotated[
            str | None,
            Field(
                max_length=100,
                description="Search the memory as it was at a past commit: a commit id "
                "(7-40 hex digits, e.g. from memory_history) or an ISO-8601 time such as "
                "2026-07-31T09:12:00Z (the last commit made by then). Default: now",
            ),
        ] = None,
        as_of_by: Annotated[
            Literal["stored", "said"],
            Field(
                description="What a time in as_of means: 'stored' (when a commit was made) "
                "or 'said' (when its conversation was said, from the messages' timestamps), "
                "to search a backfilled history as the assistant knew it then",
            ),
        ] = "stored",
        detail: Annotated[
            Literal["compact", "full"],
            Field(
                description="'compact' (default): path, content, score, tier, tags, "
                "updated, which arms found it and its links. 'full': every header field, "
                "cues, and each arm's rank, score and matching cue",
            ),
        ] = "compact",
    ) -> SearchAnswer:
        """Find the memories that best answer a query: exact words (BM25), meaning (cue
        vectors) and one hop along links between memories, fused. Results are evidence,
        best first; `score` only orders them within this answer. Compact by default;
        `detail="full"` for cues, arm ranks and every header field. With `as_of`, what
        the memory held then (as_of in the answer names the commit read)."""
        with api_errors():
            found = await backend.client(ctx).retrieve(
                query,
                namespace=namespace,
                limit=limit,
                tier=tier,
                tag=tag,
                min_similarity=min_similarity,
                as_of=as_of,
                as_of_by=as_of_by if as_of is not None else None,
            )
        return search_answer(found, full=detail == "full")

    @mcp.tool(title="List memories", annotations=_read_only())
    async def list_memories(
        ctx: Context,
        namespace: NamespaceArg = DEFAULT_NAMESPACE,
        tier: Annotated[Tier | None, Field(description="Only this tier")] = None,
        tag: Annotated[str | None, Field(description="Only memories with this tag")] = None,
        cursor: Annotated[
            str | None, Field(description="next_cursor of the previous page, for the next one")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=200, description="Memories per page")] = 50,
    ) -> models.MemoryPage:
        """A page of the namespace's memories in path order (path, tier, tags, cues).
        When next_cursor is set there are more: pass it back as cursor."""
        with api_errors():
            return await backend.client(ctx).memories.page(
                namespace=namespace, tier=tier, tag=tag, cursor=cursor, limit=limit
            )

    @mcp.tool(title="Read a memory", annotations=_read_only())
    async def read_memory(
        ctx: Context, path: MemoryPath, namespace: NamespaceArg = DEFAULT_NAMESPACE
    ) -> models.Memory:
        """One memory: its text (body), header fields (tier, tags, cues, links, sources,
        dates) and the markdown file as stored (raw)."""
        with api_errors():
            return await backend.client(ctx).memories.get(path, namespace=namespace)

    @mcp.tool(title="Memory history", annotations=_read_only())
    async def memory_history(
        ctx: Context, path: MemoryPath, namespace: NamespaceArg = DEFAULT_NAMESPACE
    ) -> models.MemoryHistory:
        """Every version of a memory, newest first: the commit, when, why (message and
        trailers naming the job) and the diff. A forgotten memory still has its history."""
        with api_errors():
            return await backend.client(ctx).memories.history(path, namespace=namespace)

    @mcp.tool(title="Where a memory's lines came from", annotations=_read_only())
    async def memory_blame(
        ctx: Context, path: MemoryPath, namespace: NamespaceArg = DEFAULT_NAMESPACE
    ) -> models.MemoryBlame:
        """Why a memory says what it says: each line (hunks of consecutive lines) with the
        commit that last changed it, and per commit the job that wrote it, its session,
        extractor and prompt version, the memory's sources at that commit and the
        conversation messages they cite. Use it to show the user where a remembered fact
        came from."""
        with api_errors():
            return await backend.client(ctx).memories.blame(path, namespace=namespace)

    @mcp.tool(title="Changes since a commit", annotations=_read_only())
    async def changes_since(
        ctx: Context,
        namespace: NamespaceArg = DEFAULT_NAMESPACE,
        since: Annotated[
            str | None,
            Field(
                description="A commit id (40 hex digits) from an earlier answer's `commit`; "
                "omitted: every memory, as added"
            ),
        ] = None,
        cursor: Annotated[
            str | None, Field(description="next_cursor of the previous page, for the next one")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="Changes per page")] = 200,
    ) -> models.ChangesPage:
        """The memories added, modified and deleted since commit `since`, each with the
        commit and job that last touched it, and `commit`, the head they lead to: keep it
        and pass it as `since` next time to learn only what changed since. When
        next_cursor is set there are more: pass it back as cursor with the same since.
        commit_not_in_history (or commit_purged) means `since` is unknown here: list again
        without it."""
        with api_errors():
            return await backend.client(ctx).namespaces.changes_page(
                namespace, since=since, cursor=cursor, limit=limit
            )

    @mcp.tool(
        title="Forget a memory",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=True,
            # Forgetting twice changes nothing more (the second says memory_not_found).
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    async def forget(
        ctx: Context, path: MemoryPath, namespace: NamespaceArg = DEFAULT_NAMESPACE
    ) -> models.Forgotten:
        """Forget a memory: a commit removes its file, so search no longer finds it. Its
        earlier versions stay in memory_history."""
        with api_errors():
            return await backend.client(ctx).memories.delete(path, namespace=namespace)

    @mcp.tool(
        title="Revert a job",
        annotations=ToolAnnotations(
            read_only_hint=False,
            # It removes the memories the job created (their history keeps them).
            destructive_hint=True,
            # Reverting twice answers the first revert and writes nothing.
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    async def revert_job(
        ctx: Context,
        job_id: Annotated[str, Field(description="The job's id, as remember returned it")],
        force: Annotated[
            bool,
            Field(
                description="If some files the job wrote were changed since, revert the "
                "others and leave those as they are (they are listed in skipped)"
            ),
        ] = False,
        namespace: Annotated[
            str | None,
            Field(description="If given, the job must belong to this namespace"),
        ] = None,
    ) -> models.Revert:
        """Undo everything one remember job wrote, as one new commit: the memories it
        created are removed (links to them dropped), the ones it rewrote get their
        earlier content back; search stops finding what it added. If a later write
        changed one of those memories, nothing is reverted and the error names them
        and the jobs in the way (revert those first, newest first, or pass force).
        Reverting an already reverted job returns the same revert."""
        with api_errors():
            try:
                return await backend.client(ctx).jobs.revert(
                    job_id, force=force, namespace=namespace
                )
            except ConflictError as exc:
                if exc.code != "revert_conflict" or not isinstance(exc.details, dict):
                    raise
                raise ToolError(revert_conflict_text(exc)) from exc

    @mcp.tool(title="Job status", annotations=_read_only())
    async def job_status(
        ctx: Context,
        job_id: Annotated[str, Field(description="The job's id, as remember returned it")],
        wait: Annotated[bool, Field(description="Return only once the job has ended")] = False,
        timeout: Annotated[
            float, Field(ge=1, le=600, description="Seconds to wait at most, with wait")
        ] = 60,
    ) -> models.Job:
        """A remember job's status (queued, running, done or failed) and outcome: the
        memories it created and rewrote, or its error."""
        client = backend.client(ctx)
        with api_errors():
            job = await client.jobs.get(job_id)
            if not wait:
                return job
            try:
                return await client.jobs.wait(job, timeout=timeout)
            except (JobTimeoutError, JobFailedError) as exc:
                return exc.job

    return mcp, backend
