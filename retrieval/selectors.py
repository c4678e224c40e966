"""Reads of the index: the fused retrieval an API call asks for."""

from __future__ import annotations

import functools
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.utils import timezone

from gitloom.core.tracing import traced
from namespaces.models import Namespace
from retrieval.asof import AsOf, as_of_half_applied, as_of_resolve
from retrieval.embeddings import embed_query, embed_query_cached, query_embedding_is_local
from retrieval.errors import InvalidArms, InvalidLimit, InvalidQuery, QueryTooLong
from retrieval.query import ARMS, FusionParams, Hit, SearchResult, fused_search
from retrieval.telemetry import (
    embedding_span_attributes,
    fused_query_span_attributes,
    retrieve_span_attributes,
    retrieve_span_result,
)

MAX_QUERY_CHARS = 1000
MAX_LIMIT = 100


@dataclass
class Retrieval:
    tenant: str
    namespace: str
    commit: str | None  # the repository head the namespace knows
    indexed_commit: str | None  # the commit the index, and so the results, reflect
    took_ms: float
    results: list[Hit] = field(default_factory=list)
    as_of: AsOf | None = None  # the past commit read, when the request asked for one


@traced("gitloom.retrieve", attributes=retrieve_span_attributes, result=retrieve_span_result)
def retrieve(
    *,
    namespace: Namespace,
    query: str,
    limit: int = 10,
    tiers: Collection[str] = (),
    tags: Collection[str] = (),
    arms: Collection[str] = ARMS,
    params: FusionParams | None = None,
    min_similarity: float | None = None,
    as_of: str | None = None,
    as_of_by: str = "stored",
    now: datetime | None = None,
) -> Retrieval:
    """The memories of ``namespace`` that best answer ``query``.

    The caller resolved the namespace with its access check (``namespace_get_for_account``);
    ``tenant`` is its account id. The only model call is the query embedding, and only
    when the semantic arm is on. ``took_ms`` is the server-side time of embedding plus
    query. ``commit`` is the namespace's head and ``indexed_commit`` the commit the
    results come from; they differ while the index is behind. ``min_similarity``
    (cosine, -1..1) is the semantic arm's relevance floor; ``None`` is no floor.

    ``as_of`` (a commit id or prefix, or an ISO-8601 time) reads the namespace as it was
    at that commit (``retrieval.asof``); ``commit`` and ``indexed_commit`` are then that
    commit, and ``as_of`` says which it was and when it was made. ``as_of_by`` says
    which time of a commit a time is compared with: ``stored`` (committed) or ``said``
    (its conversation's latest message timestamp).

    ``now`` is the clock a memory's age is counted from (tiers fade with it); ``None``
    is the wall clock, or the ``as_of`` time. Evaluations of a past conversation ask
    as of its end.
    """
    started = time.perf_counter()
    if not isinstance(query, str) or not query.strip():
        raise InvalidQuery("The query must not be empty.")
    if "\x00" in query:
        raise InvalidQuery("The query must not contain NUL characters.")
    if len(query) > MAX_QUERY_CHARS:
        raise QueryTooLong(f"The query is longer than {MAX_QUERY_CHARS} characters.")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidLimit(f"limit must be from 1 to {MAX_LIMIT}.")
    unknown = sorted(set(arms) - set(ARMS))
    if unknown:
        raise InvalidArms(f"Unknown arm {unknown[0]!r}: the arms are {', '.join(ARMS)}.")
    arms = tuple(arm for arm in ARMS if arm in set(arms))
    if not arms or arms == ("graph",):
        raise InvalidArms(
            "Choose lexical and/or semantic (graph follows links from their hits).",
        )
    past = (
        as_of_resolve(namespace=namespace, value=as_of, by=as_of_by) if as_of is not None else None
    )
    # A vector the cache has is passed as it is; otherwise fused_search calls `embed`
    # while the server runs the lexical arm (once: a second search reuses the vector).
    # An embedding endpoint is called first instead: its latency is the network's, and
    # a transaction held open across it would hold a snapshot and a connection as long.
    embedding = embed_query_cached(query) if "semantic" in arms else None
    embed = functools.cache(
        traced("embeddings", attributes=embedding_span_attributes)(
            functools.partial(embed_query, query)
        )
    )
    if embedding is None and "semantic" in arms and not query_embedding_is_local():
        embedding = embed()
    search = traced("gitloom.retrieval.fused_query", attributes=fused_query_span_attributes)(
        functools.partial(
            fused_search,
            namespace=namespace,
            query=query,
            embedding=embedding,
            embed=embed if "semantic" in arms else None,
            limit=limit,
            tiers=tiers,
            tags=tags,
            arms=arms,
            params=params,
            min_similarity=min_similarity,
        )
    )
    found = search(as_of=past, now=now)
    if past is None and namespace.head_commit and found.commit != namespace.head_commit:
        # The index is behind the head: the head's indexing has yet to run, or is
        # running, or (a large import) has applied part of a commit, whose rows the
        # head tables then hold beside the rest. Read the last commit applied in full
        # as of itself then; an index that moved meanwhile is read again.
        indexed, half, consistent = as_of_half_applied(namespace=namespace)
        if half and consistent is not None:
            found = search(as_of=consistent, now=now or timezone.now())  # aged as at the head
        elif half:  # not one commit whole yet (a bundle into a fresh namespace)
            found = SearchResult(commit=None)
        elif indexed != found.commit:
            found = search(as_of=None)
    if past is not None:
        return Retrieval(
            tenant=namespace.account_id,
            namespace=namespace.name,
            commit=past.commit,
            indexed_commit=past.commit,
            took_ms=round((time.perf_counter() - started) * 1000.0, 2),
            results=found.hits,
            as_of=past,
        )
    return Retrieval(
        tenant=namespace.account_id,
        namespace=namespace.name,
        # The head recorded by the last write (already on the namespace row: no extra
        # read); none recorded yet means no write since creation, whose root commit was
        # indexed with the namespace. A head ahead of the index says the results are
        # from an older commit (a write whose indexing failed or is still running).
        commit=namespace.head_commit or found.commit,
        indexed_commit=found.commit,
        took_ms=round((time.perf_counter() - started) * 1000.0, 2),
        results=found.hits,
    )


def index_memory_counts(*, namespaces: Iterable) -> dict[int, int]:
    """namespace id -> how many memories its index holds (namespaces never indexed are
    left out). One statement however many namespaces: row-level security lets no single
    query see several namespaces' rows, so ``retrieval_memory_counts`` (migration 0007)
    scopes itself to each namespace in turn."""
    ids = [int(namespace.pk) for namespace in namespaces]
    if not ids:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT namespace_id, doc_count FROM retrieval_memory_counts(%s::bigint[])", [ids]
        )
        return {int(namespace_id): count for namespace_id, count in cursor.fetchall()}
