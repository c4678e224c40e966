"""The tree-diff indexer: brings a namespace's index rows up to its repository's head.

:func:`index_namespace` lists the commits since the indexed one (first parents, oldest
first) and, for each, diffs its tree against its parent's so only changed memory files
are visited; each changed path's old document (postings, cues, edges) moves to the
history tables and the new one is inserted, keyed by its blob, with the commit's
number (what ``retrieval.asof`` reads). Only cue texts without a vector are embedded.

    _plan, _step         what is left to apply; one transaction of at most
                         GITLOOM_INDEX_STEP_FILES files, under the state row's lock
    _apply               one commit's (or one step's) changes
    _remove_documents    the old rows into history, their terms out of BM25 totals
    _insert_documents    the new rows; document_terms_sql, derive_postings: BM25 terms
    _vectors_for         vectors: copied when the text has one, else embedded
    _forget_all          a rewritten history (purge, import) or rebuild: start over

How steps, rebuilds, crashes and concurrent runs behave: docs/design/retrieval.md
("Indexing").
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import connection

from gitloom.core.errors import InvalidInput
from namespaces.errors import CommitNotFound, InvalidMemory
from namespaces.memory_format import Memory, parse_memory, validate_memory_path
from namespaces.repository import TreeChange
from retrieval.embeddings import embed_texts, vector_literal
from retrieval.models import HISTORY_TABLES
from retrieval.scope import namespace_scope

logger = logging.getLogger("gitloom.retrieval")

TEXT_SEARCH_CONFIG = "english"
# Characters that show as nothing (zero-width space, non-joiner and joiner, word
# joiner, BOM, soft hyphen, Mongolian vowel separator): inside a word they split it for
# the parser ("Nikon\u2060 Z6" was no match for "Nikon"), so the text BM25 reads drops
# them. The stored body keeps them.
INVISIBLE_CHARS = "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"
_INVISIBLE_SQL = "E'" + "".join(f"\\u{ord(c):04x}" for c in INVISIBLE_CHARS) + "'"


def drop_invisible(text: str) -> str:
    """``text`` without ``INVISIBLE_CHARS``, as the index reads it."""
    return text.translate(dict.fromkeys(map(ord, INVISIBLE_CHARS)))


# Rows per INSERT statement: keeps one statement's parameter (a JSON array) a few MB.
BATCH = 500


@dataclass
class IndexResult:
    """What one indexer run did. ``embedded`` counts cue texts sent to the embedder."""

    namespace_id: int
    previous_commit: str | None
    commit: str | None
    added: int = 0
    modified: int = 0
    deleted: int = 0
    embedded: int = 0
    reused: int = 0
    skipped: list[str] = field(default_factory=list)
    memories: int | None = None  # at the indexed commit (counts above add up every commit's)
    commits: int = 0  # commits applied (a rebuild: the whole history)
    target: str | None = None  # the head this run indexes towards
    complete: bool = False  # False: stopped at its deadline, ``commit`` behind ``target``

    @property
    def changed(self) -> bool:
        return self.commit != self.previous_commit


def index_namespace(
    *,
    namespace,
    rebuild: bool = False,
    reuse_vectors: bool = False,
    deadline: float | None = None,
) -> IndexResult:
    """Index ``namespace`` up to its repository head; see the module docstring.

    ``rebuild=True`` forgets the namespace's index rows and builds them again from the
    repository alone (``manage.py reindex``), still in one transaction; every cue is
    embedded again (how a changed embedding model reaches the index), unless
    ``reuse_vectors``, when a cue text the namespace already had a vector for keeps it
    (a purge's rebuild: the texts come from the rewritten repository, so a purged cue,
    whose text changed or went, is never matched). A rebuild the indexer decides on
    itself (the indexed commit left the history) reuses vectors the same way.

    Otherwise the commits are applied in steps of at most ``GITLOOM_INDEX_STEP_FILES``
    changed files, each step its own transaction (see "Steps" in the module docstring).
    ``deadline`` (a ``time.monotonic()`` value): once a step ends past it, stop, with
    ``complete`` False; the next run goes on from there. At least one step runs.
    """
    from namespaces.repository import repository_head

    prefix = namespace.storage_prefix
    namespace_id = int(namespace.pk)
    step_files = max(1, int(settings.GITLOOM_INDEX_STEP_FILES))
    result: IndexResult | None = None
    plan: _Plan | None = None
    while True:
        with namespace_scope(namespace):
            state = _lock_state(namespace_id)
            if plan is None or plan.expects() != state:
                # The first step, or another run moved the index meanwhile: plan again.
                previous = state.commit
                if result is None:
                    result = IndexResult(
                        namespace_id=namespace_id, previous_commit=previous, commit=previous
                    )
                if (
                    not rebuild
                    and state.applying == ""
                    and previous == repository_head(prefix=prefix)
                ):
                    result.complete = True
                    return result
                plan = _plan(
                    namespace_id,
                    prefix,
                    state,
                    result,
                    rebuild=rebuild,
                    reuse_vectors=reuse_vectors,
                )
                rebuild = False  # a rebuild happens once, in the step that planned it
                if plan is None:  # the repository is gone
                    return result
            finished = _step(namespace_id, plan, result, budget=None if plan.whole else step_files)
        if finished:
            result.complete = True
            break
        if deadline is not None and time.monotonic() >= deadline:
            logger.info(
                "index of %s: %d changed files of %s to go, continuing later",
                prefix,
                plan.remaining(),
                plan.target,
            )
            break
    if result.added or result.modified or result.deleted or plan.rebuilt:
        logger.info(
            "indexed %s at %s: +%d ~%d -%d, %d cue texts embedded, %d reused",
            prefix,
            result.commit,
            result.added,
            result.modified,
            result.deleted,
            result.embedded,
            result.reused,
        )
    return result


@dataclass
class _State:
    """The namespace's ``retrieval_index_state`` row: the indexed commit and its
    number, and the commit being applied in steps with the last path applied."""

    commit: str | None
    seq: int
    applying: str = ""
    applied_to: str = ""


@dataclass
class _Plan:
    """What a run still has to apply: the commits after ``parent`` (the last one
    applied in full, number ``seq``), oldest first; the first one's memory changes
    (``changes``, by path, read when its turn comes) up to ``applied_to`` are applied."""

    snapshot: object
    chain: list[tuple[str, datetime]]
    parent: str | None
    seq: int
    target: str
    applied_to: str = ""
    changes: list[TreeChange] | None = None
    whole: bool = False  # a rebuild: every commit in this one transaction
    kept: bool = False  # a rebuild keeping the namespace's vectors (_keep_vectors)
    rebuilt: bool = False

    def expects(self) -> _State:
        applying = self.chain[0][0] if self.chain and self.applied_to else ""
        return _State(self.parent, self.seq, applying, self.applied_to)

    def remaining(self) -> int:
        return len(self.changes or ())


def _plan(
    namespace_id: int,
    prefix: str,
    state: _State,
    result: IndexResult,
    *,
    rebuild: bool,
    reuse_vectors: bool,
) -> _Plan | None:
    from namespaces.repository import repository_snapshot

    snapshot = repository_snapshot(prefix=prefix)
    if snapshot.commit is None:
        # The repository is gone: nothing is retrievable any more.
        _forget_all(namespace_id)
        result.memories = _write_state(namespace_id, _State(None, 0))
        result.commit = None
        result.complete = True
        return None
    # One view of the head for the diffs and the blobs (its commit may be newer than
    # the head read before: that is the one indexed).
    result.target = snapshot.commit
    previous = state.commit
    if previous and not rebuild and _history_has(namespace_id, previous, state.seq):
        chain, found = snapshot.first_parents(stop=previous)
        if not found:  # the indexed commit is not in this repository's history
            logger.warning("index of %s: commit %s is gone; rebuilding", prefix, previous)
        elif state.applying and (not chain or chain[0][0] != state.applying):
            # The commit being applied in steps left the history (a purge rewrote it):
            # its rows already in the head tables go with a rebuild.
            logger.warning("index of %s: commit %s is gone; rebuilding", prefix, state.applying)
        else:
            return _Plan(
                snapshot=snapshot,
                chain=chain,
                parent=previous,
                seq=state.seq,
                target=snapshot.commit,
                applied_to=state.applied_to if state.applying else "",
            )
    if not rebuild and not previous and state.applying:
        # A fresh namespace's first build, in steps (below), half way: go on.
        chain, _ = snapshot.first_parents()
        if chain and chain[0][0] == state.applying:
            return _Plan(
                snapshot=snapshot,
                chain=chain,
                parent=None,
                seq=0,
                target=snapshot.commit,
                applied_to=state.applied_to,
            )
    # A namespace whose index holds no memory, now or in history (a bundle imported
    # into a fresh namespace replaces its empty root commit), has nothing to keep or
    # to go on showing: it is built in steps like any large commit. Any other rebuild
    # is one transaction.
    whole = rebuild or not _index_empty(namespace_id)
    kept = whole and (reuse_vectors or not rebuild)
    if kept:
        _keep_vectors(namespace_id)
    _forget_all(namespace_id)
    chain, _ = snapshot.first_parents()
    return _Plan(
        snapshot=snapshot,
        chain=chain,
        parent=None,
        seq=0,
        target=snapshot.commit,
        whole=whole,
        kept=kept,
        rebuilt=True,
    )


def _index_empty(namespace_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM retrieval_document WHERE namespace_id = %(ns)s)"
            " OR EXISTS (SELECT 1 FROM retrieval_document_history WHERE namespace_id = %(ns)s)",
            {"ns": namespace_id},
        )
        return not cursor.fetchone()[0]


def _step(namespace_id: int, plan: _Plan, result: IndexResult, *, budget: int | None) -> bool:
    """Apply the plan's next changes, at most ``budget`` files (None: all), in the
    caller's transaction, and record where the index got to. Returns whether it is
    at the plan's target."""
    while plan.chain and (budget is None or budget > 0):
        sha, when, said = plan.chain[0]
        step = plan.snapshot.at(sha)
        if plan.changes is None:
            try:
                changes = step.changes_since(plan.parent)
            except CommitNotFound:  # cannot happen on a chain read from the same objects
                raise RuntimeError(f"commit {plan.parent} vanished while indexing") from None
            plan.changes = sorted(
                (c for c in changes if _is_memory_path(c.path) and c.path > plan.applied_to),
                key=lambda change: change.path,
            )
        take = plan.changes if budget is None else plan.changes[:budget]
        plan.changes = plan.changes[len(take) :]
        _apply(namespace_id, take, step.read_blob, result, plan.seq + 1, kept=plan.kept)
        if budget is not None:
            budget -= max(1, len(take))
        if take:
            plan.applied_to = take[-1].path
        if plan.changes:
            break  # the budget ran out inside this commit
        plan.seq += 1
        _record_commit(namespace_id, plan.seq, sha, when, said)
        result.commits += 1
        plan.parent, plan.applied_to, plan.changes = sha, "", None
        plan.chain.pop(0)
    if plan.kept and not plan.chain:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE pg_temp.retrieval_kept_vectors")
    result.commit = plan.parent
    result.memories = _write_state(namespace_id, plan.expects())
    return not plan.chain


# --- steps ------------------------------------------------------------------------------


def _lock_state(namespace_id: int) -> _State:
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO retrieval_index_state (namespace_id) VALUES (%s)"
            " ON CONFLICT (namespace_id) DO NOTHING",
            [namespace_id],
        )
        cursor.execute(
            "SELECT indexed_commit, indexed_seq, applying_commit, applied_to"
            " FROM retrieval_index_state WHERE namespace_id = %s FOR UPDATE",
            [namespace_id],
        )
        commit, seq, applying, applied_to = cursor.fetchone()
        # The partition normally exists from index_namespace_create; this covers
        # namespaces made before the index existed. A no-op when it is there, and
        # under the state row lock so two first runs cannot both create it.
        cursor.execute("SELECT retrieval_cue_partition_create(%s)", [namespace_id])
        return _State(commit or None, seq, applying, applied_to)


def _write_state(namespace_id: int, state: _State) -> int:
    """Record how far the index got; return how many memories its head tables hold."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE retrieval_index_state SET indexed_commit = %s, indexed_seq = %s,"
            " applying_commit = %s, applied_to = %s, updated = now()"
            " WHERE namespace_id = %s RETURNING doc_count",
            [state.commit or "", state.seq, state.applying, state.applied_to, namespace_id],
        )
        return cursor.fetchone()[0]


def _history_has(namespace_id: int, commit: str, seq: int) -> bool:
    """Whether the indexed commit is the last one the history recorded (a namespace
    indexed before history was kept has none, and is rebuilt with it)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM retrieval_commit WHERE namespace_id = %s AND seq = %s AND sha = %s",
            [namespace_id, seq, commit],
        )
        return cursor.fetchone() is not None


def _record_commit(namespace_id: int, seq: int, sha: str, when: datetime, said: datetime) -> None:
    """The commit, its number, its two times (committed, and said: the author date) and
    its BM25 totals (the index state once it is applied)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO retrieval_commit (namespace_id, seq, sha, committed, said, doc_count,"
            " cue_length_total, body_length_total)"
            " SELECT namespace_id, %s, %s, %s, %s, doc_count, cue_length_total,"
            " body_length_total FROM retrieval_index_state WHERE namespace_id = %s",
            [seq, sha, when, said, namespace_id],
        )


def _forget_all(namespace_id: int) -> None:
    """Every index row of the namespace, head and history: a rebuild starts from nothing,
    so text the repository no longer holds (a purge) cannot survive in the index."""
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM retrieval_cue WHERE namespace_id = %s", [namespace_id])
        for table in (
            "retrieval_edge",
            "retrieval_posting",
            "retrieval_term_stat",
            "retrieval_document",
            *HISTORY_TABLES,
        ):
            cursor.execute(f"DELETE FROM {table} WHERE namespace_id = %s", [namespace_id])  # noqa: S608
        cursor.execute(
            "UPDATE retrieval_index_state"
            " SET doc_count = 0, cue_length_total = 0, body_length_total = 0"
            " WHERE namespace_id = %s",
            [namespace_id],
        )


def _apply(
    namespace_id: int,
    changes: list[TreeChange],
    read_blob: Callable[[str], bytes],
    result: IndexResult,
    seq: int,
    *,
    kept: bool = False,
) -> None:
    changes = [c for c in changes if _is_memory_path(c.path)]
    if not changes:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, path, blob_sha FROM retrieval_document"
            " WHERE namespace_id = %s AND path = ANY(%s)",
            [namespace_id, sorted({c.path for c in changes})],
        )
        existing = {path: (doc_id, blob) for doc_id, path, blob in cursor.fetchall()}

    remove: list[int] = []
    new_docs: list[tuple[str, str, Memory]] = []
    for change in changes:
        old = existing.get(change.path)
        if change.kind == "delete":
            if old:
                remove.append(old[0])
                result.deleted += 1
            continue
        if old and old[1] == change.new_blob:
            continue  # already indexed from this very blob
        try:
            memory = parse_memory(read_blob(change.new_blob), path=change.path)
        except InvalidMemory as exc:
            # An unparseable file is not retrievable; it must not block the others.
            logger.warning("not indexing %s: %s", change.path, exc.message)
            result.skipped.append(change.path)
            memory = None
        if old:
            remove.append(old[0])
        if memory is None:
            if old:
                result.deleted += 1
            continue
        if old:
            result.modified += 1
        else:
            result.added += 1
        new_docs.append((change.path, change.new_blob, memory))

    vectors = _vectors_for(namespace_id, new_docs, result, kept=kept)
    if remove:
        _remove_documents(namespace_id, remove, seq)
    if new_docs:
        _insert_documents(namespace_id, new_docs, vectors, seq)


def _is_memory_path(path: str) -> bool:
    # Other files (a README someone committed by hand) are not memories.
    try:
        validate_memory_path(path)
    except InvalidInput:
        return False
    return True


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


_KNOWN_VECTORS = """
SELECT DISTINCT ON (cue) cue, embedding::text FROM (
    SELECT cue, embedding FROM retrieval_cue WHERE namespace_id = %(ns)s AND cue = ANY(%(cues)s)
    UNION ALL
    SELECT cue, embedding FROM retrieval_cue_history
    WHERE namespace_id = %(ns)s AND cue = ANY(%(cues)s)
) known
"""
_KNOWN_VECTORS_KEPT = """
SELECT DISTINCT ON (cue) cue, embedding::text FROM (
    SELECT cue, embedding FROM retrieval_cue WHERE namespace_id = %(ns)s AND cue = ANY(%(cues)s)
    UNION ALL
    SELECT cue, embedding FROM retrieval_cue_history
    WHERE namespace_id = %(ns)s AND cue = ANY(%(cues)s)
    UNION ALL
    SELECT cue, embedding FROM retrieval_kept_vectors WHERE cue = ANY(%(cues)s)
) known
"""


def _keep_vectors(namespace_id: int) -> None:
    """The namespace's vectors by cue text, for the rebuild that is about to delete its
    rows: a transaction-local table of this session, dropped when the rebuild ends."""
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE IF EXISTS pg_temp.retrieval_kept_vectors")
        cursor.execute(
            "CREATE TEMP TABLE retrieval_kept_vectors ON COMMIT DROP AS"
            " SELECT DISTINCT ON (cue) cue, embedding FROM ("
            " SELECT cue, embedding FROM retrieval_cue WHERE namespace_id = %(ns)s"
            " UNION ALL SELECT cue, embedding FROM retrieval_cue_history"
            " WHERE namespace_id = %(ns)s) known",
            {"ns": namespace_id},
        )
        cursor.execute("CREATE INDEX ON retrieval_kept_vectors (cue)")


def _vectors_for(
    namespace_id: int,
    new_docs: list[tuple[str, str, Memory]],
    result: IndexResult,
    *,
    kept: bool = False,
) -> dict[str, str]:
    """cue text -> pgvector literal, reusing the namespace's vectors before embedding
    (``kept``: also those a rebuild kept aside, ``_keep_vectors``).

    Read before the old rows are deleted, so a rewritten memory keeps its cues' vectors.
    """
    wanted = _unique(cue for _, _, memory in new_docs for cue in memory.cues)
    if not wanted:
        return {}
    vectors: dict[str, str] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(wanted), BATCH):
            cursor.execute(
                _KNOWN_VECTORS_KEPT if kept else _KNOWN_VECTORS,
                {"ns": namespace_id, "cues": wanted[start : start + BATCH]},
            )
            vectors.update(cursor.fetchall())
    missing = [cue for cue in wanted if cue not in vectors]
    result.reused += len(wanted) - len(missing)
    result.embedded += len(missing)
    for cue, vector in zip(missing, embed_texts(missing), strict=True):
        vectors[cue] = vector_literal(vector)
    return vectors


def _remove_documents(namespace_id: int, ids: list[int], seq: int) -> None:
    with connection.cursor() as cursor:
        # Their rows go to history first, valid until this commit; so do the term
        # statistics this removal changes (_ARCHIVE_TERM_STATS).
        args = {"ns": namespace_id, "ids": ids, "seq": seq}
        for statement in _ARCHIVE_DOCUMENTS:
            cursor.execute(statement, args)
        cursor.execute(_ARCHIVE_TERM_STATS, args)
        # Take the documents' terms out of the BM25 statistics first: a term whose last
        # document goes is deleted (df stays > 0), the rest are decremented.
        cursor.execute(_DROP_TERM_STATS, args)
        cursor.execute(_DECREMENT_TERM_STATS, args)
        cursor.execute(_SUBTRACT_STATE, args)
        cursor.execute(
            "DELETE FROM retrieval_cue WHERE namespace_id = %s AND document_id = ANY(%s)",
            [namespace_id, ids],
        )
        cursor.execute(
            "DELETE FROM retrieval_posting WHERE namespace_id = %s AND document_id = ANY(%s)",
            [namespace_id, ids],
        )
        cursor.execute(
            "DELETE FROM retrieval_edge WHERE namespace_id = %s AND src_document_id = ANY(%s)",
            [namespace_id, ids],
        )
        # Links into a removed memory wait, unresolved, for a memory at that path.
        cursor.execute(
            "UPDATE retrieval_edge SET dst_document_id = NULL"
            " WHERE namespace_id = %s AND dst_document_id = ANY(%s)",
            [namespace_id, ids],
        )
        cursor.execute(
            "DELETE FROM retrieval_document WHERE namespace_id = %s AND id = ANY(%s)",
            [namespace_id, ids],
        )


# The documents' terms leave the BM25 statistics before their postings go: a term
# whose last document goes is deleted (df stays > 0), the rest are decremented.
_DROP_TERM_STATS = """
WITH gone AS (
    SELECT term, count(*) AS n FROM retrieval_posting
    WHERE namespace_id = %(ns)s AND document_id = ANY(%(ids)s) GROUP BY term
)
DELETE FROM retrieval_term_stat t USING gone
WHERE t.namespace_id = %(ns)s AND t.term = gone.term AND t.df <= gone.n
"""
_DECREMENT_TERM_STATS = """
WITH gone AS (
    SELECT term, count(*) AS n FROM retrieval_posting
    WHERE namespace_id = %(ns)s AND document_id = ANY(%(ids)s) GROUP BY term
)
UPDATE retrieval_term_stat t SET df = t.df - gone.n, from_seq = %(seq)s FROM gone
WHERE t.namespace_id = %(ns)s AND t.term = gone.term
"""

# History: rows that leave the head at commit %(seq)s, valid [from_seq, seq). A row made
# at this very commit was never visible at any commit and is not kept.
_DOCUMENT_COLUMNS = (
    "id, namespace_id, path, blob_sha, tier, tags, cues, created, updated, confidence,"
    " sources, related, body, cue_length, body_length, from_seq"
)
_ARCHIVE_DOCUMENTS = (
    f"""INSERT INTO retrieval_document_history ({_DOCUMENT_COLUMNS}, to_seq)
SELECT {_DOCUMENT_COLUMNS}, %(seq)s FROM retrieval_document
WHERE namespace_id = %(ns)s AND id = ANY(%(ids)s) AND from_seq < %(seq)s""",  # noqa: S608
    """INSERT INTO retrieval_posting_history (namespace_id, term, document_id, tf_cues, tf_body,
    cue_length, body_length, impact, sig_a, sig_b, from_seq, to_seq)
SELECT namespace_id, term, document_id, tf_cues, tf_body, cue_length, body_length, impact,
       sig_a, sig_b, from_seq, %(seq)s
FROM retrieval_posting
WHERE namespace_id = %(ns)s AND document_id = ANY(%(ids)s) AND from_seq < %(seq)s""",
    """INSERT INTO retrieval_cue_history (namespace_id, document_id, cue, tier, tags, embedding,
    from_seq, to_seq)
SELECT namespace_id, document_id, cue, tier, tags, embedding, from_seq, %(seq)s
FROM retrieval_cue
WHERE namespace_id = %(ns)s AND document_id = ANY(%(ids)s) AND from_seq < %(seq)s""",
    """INSERT INTO retrieval_edge_history (namespace_id, src_document_id, src_path, dst_path,
    type, from_seq, to_seq)
SELECT namespace_id, src_document_id, src_path, dst_path, type, from_seq, %(seq)s
FROM retrieval_edge
WHERE namespace_id = %(ns)s AND src_document_id = ANY(%(ids)s) AND from_seq < %(seq)s""",
)
# A term's document frequency before this commit changes it (its documents leave, or
# new ones arrive), valid until this commit; the head row then starts at this commit.
_ARCHIVE_TERM_STATS = """
INSERT INTO retrieval_term_stat_history (namespace_id, term, df, from_seq, to_seq)
SELECT t.namespace_id, t.term, t.df, t.from_seq, %(seq)s
FROM retrieval_term_stat t
WHERE t.namespace_id = %(ns)s AND t.from_seq < %(seq)s
  AND t.term IN (SELECT term FROM retrieval_posting
                 WHERE namespace_id = %(ns)s AND document_id = ANY(%(ids)s))
"""


def document_terms_sql(*, cue_text: str, body: str) -> str:
    """How a document's text becomes what BM25 reads: two ``CROSS JOIN LATERAL`` clauses
    over the SQL expressions ``cue_text`` and ``body`` that give its weighted tsvector
    (``v.tsv``: cues weight A, body weight B) and its lengths in terms (``lengths.cues``,
    ``lengths.body``). The indexer's INSERT uses it, and so does ``bench_retrieve``'s
    bulk load, so both build documents the same way."""
    cue_text = f"translate({cue_text}, {_INVISIBLE_SQL}, '')"
    body = f"translate({body}, {_INVISIBLE_SQL}, '')"
    return f"""CROSS JOIN LATERAL (
    SELECT setweight(to_tsvector('{TEXT_SEARCH_CONFIG}', {cue_text}), 'A')
        || setweight(to_tsvector('{TEXT_SEARCH_CONFIG}', {body}), 'B') AS tsv
) v
CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE w.weight = 'A') AS cues,
           count(*) FILTER (WHERE w.weight = 'B') AS body
    FROM unnest(v.tsv) AS u, unnest(u.weights) AS w(weight)
) lengths"""  # noqa: S608 - the callers pass constant SQL expressions


_INSERT_DOCUMENTS = f"""
INSERT INTO retrieval_document (
    namespace_id, path, blob_sha, tier, tags, cues, created, updated, confidence,
    sources, related, body, tsv, cue_length, body_length, from_seq
)
SELECT %(ns)s, r.path, r.blob_sha, r.tier,
       ARRAY(SELECT jsonb_array_elements_text(r.tags)),
       ARRAY(SELECT jsonb_array_elements_text(r.cues)),
       r.created, r.updated, r.confidence,
       ARRAY(SELECT jsonb_array_elements_text(r.sources)),
       r.related, r.body, v.tsv, lengths.cues, lengths.body, %(seq)s
FROM jsonb_to_recordset(%(docs)s::jsonb) AS r(
    path text, blob_sha text, tier text, tags jsonb, cues jsonb, created timestamptz,
    updated timestamptz, confidence float8, sources jsonb, related jsonb, body text,
    cue_text text
)
{document_terms_sql(cue_text="r.cue_text", body="r.body")}
RETURNING id
"""  # noqa: S608 - only constant SQL is interpolated

# Each posting also carries its document's term signature (migration 0011): one bit per
# term in each of sig_a and sig_b, from retrieval_term_hash, over all the document's terms.
_INSERT_POSTINGS = """
INSERT INTO retrieval_posting (
    namespace_id, term, document_id, tf_cues, tf_body, cue_length, body_length, from_seq,
    sig_a, sig_b
)
SELECT namespace_id, term, id, tf_cues, tf_body, cue_length, body_length, from_seq,
       bit_or(1::int8 << (hash & 63)::int) OVER (PARTITION BY id),
       bit_or(1::int8 << ((hash >> 6) & 63)::int) OVER (PARTITION BY id)
FROM (
    SELECT d.namespace_id, u.lexeme AS term, d.id,
           count(*) FILTER (WHERE w.weight = 'A') AS tf_cues,
           count(*) FILTER (WHERE w.weight = 'B') AS tf_body,
           d.cue_length, d.body_length, d.from_seq, retrieval_term_hash(u.lexeme) AS hash
    FROM retrieval_document d
    CROSS JOIN LATERAL unnest(d.tsv) AS u
    CROSS JOIN LATERAL unnest(u.weights) AS w(weight)
    WHERE d.namespace_id = %(ns)s AND d.id = ANY(%(ids)s)
    GROUP BY d.namespace_id, u.lexeme, d.id, d.cue_length, d.body_length, d.from_seq
) terms
"""

_ADD_TERM_STATS = """
INSERT INTO retrieval_term_stat (namespace_id, term, df, from_seq)
SELECT namespace_id, term, count(*), %(seq)s FROM retrieval_posting
WHERE namespace_id = %(ns)s AND document_id = ANY(%(ids)s)
GROUP BY namespace_id, term
ON CONFLICT (namespace_id, term) DO UPDATE
SET df = retrieval_term_stat.df + EXCLUDED.df, from_seq = EXCLUDED.from_seq
"""

_ADD_STATE = """
UPDATE retrieval_index_state s
SET doc_count = s.doc_count + g.n,
    cue_length_total = s.cue_length_total + g.cues,
    body_length_total = s.body_length_total + g.body
FROM (SELECT count(*) AS n, coalesce(sum(cue_length), 0) AS cues,
             coalesce(sum(body_length), 0) AS body
      FROM retrieval_document WHERE namespace_id = %(ns)s AND id = ANY(%(ids)s)) g
WHERE s.namespace_id = %(ns)s
"""
_SUBTRACT_STATE = """
UPDATE retrieval_index_state s
SET doc_count = s.doc_count - g.n,
    cue_length_total = s.cue_length_total - g.cues,
    body_length_total = s.body_length_total - g.body
FROM (SELECT count(*) AS n, coalesce(sum(cue_length), 0) AS cues,
             coalesce(sum(body_length), 0) AS body
      FROM retrieval_document WHERE namespace_id = %(ns)s AND id = ANY(%(ids)s)) g
WHERE s.namespace_id = %(ns)s
"""

_INSERT_CUES = """
INSERT INTO retrieval_cue (namespace_id, document_id, cue, tier, tags, embedding, from_seq)
SELECT %(ns)s, d.id, r.cue, d.tier, d.tags, r.embedding::vector, d.from_seq
FROM jsonb_to_recordset(%(cues)s::jsonb) AS r(path text, cue text, embedding text)
JOIN retrieval_document d ON d.namespace_id = %(ns)s AND d.path = r.path
"""

_INSERT_EDGES = """
INSERT INTO retrieval_edge (
    namespace_id, src_document_id, src_path, dst_path, dst_document_id, type, from_seq
)
SELECT DISTINCT %(ns)s, d.id, d.path, r.dst_path, target.id, r.type, d.from_seq
FROM jsonb_to_recordset(%(edges)s::jsonb) AS r(path text, dst_path text, type text)
JOIN retrieval_document d ON d.namespace_id = %(ns)s AND d.path = r.path
LEFT JOIN retrieval_document target
  ON target.namespace_id = %(ns)s AND target.path = r.dst_path
"""

# Links already in the index that point at a path a new memory now occupies.
_RESOLVE_EDGES = """
UPDATE retrieval_edge e SET dst_document_id = d.id
FROM retrieval_document d
WHERE e.namespace_id = %(ns)s AND d.namespace_id = %(ns)s AND d.id = ANY(%(ids)s)
  AND e.dst_path = d.path AND e.dst_document_id IS DISTINCT FROM d.id
"""


def derive_postings(*, namespace_id: int, document_ids: list[int], seq: int = 0) -> None:
    """Build the BM25 side of documents already in ``retrieval_document``: their postings,
    the namespace's term statistics and the index state's totals. Runs in the caller's
    namespace scope. The indexer calls it for every batch it inserts, with the number
    of the commit being applied (term statistics it changes go to history first);
    ``bench_retrieve`` for the documents it loads in bulk (no history: seq 0)."""
    args = {"ns": namespace_id, "ids": document_ids, "seq": seq}
    with connection.cursor() as cursor:
        cursor.execute(_INSERT_POSTINGS, args)
        if seq:
            cursor.execute(_ARCHIVE_TERM_STATS, args)
        cursor.execute(_ADD_TERM_STATS, args)
        cursor.execute(_ADD_STATE, args)


def _insert_documents(
    namespace_id: int, new_docs: list[tuple[str, str, Memory]], vectors: dict[str, str], seq: int
) -> None:
    with connection.cursor() as cursor:
        for start in range(0, len(new_docs), BATCH):
            batch = new_docs[start : start + BATCH]
            docs = [
                {
                    "path": path,
                    "blob_sha": blob,
                    "tier": memory.tier,
                    "tags": _unique(memory.tags),
                    "cues": memory.cues,
                    "created": memory.created.isoformat(),
                    "updated": memory.updated.isoformat(),
                    "confidence": memory.confidence,
                    "sources": memory.sources,
                    "related": [{"type": link.type, "path": link.path} for link in memory.related],
                    "body": memory.body,
                    "cue_text": "\n".join(memory.cues),
                }
                for path, blob, memory in batch
            ]
            args = {"ns": namespace_id, "docs": json.dumps(docs), "seq": seq}
            cursor.execute(_INSERT_DOCUMENTS, args)
            ids = [row[0] for row in cursor.fetchall()]
            derive_postings(namespace_id=namespace_id, document_ids=ids, seq=seq)
            cues = [
                {"path": path, "cue": cue, "embedding": vectors[cue]}
                for path, _, memory in batch
                for cue in _unique(memory.cues)
            ]
            cursor.execute(_INSERT_CUES, {"ns": namespace_id, "cues": json.dumps(cues)})
            edges = [
                {"path": path, "dst_path": link.path, "type": link.type}
                for path, _, memory in batch
                for link in memory.related
            ]
            if edges:
                cursor.execute(_INSERT_EDGES, {"ns": namespace_id, "edges": json.dumps(edges)})
            cursor.execute(_RESOLVE_EDGES, {"ns": namespace_id, "ids": ids})
