"""The asynchronous client: ``AsyncGitLoom`` is ``GitLoom`` with ``await`` (and
``async for`` over lists). Keep it line for line alike with ``_sync.py``."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterable, Mapping
from datetime import datetime
from typing import IO, Any, TypeVar

import anyio
import httpx

from gitloom_client import _core, models
from gitloom_client._core import Filter, Messages
from gitloom_client.errors import (
    APIConnectionError,
    ConflictError,
    JobFailedError,
    JobTimeoutError,
    ServiceUnavailableError,
)

T = TypeVar("T")


class AsyncGitLoom:
    """A client of one GitLoom service, acting for the account of ``api_key``.

    ``namespace`` is the namespace calls use when they name none (unset: the service's
    ``default``). ``max_retries`` is how many times a read, or a write that is safe to
    repeat, is sent again after a connection failure, a 429 or a 503. Pass
    ``http_client`` to share an ``httpx.AsyncClient`` (its pool, proxies, transport).

    >>> gl = AsyncGitLoom("http://127.0.0.1:8000", api_key="glk_...")
    >>> await gl.memories.add("I bought a Sony A7III in Bengaluru.", wait=True)
    >>> (await gl.retrieve("what camera do I own")).results[0].content
    """

    def __init__(
        self,
        base_url: str = _core.DEFAULT_BASE_URL,
        api_key: str | None = None,
        *,
        namespace: str | None = None,
        timeout: float = _core.DEFAULT_TIMEOUT,
        max_retries: int = _core.DEFAULT_MAX_RETRIES,
        headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
    ):
        self.base_url = _core.base_url(base_url)
        self.namespace = namespace
        self.max_retries = max_retries
        self._headers = _core.default_headers(api_key, headers)
        self._owns_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self.namespaces = Namespaces(self)
        self.memories = Memories(self)
        self.jobs = Jobs(self)

    async def whoami(self) -> models.WhoAmI:
        """The account the API key belongs to, and the key itself."""
        return await self._send(_core.whoami())

    async def retrieve(
        self,
        query: str,
        *,
        namespace: str | None = None,
        limit: int | None = None,
        tier: Filter = None,
        tag: Filter = None,
        arms: Iterable[str] | None = None,
        min_similarity: float | None = None,
        as_of: str | datetime | None = None,
        as_of_by: str | None = None,
    ) -> models.Retrieval:
        """The memories that best answer ``query``, fused from BM25, cue vectors and links.

        ``tier``: any of these tiers; ``tag``: all of these tags; ``arms``: a subset of
        ``lexical``, ``semantic``, ``graph``; ``limit`` 1-100 (the service's default 10);
        ``min_similarity`` (cosine, -1..1): the semantic arm drops cues below it, and the
        graph arm follows only what is left — a floor for "nothing relevant" answers.
        ``as_of``: answer from the namespace as it was at a past commit, named by its id
        (or a unique prefix of 7+ hex digits) or by a time (the last commit made by then;
        a naive datetime is UTC); ``Retrieval.as_of`` says which commit was read.
        ``as_of_by``: what a time means, ``"stored"`` (the service's default: when a
        commit was made) or ``"said"`` (when its conversation was said, from the
        messages' timestamps), to search a backfilled history as it was then.
        """
        return await self._send(
            _core.retrieve(
                query=query,
                namespace=self._namespace(namespace),
                limit=limit,
                tier=tier,
                tag=tag,
                arms=arms,
                min_similarity=min_similarity,
                as_of=as_of,
                as_of_by=as_of_by,
            )
        )

    async def close(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncGitLoom:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def _namespace(self, namespace: str | None) -> str | None:
        return namespace if namespace is not None else self.namespace

    async def _send(self, call: _core.Call[T]) -> T:
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    call.method,
                    self.base_url + call.path,
                    **_core.request_kwargs(call, self._headers),
                )
            except httpx.TransportError as exc:
                wait = _core.retry_wait(call, None, attempt) if attempt < self.max_retries else None
                if wait is None:
                    raise _core.connection_error(exc) from exc
            else:
                wait = (
                    _core.retry_wait(call, response, attempt)
                    if attempt < self.max_retries
                    else None
                )
                if wait is None:
                    _core.raise_for_error(response)
                    return call.parse(response)
            await anyio.sleep(wait)
            attempt += 1


class Namespaces:
    """``/v1/namespaces``: a namespace is one memory (one git repository), typically one
    per end user. They are created explicitly; a call naming an unknown one is 404."""

    def __init__(self, client: AsyncGitLoom):
        self._client = client

    async def list(self) -> list[models.Namespace]:
        return await self._client._send(_core.namespace_list())

    async def create(self, name: str, *, exist_ok: bool = False) -> models.Namespace:
        """Create ``name``; with ``exist_ok`` an existing one is returned instead of
        raising ``ConflictError`` (``namespace_exists``)."""
        try:
            return await self._client._send(_core.namespace_create(name))
        except ConflictError as exc:
            if exist_ok and exc.code == "namespace_exists":
                return await self.get(name)
            raise

    async def get(self, name: str) -> models.Namespace:
        return await self._client._send(_core.namespace_get(name))

    async def delete(self, name: str) -> None:
        """Delete the namespace with all its memories, history and index."""
        await self._client._send(_core.namespace_delete(name))

    async def export(self, name: str, *, format: str = "bundle") -> bytes:  # noqa: A002
        """The repository to take away: a git bundle (``git clone`` reads it) or, with
        ``format="tar"``, a tar.gz of the memory files at the head."""
        return await self._client._send(_core.namespace_export(name, format))

    async def import_(
        self,
        name: str,
        data: bytes | str | IO[bytes],
        *,
        format: str | None = None,  # noqa: A002
        replace: bool = False,
    ) -> models.ImportResult | models.Job:
        """Import a tar.gz of memory files or a git bundle (bytes, a file path or a binary
        file), all in one commit or not at all. ``format`` ``tar`` or ``bundle``; unset,
        the service tells them apart. A big upload (over the service's
        ``GITLOOM_IMPORT_INLINE_BYTES``) is queued: the result is then its ``Job``
        (``jobs.wait`` it), which ends done or failed. A bundle whose history does not
        continue the namespace's is refused (``ConflictError``, ``unrelated_history``)
        unless ``replace``: then its files replace the namespace's."""
        return await self._client._send(
            _core.namespace_import(name, _core.read_upload(data), format, replace=replace)
        )

    async def changes_page(
        self,
        name: str,
        *,
        since: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> models.ChangesPage:
        """One page of the memories added, modified and deleted from commit ``since`` to
        the head (``limit`` 1-1000, the service's default 200); without ``since``, every
        memory as added. ``GoneError`` (``commit_not_in_history``) when ``since`` is not
        in the namespace's history: re-sync in full."""
        return await self._client._send(
            _core.namespace_changes_page(name, since=since, cursor=cursor, limit=limit)
        )

    async def changes(
        self, name: str, *, since: str | None = None, page_size: int | None = None
    ) -> models.Changes:
        """Every change from commit ``since`` to the head, all pages (each answers for
        the head the first one found). Apply them to a local copy, then keep
        ``.commit`` and pass it as ``since`` next time."""
        first = await self.changes_page(name, since=since, limit=page_size)
        changes, cursor = list(first.changes), first.next_cursor
        while cursor:
            page = await self.changes_page(name, since=since, cursor=cursor, limit=page_size)
            changes += page.changes
            cursor = page.next_cursor
        return models.Changes(since=first.since, commit=first.commit, changes=changes)

    async def purge(self, name: str, *, match: str) -> models.Purge:
        """Erase every version of every memory whose path or text contains ``match``
        (case-insensitive, 3-200 characters) from all history and from object storage;
        versions that never mention it stay. Cannot be undone. ``Purge.id`` is ``None``
        when nothing matched."""
        return await self._client._send(_core.namespace_purge(name, match))


class Memories:
    """``/v1/memories``: post conversations, read and forget the memories they became."""

    def __init__(self, client: AsyncGitLoom):
        self._client = client

    async def add(
        self,
        messages: Messages,
        *,
        namespace: str | None = None,
        session_id: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        wait: bool = False,
        timeout: float = _core.DEFAULT_WAIT_TIMEOUT,
    ) -> models.Job:
        """Post a conversation (messages, or a string for one user message); returns its
        job at once, or with ``wait=True`` once the job has ended ``done``.

        Waiting raises ``JobFailedError`` if the job fails and ``JobTimeoutError`` if it has
        not ended after ``timeout`` seconds; both carry the ``job``. An accepted job is
        never lost: the post carries an Idempotency-Key (yours, or a fresh one), so the
        client's own retries return the same job.
        """
        job = await self._client._send(
            _core.memory_add(
                messages=messages,
                namespace=self._client._namespace(namespace),
                session_id=session_id,
                metadata=metadata,
                idempotency_key=idempotency_key,
            )
        )
        return await self._client.jobs.wait(job, timeout=timeout) if wait else job

    async def list(
        self,
        *,
        namespace: str | None = None,
        tier: str | None = None,
        tag: str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[models.MemorySummary]:
        """Every memory at the namespace's head, in path order, fetched a page at a time."""
        cursor = None
        while True:
            page = await self.page(
                namespace=namespace, tier=tier, tag=tag, cursor=cursor, limit=page_size
            )
            for memory in page.memories:
                yield memory
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def page(
        self,
        *,
        namespace: str | None = None,
        tier: str | None = None,
        tag: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> models.MemoryPage:
        """One page of memories (``limit`` 1-200, the service's default 50)."""
        return await self._client._send(
            _core.memory_list_page(
                namespace=self._client._namespace(namespace),
                tier=tier,
                tag=tag,
                cursor=cursor,
                limit=limit,
            )
        )

    async def get(self, path: str, *, namespace: str | None = None) -> models.Memory:
        return await self._client._send(_core.memory_get(path, self._client._namespace(namespace)))

    async def delete(self, path: str, *, namespace: str | None = None) -> models.Forgotten:
        """Forget a memory: a commit removes its file; its history keeps it."""
        return await self._client._send(
            _core.memory_delete(path, self._client._namespace(namespace))
        )

    async def history(self, path: str, *, namespace: str | None = None) -> models.MemoryHistory:
        """Every version of the memory, newest first, with diffs."""
        return await self._client._send(
            _core.memory_history(path, self._client._namespace(namespace))
        )

    async def blame(self, path: str, *, namespace: str | None = None) -> models.MemoryBlame:
        """Where each line of the memory came from: the commit that last changed it, its
        job, session, extractor and prompt version, and the messages its sources cite."""
        return await self._client._send(
            _core.memory_blame(path, self._client._namespace(namespace))
        )

    async def purge(self, path: str, *, namespace: str | None = None) -> models.Purge:
        """Erase every version of the memory at ``path`` from all history and from
        object storage (forgetting, ``delete``, keeps its history). Cannot be undone;
        commits from the first that held it get new ids (the old ones answer 410)."""
        return await self._client._send(
            _core.memory_purge(path, self._client._namespace(namespace))
        )


class Jobs:
    """``/v1/jobs``: what became of a posted conversation."""

    def __init__(self, client: AsyncGitLoom):
        self._client = client

    async def get(self, job_id: str) -> models.Job:
        return await self._client._send(_core.job_get(job_id))

    async def revert(
        self, job: models.Job | str, *, force: bool = False, namespace: str | None = None
    ) -> models.Revert:
        """Undo what a finished job wrote, in one new commit: the memories it created
        are removed (and links to them dropped from others), the ones it rewrote get
        their earlier content back. Asked again, the same revert (``already_reverted``).

        If a later commit changed or removed one of its files, nothing is written and
        ``ConflictError`` is raised with code ``revert_conflict``; its
        ``details["conflicts"]`` names the files and the commits in the way. ``force``
        reverts the other files instead and lists these in ``skipped``. Other refusals:
        ``job_not_finished``, ``nothing_to_revert`` (the job made no commit),
        ``job_not_revertible`` (a bundle import), ``write_conflict`` (a job of the
        namespace ran too long; try again). ``namespace``, if given, must be the job's.
        """
        job_id = job.id if isinstance(job, models.Job) else job
        return await self._client._send(_core.job_revert(job_id, force=force, namespace=namespace))

    async def page(
        self, *, namespace: str | None = None, cursor: str | None = None, limit: int | None = None
    ) -> models.JobPage:
        """One page of the namespace's jobs, newest first (``limit`` 1-200, the service's
        default 50); pass its ``next_cursor`` as ``cursor`` for the next."""
        return await self._client._send(
            _core.job_list_page(
                namespace=self._client._namespace(namespace), limit=limit, cursor=cursor
            )
        )

    async def list(
        self, *, namespace: str | None = None, page_size: int | None = None
    ) -> AsyncIterator[models.Job]:
        """The namespace's jobs, newest first."""
        cursor = None
        while True:
            page = await self.page(namespace=namespace, cursor=cursor, limit=page_size)
            for job in page.jobs:
                yield job
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def wait(
        self, job: models.Job | str, *, timeout: float = _core.DEFAULT_WAIT_TIMEOUT
    ) -> models.Job:
        """Poll the job until it ends; return it ``done``, raise ``JobFailedError`` if it
        failed or ``JobTimeoutError`` after ``timeout`` seconds. A connection failure or
        a 503 while polling is waited out within the timeout."""
        current = job if isinstance(job, models.Job) else await self.get(job)
        deadline = time.monotonic() + timeout
        attempt = 0
        while not current.is_finished:
            left = deadline - time.monotonic()
            if left <= 0:
                raise JobTimeoutError(
                    f"Job {current.id} is still {current.status} after {timeout:g} s; it will "
                    "still run: ask for it again later.",
                    job=current,
                )
            await anyio.sleep(min(_core.poll_interval(attempt), left))
            attempt += 1
            try:
                current = await self.get(current.id)
            except (APIConnectionError, ServiceUnavailableError):
                continue
        if current.status == "failed":
            error = current.error
            raise JobFailedError(
                f"Job {current.id} failed: {error.message if error else 'no reason given'}",
                job=current,
                code=error.code if error else "job_failed",
            )
        return current
