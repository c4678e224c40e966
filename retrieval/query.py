"""The fused retrieval query: the hot path, one SQL statement (``retrieve.sql``).

:func:`fused_search` runs it for one namespace in that namespace's scope
(:func:`retrieval.scope.scoped_query`: outside a transaction, the scope settings and
the statement travel in one message, one round trip), with per-arm weights, depths and
the RRF constant taken from :class:`FusionParams`, so an evaluation can tune them
without touching SQL.

Plans. Parsing and planning this statement cost about as much as running it at
100,000 memories (~3.5 ms on the bench machine), so it is prepared once per namespace
and connection (:func:`retrieval.scope.scoped_query` with ``prepare=True``) and runs
on a generic plan: parameters bound on the server, no parse, no planning. The
semantic arm names the namespace's own cue partition (the text differs per namespace),
so the generic plan is an HNSW scan of that partition alone, costed with its own
statistics (a small partition is scanned exactly, which the planner prefers there),
and replanned by Postgres when the partition's statistics change. A tier/tag filter
or an exact scan runs on a custom plan instead: a filtered HNSW scan on a generic plan
is how a peer's query once silently returned 8 of the 20 rows it asked for.
A query whose vector is still to be computed (``fused_search``'s ``embed``) sends the
statement in two: the lexical arm first, which runs on the server while the client
embeds, then the rest with the lexical ranking as arrays (``_split``).
``hnsw.ef_search`` grows with the namespace (``EF_SEARCH_BY_SIZE``) and is at least
``semantic_cues`` (an HNSW scan returns at most ef_search rows); iterative scans are
switched on when tier/tag filters apply, so a filter that rejects many neighbours
still yields the rows asked for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import cache, lru_cache
from pathlib import Path

import psycopg
from django.conf import settings
from django.db import ProgrammingError
from django.utils import timezone
from pgvector import Vector

from gitloom.core.errors import NamespaceNotFound
from namespaces.memory_format import TIERS, Link, Memory
from retrieval.asof import SETTING as AS_OF_SETTING
from retrieval.asof import AsOf, as_of_statement
from retrieval.dates import query_date_span
from retrieval.embeddings import vector_literal
from retrieval.indexer import TEXT_SEARCH_CONFIG, drop_invisible
from retrieval.models import cue_partition
from retrieval.names import name_tags
from retrieval.scope import scoped_overlapped, scoped_query

ARMS = ("lexical", "semantic", "graph")

# Ageing: a memory's fused score is multiplied by 0.5 ** (days since `updated` /
# half-life of its tier). None means the tier does not fade. Settings may override any
# of these with GITLOOM_TIER_HALF_LIFE_DAYS = {"events": 60, ...}.
DEFAULT_HALF_LIFE_DAYS: dict[str, float | None] = {
    "facts": None,  # a fact stays true until a write rewrites it
    "preferences": 365.0,  # tastes drift slowly
    "events": 90.0,  # what happened matters less as it recedes
    "working": 3.0,  # scratch context for the task at hand
}


@dataclass(frozen=True)
class FusionParams:
    """Knobs of the fused query. Defaults are the service's; evaluations pass others.

    Weighted reciprocal-rank fusion: a memory's score is the sum, over the arms that
    found it (each cut at ``*_depth`` hits), of ``weight / (rrf_k + rank)``; a graph
    hit's rank is that of the hit its link came from. ``rrf_k`` is 10, not the
    customary 60, so one arm's first hit is not outscored by two arms' twentieth
    (figures for each knob: docs/design/retrieval.md, "Fusion parameters").
    """

    rrf_k: float = 10.0
    # lexical 1.3, cue 2, date 2: re-tuned on the write path's atomic memories with
    # questions asked as of their conversation (docs/design/retrieval.md, "Fusion parameters")
    lexical_weight: float = 1.3
    semantic_weight: float = 1.0
    graph_weight: float = 0.75
    lexical_depth: int = 50
    # BM25 candidates: a query reads lexical_postings postings, strongest first,
    # shared by its terms in proportion to idf ** lexical_idf_power (at least
    # lexical_term_postings_min each, every posting of a term that has fewer); the
    # lexical_rescore memories found that may score most (what was read, plus what
    # the cut terms their term signature has can add) are then scored exactly. Exact
    # whenever no term has more postings than its share. See bench_retrieve's
    # lexical_recall_at_10 for how close it stays at 100,000 memories.
    lexical_postings: int = 3000
    lexical_idf_power: float = 1.0
    lexical_term_postings_min: int = 200
    lexical_rescore: int = 120
    semantic_cues: int = 100  # nearest cue vectors fetched (several may be one memory's)
    semantic_depth: int = 50  # memories the semantic arm ranks, each by its best cue
    graph_seeds: int = 20
    # A link to a seed marks a memory only where seeds are a small share of the
    # namespace: the graph bonus is nothing while it holds at most graph_seeds memories
    # (every memory a seed), grows linearly, and is whole from graph_full_at times
    # graph_seeds; at most 1 turns the scaling off (docs/design/retrieval.md).
    graph_full_at: float = 2.0
    graph_depth: int = 50
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    cue_weight: float = 2.0  # a term in the cues counts this much in BM25 tf and length
    body_weight: float = 1.0
    # HNSW candidate list (raised to semantic_cues when smaller); 0 picks it by the
    # namespace's size, see EF_SEARCH_BY_SIZE.
    ef_search: int = 0
    # Exact cue: a memory with a cue equal to the query after normalisation ranks first,
    # then one whose best cue has at least this cosine with the query, whatever the
    # fusion says of other memories (cues are written to be asked); above 1, only
    # normalised-equal cues count.
    cue_match_similarity: float = 0.95
    # A memory created or updated in the span of a date the query names ("on 9 July,
    # 2022", "in July 2022", "in 2021"; retrieval/dates.py), widened by
    # date_match_slack_days each way, scores (1 + date_match_boost) times its fused score.
    date_match_boost: float = 2.0
    date_match_slack_days: float = 3.0
    # A memory with a tag that is a name the query mentions (a person, a place, a
    # brand: capitalised words, retrieval/names.py) scores (1 + tag_match_boost) times
    # its fused score. Topic tags matched by plain words are left to the lexical arm:
    # boosting them too cost the write pipeline's memories 3 points of recall@10.
    tag_match_boost: float = 0.5
    # Ageing: a memory's fused score times age_floor + (1 - age_floor) * 0.5 ** (age /
    # its tier's half-life). Age orders what is equally relevant; it never takes more
    # than half: a months-old appointment asked after by name still beats a fresh
    # memory about something else (docs/design/retrieval.md, "Fusion parameters").
    age_floor: float = 0.5
    # The lexical arm's first place is shared by every memory whose BM25 score is within
    # this share of the best: two memories that say the query's word about as often
    # (the shorter one scoring a few per cent more) are not told apart by it, and the
    # other arms decide. Only the first place: ties further down cost LoCoMo recall
    # (docs/design/retrieval.md, "Fusion parameters").
    lexical_tie: float = 0.1

    def max_fused_score(self) -> float:
        """An upper bound of a memory's fused score: every arm at rank 1, every boost."""
        weights = (self.lexical_weight, self.semantic_weight, self.graph_weight)
        rrf = sum(max(0.0, w) for w in weights) / max(self.rrf_k + 1.0, 1e-9)
        return rrf * (1 + max(0.0, self.date_match_boost)) * (1 + max(0.0, self.tag_match_boost))


# hnsw.ef_search by the namespace's number of memories, (at least this many, ef): the
# least that keeps the semantic arm's recall against an exact scan at 0.98 or above;
# below ~2,000 the planner scans exactly (figures: docs/design/retrieval.md).
EF_SEARCH_BY_SIZE = ((50_000, 320), (10_001, 200), (2_000, 140), (0, 100))
_EF_STEPS = " ".join(f"WHEN doc_count >= {size} THEN {ef}" for size, ef in EF_SEARCH_BY_SIZE)
_EF_SEARCH_SETUP = (
    "SELECT set_config('hnsw.ef_search', LEAST(1000, GREATEST(%(semantic_cues)s, CASE "  # noqa: S608 - integers from the constant above
    + _EF_STEPS
    + " END))::text, true) FROM retrieval_index_state WHERE namespace_id = %(namespace_id)s"
)


# Cue texts are compared with the query (after normalisation) only for memories whose
# best cue is at most this cosine distance from it: regular expressions over every
# candidate's cues cost milliseconds a query, and texts equal up to case, punctuation
# and spacing embed within ~0.05 of each other with MiniLM (tests/retrieval/test_exact_cue).
CUE_MATCH_TEXT_GATE = 0.25


@dataclass
class Hit:
    path: str
    score: float
    arms: dict
    graph_only: bool  # only the graph arm brought it: a neighbour of a hit, not a match
    memory: Memory  # the file's header and body, as the format holds them


@dataclass
class SearchResult:
    commit: str | None
    hits: list[Hit] = field(default_factory=list)
    plan: str | None = None


def half_lives() -> dict[str, float | None]:
    configured = getattr(settings, "GITLOOM_TIER_HALF_LIFE_DAYS", None) or {}
    return {**DEFAULT_HALF_LIFE_DAYS, **configured}


# The lexical arm's cut terms that candidates are ranked by (retrieve.sql's
# lexical_slots): a query rarely cuts more than two or three.
LEXICAL_SLOTS = 8


def _lexical_slot_columns(slots: int) -> str:
    """lexical_slots' columns: slot n's term signature bits (a_n, b_n), the term's bit
    in a candidate's `seen` (bit_n) and the most it can add (rest_n)."""
    return ",\n".join(
        f"max(sig_a) FILTER (WHERE slot = {n}) AS a_{n}, "
        f"max(sig_b) FILTER (WHERE slot = {n}) AS b_{n}, "
        f"max(term_bit) FILTER (WHERE slot = {n}) AS bit_{n}, "
        f"max(rest) FILTER (WHERE slot = {n}) AS rest_{n}"
        for n in range(1, slots + 1)
    )


def _lexical_slot_bonus(slots: int) -> str:
    """What candidate ``c`` may still score from the slots of ``s``: slot by slot, the
    term's rest when the candidate's signature has both its bits and its postings of
    the term were not read; nested, so that the first empty slot ends the sum."""
    bonus = "0"
    for n in range(slots, 0, -1):
        bonus = (
            f"CASE WHEN s.bit_{n} IS NULL THEN 0 ELSE "
            f"CASE WHEN c.sig_a & s.a_{n} <> 0 AND c.sig_b & s.b_{n} <> 0"
            f" AND c.seen & s.bit_{n} = 0 THEN s.rest_{n} ELSE 0 END + {bonus} END"
        )
    return f"({bonus})"


@cache
def _sql() -> str:
    """retrieve.sql without its comments and indentation: the statement goes over the
    wire and through psycopg's placeholder parser."""
    text = Path(__file__).with_name("retrieve.sql").read_text()
    lines = (line.split("--", 1)[0].strip() for line in text.splitlines())
    text = "\n".join(line for line in lines if line)
    for placeholder, value in (
        # The query's terms must be stemmed as the indexer stemmed the memories'.
        ("__text_search_config__", TEXT_SEARCH_CONFIG),
        ("__lexical_slot_columns__", _lexical_slot_columns(LEXICAL_SLOTS)),
        ("__lexical_slot_bonus__", _lexical_slot_bonus(LEXICAL_SLOTS)),
    ):
        text = text.replace(placeholder, value)
    return text


_NEAREST_ORDER = "ORDER BY distance\nLIMIT __semantic_cues__"
# The semantic arm's conditions for a tier/tag filter (tier and tags are copied onto
# cue rows, so the HNSW scan checks them as it goes).
_CUE_FILTERS = (
    "(%(tiers)s::text[] IS NULL OR c.tier = ANY (%(tiers)s::text[]))"
    " AND (%(tags)s::text[] IS NULL OR c.tags @> %(tags)s::text[])"
)


# The fused statement in two, for a query whose embedding is still being computed
# (fused_search's ``embed``): the lexical arm alone, which needs no embedding and runs
# on the server meanwhile, and the rest, which takes the lexical arm's ranking in the
# lexical CTE's shape. The ranking stays on the server: the first statement keeps it in
# two transaction-local settings (float8's text form is exact), which the second reads,
# so the client neither waits for it nor reads and sends it back (0.3 ms of its CPU).
_LEXICAL_FIRST = "query_terms AS MATERIALIZED ("
_AFTER_LEXICAL = "semantic_cues AS MATERIALIZED ("
LEXICAL_IDS_SETTING = "gitloom.lexical_ids"
LEXICAL_SCORES_SETTING = "gitloom.lexical_scores"
_LEXICAL_ONLY = (
    f"\nSELECT set_config('{LEXICAL_IDS_SETTING}',"
    " coalesce(array_agg(document_id ORDER BY rank, document_id), '{}')::text, true),"
    f" set_config('{LEXICAL_SCORES_SETTING}',"
    " coalesce(array_agg(score ORDER BY rank, document_id), '{}')::text, true)\nFROM lexical"
)
_LEXICAL_GIVEN = (
    "lexical_given AS (\nSELECT given.document_id, given.score, given.rank\n"
    f"FROM unnest(current_setting('{LEXICAL_IDS_SETTING}')::int8[],"
    f" current_setting('{LEXICAL_SCORES_SETTING}')::float8[])"
    " WITH ORDINALITY given(document_id, score, rank)\n),\n"
    # the shared first place again (retrieve.sql's lexical CTE): the order kept it only
    # as positions
    "lexical AS (\nSELECT s.document_id, s.score,"
    " CASE WHEN s.score * (1 + %(lexical_tie)s::float8) >= max(s.score) OVER () THEN 1"
    " ELSE s.rank END AS rank\nFROM lexical_given s\n),\n"
)


@lru_cache(maxsize=256)
def _split(text: str) -> tuple[str, str]:
    """(the lexical arm alone, the rest with the lexical ranking given) of ``text``; kept
    per statement, so a retrieval does not cut and join ~10 KB of SQL again."""
    start, end = text.find(_LEXICAL_FIRST), text.find(_AFTER_LEXICAL)
    if not 0 < start < end:
        raise RuntimeError("retrieve.sql no longer has its lexical arm where expected")
    lexical = text[:end].rstrip()
    if not lexical.endswith("),"):
        raise RuntimeError("retrieve.sql's lexical arm does not end as expected")
    return lexical[:-1] + _LEXICAL_ONLY, text[:start] + _LEXICAL_GIVEN + text[end:]


def _statement(
    namespace_id: int,
    *,
    semantic_cues: int,
    filtered: bool,
    exact: bool = False,
    as_of: bool = False,
) -> str:
    """The fused statement for one namespace: its cue partition by name, the number of
    nearest cues as a literal and the cue filters only when filtering, all of which the
    planner must see to choose the HNSW scan on a generic plan. ``as_of``: the same
    statement over the index as of a past commit (``retrieval.asof``)."""
    text = as_of_statement(_sql()) if as_of else _sql()
    text = text.replace("__cue_partition__", cue_partition(namespace_id))
    text = text.replace("__cue_filters__", _CUE_FILTERS if filtered else "true")
    if exact:
        # An order no index can serve: the semantic arm scans the partition exactly.
        if _NEAREST_ORDER not in text:
            raise RuntimeError("retrieve.sql no longer orders the nearest cues as expected")
        text = text.replace(_NEAREST_ORDER, _NEAREST_ORDER.replace("distance", "distance + 0"))
    return text.replace("__semantic_cues__", str(int(semantic_cues)))


def fused_search(
    *,
    namespace,
    query: str,
    embedding: Sequence[float] | None,
    limit: int = 10,
    tiers: Collection[str] = (),
    tags: Collection[str] = (),
    arms: Collection[str] = ARMS,
    params: FusionParams | None = None,
    half_life_days: Mapping[str, float | None] | None = None,
    now: datetime | None = None,
    exact: bool = False,
    explain: bool = False,
    min_similarity: float | None = None,
    as_of: AsOf | None = None,
    embed: Callable[[], Sequence[float]] | None = None,
) -> SearchResult:
    """Run the fused query for ``namespace`` (a Namespace or anything with an int pk).

    ``embedding`` is the query vector; it may be None only when the semantic arm is not
    among ``arms``. ``exact=True`` orders the cue scan so that no index can serve it,
    which makes the semantic arm an exact nearest-neighbour scan (for measuring HNSW
    recall). ``explain=True`` also returns ``EXPLAIN (ANALYZE, BUFFERS)`` of the
    statement as ``plan`` (planned for these parameters: a custom plan).
    ``min_similarity`` is the semantic arm's floor: a cue less similar to the query
    (cosine) finds nothing, so neither it nor links from it bring a memory.
    ``as_of`` reads the index as it was at that commit (``retrieval.asof``): an exact
    semantic arm, ageing to the commit's time; prepared like the head statement (the
    commit is a setting the views read, not a parameter, so one generic plan serves
    every commit of the namespace).

    ``embed`` (instead of ``embedding``) computes the query vector when it is needed:
    with prepared statements and both the lexical and semantic arms on, the lexical arm
    is sent first and runs on the server while ``embed()`` runs here, then the rest of
    the statement takes its ranking (``scoped_overlapped``): the same hits, with the
    lexical arm's time hidden behind the embedding's.
    """
    params = params or FusionParams()
    unknown = set(arms) - set(ARMS)
    if unknown:
        raise ValueError(f"unknown arms: {sorted(unknown)}")
    if "semantic" in arms and embedding is None and embed is None:
        raise ValueError("the semantic arm needs a query embedding")
    # An arm that is off gets depth 0: its CTE is LIMIT 0 and its scan never runs.
    if "lexical" not in arms:
        params = replace(params, lexical_depth=0)
    if "semantic" not in arms:
        params = replace(params, semantic_cues=0, semantic_depth=0)
    if "graph" not in arms:
        params = replace(params, graph_depth=0)
    lives = {**half_lives(), **(half_life_days or {})}
    span = query_date_span(query) if params.date_match_boost else None
    slack = timedelta(days=params.date_match_slack_days)
    filtered = bool(tiers) or bool(tags)
    bound = {
        "namespace_id": int(namespace.pk),
        "query": drop_invisible(query),
        "embedding": None,
        "now": now or (as_of.clock if as_of else timezone.now()),
        "tiers": sorted(set(tiers)) or None,
        "tags": sorted(set(tags)) or None,
        "filtered": filtered,
        "k1": params.bm25_k1,
        "b": params.bm25_b,
        "cue_weight": params.cue_weight,
        "body_weight": params.body_weight,
        "lexical_depth": params.lexical_depth,
        "lexical_postings": params.lexical_postings,
        "lexical_idf_power": params.lexical_idf_power,
        "lexical_term_postings_min": params.lexical_term_postings_min,
        "lexical_rescore": params.lexical_rescore,
        "semantic_cues": params.semantic_cues,
        "semantic_depth": params.semantic_depth,
        "graph_seeds": params.graph_seeds,
        "graph_depth": params.graph_depth,
        "lexical_weight": params.lexical_weight,
        "semantic_weight": params.semantic_weight,
        "graph_weight": params.graph_weight,
        "graph_full_at": params.graph_full_at,
        "rrf_k": params.rrf_k,
        "lexical_tie": params.lexical_tie,
        "semantic_max_distance": None if min_similarity is None else 1.0 - min_similarity,
        "cue_match_distance": (
            1.0 - params.cue_match_similarity if params.cue_match_similarity <= 1.0 else None
        ),
        # One exact-cue level outranks every fused score (ageing only lowers them).
        "cue_match_bonus": 1.0 + params.max_fused_score(),
        "cue_match_text_gate": CUE_MATCH_TEXT_GATE if params.semantic_cues else None,
        "date_from": span[0] - slack if span else None,
        "date_to": span[1] + slack if span else None,
        "date_match_boost": params.date_match_boost,
        "tag_match_boost": params.tag_match_boost,
        "query_tags": (name_tags(query) or None) if params.tag_match_boost else None,
        "limit": limit,
        **{f"half_life_{tier}": lives.get(tier) for tier in TIERS},
        "age_floor": params.age_floor,
    }
    generic = settings.GITLOOM_PREPARED_STATEMENTS and not (filtered or exact)
    settings_ = {
        "plan_cache_mode": "force_generic_plan" if generic else "force_custom_plan",
        "hnsw.iterative_scan": "relaxed_order" if filtered else "off",
    }
    setup: list[str] = []
    if as_of:  # exact semantic arm, no HNSW settings; the views read this commit
        settings_[AS_OF_SETTING] = str(int(as_of.seq))
        # The exact cue scan run serially: parallel workers (started per query) made
        # it 2x slower on a busy 2-core machine (bench_asof).
        settings_["max_parallel_workers_per_gather"] = "0"
    elif params.ef_search:
        settings_["hnsw.ef_search"] = str(min(1000, max(params.ef_search, params.semantic_cues)))
    elif params.semantic_cues:
        # Derived in the scope from the namespace's own size, in the same round trip.
        setup.append(_EF_SEARCH_SETUP)
    prepare = settings.GITLOOM_PREPARED_STATEMENTS
    overlap = (
        embedding is None
        and params.semantic_cues
        and params.lexical_depth
        and prepare
        and not explain
        and as_of is None
    )
    if params.semantic_cues and embedding is None and not overlap:
        embedding = embed()
    if params.semantic_cues and not overlap:
        # Binary on the wire when bound on the server; text for a client-side binding.
        bound["embedding"] = Vector(list(embedding)) if prepare else vector_literal(embedding)
    sql = _statement(
        int(namespace.pk),
        semantic_cues=params.semantic_cues,
        filtered=filtered,
        exact=exact and as_of is None,
        as_of=as_of is not None,
    )
    plan = None
    if explain:
        bound = {**bound, "embedding": vector_literal(embedding) if params.semantic_cues else None}
        _, plan_rows = scoped_query(
            namespace=namespace,
            sql="EXPLAIN (ANALYZE, BUFFERS) " + sql,
            params=bound,
            settings=settings_,
            setup=setup,
        )
        plan = "\n".join(row[0] for row in plan_rows)
    try:
        if overlap:
            lexical, rest = _split(sql)
            columns, rows = scoped_overlapped(
                namespace=namespace,
                first=lexical,
                second=rest,
                params=bound,
                meanwhile=embed,
                carry=_embedding_given,
                settings=settings_,
                setup=setup,
            )
        else:
            columns, rows = scoped_query(
                namespace=namespace,
                sql=sql,
                params=bound,
                settings=settings_,
                setup=setup,
                prepare=prepare,
            )
    except ProgrammingError as error:
        # The statement names the namespace's cue partition, which only a namespace
        # deleted since the caller fetched it no longer has.
        if isinstance(error.__cause__, psycopg.errors.UndefinedTable):
            raise NamespaceNotFound() from error
        raise
    result = SearchResult(commit=(rows[0][0] or None) if rows else None, plan=plan)
    for row in rows:
        record = dict(zip(columns, row, strict=True))
        if record["path"] is None:  # the namespace has an index state but no hit
            continue
        result.hits.append(_hit(record))
    return result


def _embedding_given(embedding: Sequence[float]) -> dict:
    """The rest of the split statement's parameters: the query vector computed while
    the server ran the lexical arm."""
    return {"embedding": Vector(list(embedding))}


def _hit(record: dict) -> Hit:
    arms: dict = {}
    if record["lexical_rank"] is not None:
        arms["lexical"] = {"rank": record["lexical_rank"], "score": record["lexical_score"]}
    if record["semantic_rank"] is not None:
        arms["semantic"] = {
            "rank": record["semantic_rank"],
            "cue": record["semantic_cue"],
            "similarity": 1.0 - record["semantic_distance"],
        }
    if record["graph_rank"] is not None:
        arms["graph"] = {
            "rank": record["graph_rank"],
            "via": {
                "from": record["via_path"],
                "type": record["via_type"],
                "direction": record["via_direction"],
            },
        }
    # Django's psycopg setup hands jsonb back as text.
    related = record["related"]
    related = json.loads(related) if isinstance(related, str) else related
    return Hit(
        path=record["path"],
        score=record["score"],
        arms=arms,
        graph_only=list(arms) == ["graph"],
        memory=Memory(
            tier=record["tier"],
            tags=list(record["tags"]),
            created=record["created"],
            updated=record["updated"],
            confidence=record["confidence"],
            cues=list(record["cues"]),
            related=[Link(type=link["type"], path=link["path"]) for link in related],
            sources=list(record["sources"]),
            body=record["body"],
        ),
    )
