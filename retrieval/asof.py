"""Retrieval as of a past commit: which commit a request means, and the statement that
reads the index as it was then.

The index keeps every indexed version (``migrations/0008_index_history``): head rows
with the commit that made them (``from_seq``), replaced rows in ``*_history`` tables
with the commits they were at the head, ``[from_seq, to_seq)``, and every indexed
commit in ``retrieval_commit`` with its number in the namespace's sequence (``seq``),
time and BM25 totals. The ``retrieval_asof_*`` views show what was at the head at the
commit numbered by the transaction-local setting ``gitloom.as_of_seq``.

The as-of statement is the head statement (``retrieve.sql``) with its tables renamed to
those views (:func:`as_of_statement`; the cue vectors are the one exception, a union
written into the statement with the namespace's partition by name, so that the statement
is prepared per namespace on a generic plan like the head's, and ``retrieval_asof_cue``
is left for ad-hoc reading), so both are one fused query with the same arms,
weights and fusion, and BM25 reads that commit's own statistics (document count and
lengths from its ``retrieval_commit`` row, document frequencies from the term
statistics valid then). Two things differ, both for reproducibility: the semantic arm
is an exact nearest-neighbour scan (an HNSW graph changes as later cues are inserted,
and with it an approximate answer), ordered with a tie-break; and ageing is measured
to the commit's time, not to the time of the request. The same query and commit then
give the same results whatever is written later.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from django.utils.dateparse import parse_datetime

from namespaces.models import ReplacedCommit
from namespaces.selectors import commit_check
from retrieval.errors import AmbiguousCommit, AsOfBeforeHistory, AsOfNotFound, InvalidAsOf
from retrieval.scope import scoped_query

SETTING = "gitloom.as_of_seq"
MIN_SHA_PREFIX = 7
MAX_AS_OF_CHARS = 100  # longer is no commit id nor time: invalid_as_of, like any other
_SHA = re.compile(rf"[0-9a-f]{{{MIN_SHA_PREFIX},40}}")


# Which of a commit's two times a time in ``as_of`` is compared with: when the commit was
# stored (its committer date), or when what it records was said (its author date: a
# job's latest message timestamp, so a backfilled conversation sits where it was said).
AS_OF_BY = ("stored", "said")


@dataclass(frozen=True)
class AsOf:
    """The commit a request reads: its id, times (stored; said) and number in the
    namespace's sequence, and which time the request chose it by."""

    commit: str
    time: datetime
    seq: int
    said: datetime | None = None
    by: str = "stored"

    @property
    def clock(self) -> datetime:
        """The moment the answer stands at, to which ageing is counted."""
        return self.said if self.by == "said" and self.said is not None else self.time


# Postgres's (and ISO 8601's practical) limit on a UTC offset: +-15:59.
_MAX_OFFSET = timedelta(hours=16)


def parse_as_of(value: str) -> str | datetime:
    """A commit id (7-40 hex digits, a unique prefix) or an ISO-8601 time in the extended
    format (``2026-07-31``, ``2026-07-31T09:12:00Z``; without an offset it is UTC).
    Anything else is ``400 invalid_as_of``. A string of digits alone is a commit id."""
    text = value.strip() if isinstance(value, str) and len(value) <= MAX_AS_OF_CHARS else ""
    if _SHA.fullmatch(text.lower()):
        return text.lower()
    when = None
    if "-" in text:
        try:
            when = parse_datetime(text)
            if when is None:  # a date alone
                when = datetime.fromisoformat(text)
        except ValueError:
            when = None
    if when is not None:
        # In UTC: Postgres refuses an offset past +-15:59 (a 500 before), and a time
        # whose UTC is past year 9999 or before year 1 is no time at all.
        offset = when.utcoffset()
        try:
            if offset is not None and abs(offset) >= _MAX_OFFSET:
                when = None
            else:
                when = when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)
        except (OverflowError, ValueError):
            when = None
    if when is None:
        raise InvalidAsOf(
            "as_of must be a commit id (7 to 40 hex digits) or an ISO-8601 time, "
            "e.g. 2026-07-31T09:12:00Z."
        )
    return when


def as_of_resolve(*, namespace, value: str, by: str = "stored") -> AsOf:
    """The indexed commit ``value`` names in ``namespace``: a commit id (or unique
    prefix) in its indexed history, or for a time the last commit made at or before it
    (the highest-numbered one, should imported history carry times out of order).

    ``by`` says which time of a commit a time is compared with: ``stored`` (when it was
    committed) or ``said`` (when its conversation was said). History is one line, so the
    commit found holds what every earlier commit wrote, even one said later (a backfill
    posted after live writes). ``by`` does not change what a commit id names."""
    if by not in AS_OF_BY:
        raise InvalidAsOf("as_of_by must be stored or said.")
    wanted = parse_as_of(value)
    ns = int(namespace.pk)
    if isinstance(wanted, str):
        _, rows = scoped_query(
            namespace=namespace,
            sql="SELECT sha, committed, seq, said FROM retrieval_commit"
            " WHERE namespace_id = %(ns)s"
            " AND sha >= %(low)s AND sha < %(high)s ORDER BY seq LIMIT 2",
            params={"ns": ns, "low": wanted, "high": wanted + "g"},
        )
        if len(rows) > 1:
            raise AmbiguousCommit(
                f"{wanted} is the start of more than one commit; give more digits."
            )
        if not rows:
            _purged(namespace, wanted)
            raise AsOfNotFound(
                f"No commit {wanted} in this namespace's indexed history "
                "(see GET /v1/memories/<path>/history for commit ids)."
            )
    else:
        # One round trip: the commit, or else the earliest time of that kind. The column
        # is one of two names, never the caller's text.
        column = "said" if by == "said" else "committed"
        _, rows = scoped_query(
            namespace=namespace,
            sql="SELECT sha, committed, seq, said FROM ("  # noqa: S608 (column: one of two names)
            " (SELECT sha, committed, seq, said FROM retrieval_commit"
            f"  WHERE namespace_id = %(ns)s AND {column} <= %(when)s ORDER BY seq DESC LIMIT 1)"
            " UNION ALL"
            f" (SELECT NULL, {column}, NULL, NULL FROM retrieval_commit"
            f"  WHERE namespace_id = %(ns)s ORDER BY {column} LIMIT 1))"
            " found ORDER BY seq NULLS LAST LIMIT 1",
            params={"ns": ns, "when": wanted},
        )
        if not rows or rows[0][0] is None:
            first = rows[0][1] if rows else None
            what = (
                "anything in this namespace was said"
                if by == "said"
                else ("this namespace's first commit")
            )
            raise AsOfBeforeHistory(
                f"{wanted.isoformat()} is before {what}"
                + (f" ({first.astimezone(UTC).isoformat()})." if first else ".")
                + (
                    ""
                    if by == "said"
                    else " To search by when conversations were said, not stored,"
                    " add as_of_by=said."
                )
            )
    sha, committed, seq, said = rows[0]
    return AsOf(commit=sha, time=committed, seq=seq, said=said, by=by)


def as_of_half_applied(*, namespace) -> tuple[str | None, bool, AsOf | None]:
    """``(indexed commit, half applied, AsOf of the indexed commit)``: whether a commit
    is being applied in steps (a large import, ``retrieval.indexer``), when the head
    tables hold part of it and the index as of the indexed commit is the consistent
    one (``None`` when no commit was indexed in full yet: nothing is)."""
    _, rows = scoped_query(
        namespace=namespace,
        sql="SELECT s.indexed_commit, s.applying_commit <> '', c.sha, c.committed, c.seq,"
        " c.said"
        " FROM retrieval_index_state s LEFT JOIN retrieval_commit c"
        "  ON c.namespace_id = s.namespace_id AND c.seq = s.indexed_seq"
        " WHERE s.namespace_id = %(ns)s",
        params={"ns": int(namespace.pk)},
    )
    if not rows:
        return None, False, None
    indexed, half, sha, committed, seq, said = rows[0]
    consistent = AsOf(commit=sha, time=committed, seq=seq, said=said) if sha else None
    return indexed or None, half, consistent


def _purged(namespace, wanted: str) -> None:
    """``410 commit_purged`` if ``wanted`` (an id or a unique prefix of one) names a
    commit a purge rewrote: its index rows were rebuilt under the new ids."""
    replaced = list(
        ReplacedCommit.objects.filter(namespace=namespace, old__startswith=wanted).values_list(
            "old", flat=True
        )[:2]
    )
    if len(replaced) == 1:
        commit_check(namespace=namespace, commit=replaced[0])


# The head statement's tables and the views that show them as of a commit.
_VIEWS = {
    "retrieval_index_state": "retrieval_asof_index_state",
    "retrieval_term_stat": "retrieval_asof_term_stat",
    "retrieval_posting": "retrieval_asof_posting",
    "retrieval_document": "retrieval_asof_document",
    "retrieval_edge": "retrieval_asof_edge",
}
_TABLE = re.compile(r"\b(" + "|".join(_VIEWS) + r")\b")
# The cue vectors valid then: the namespace's own partition (named, as in the head
# statement, so a prepared generic plan reads that partition alone) and its history.
# The range is checked outside the union so that both halves stay plain scans
# (migration 0009 says why).
_CUES = (
    "(SELECT namespace_id, document_id, cue, tier, tags, embedding FROM ("
    " SELECT namespace_id, document_id, cue, tier, tags, embedding, from_seq,"
    " 2147483647 AS to_seq FROM __cue_partition__"
    " UNION ALL"
    " SELECT namespace_id, document_id, cue, tier, tags, embedding, from_seq, to_seq"
    " FROM retrieval_cue_history) versions"
    " WHERE from_seq <= (SELECT NULLIF(current_setting('gitloom.as_of_seq', true), '')::integer)"
    " AND to_seq > (SELECT NULLIF(current_setting('gitloom.as_of_seq', true), '')::integer))"
)
_NEAREST = "ORDER BY distance\nLIMIT __semantic_cues__"
# Exact (no index serves `distance + 0`), with a tie-break: cues with the same text have
# the same vector, and which of them a LIMIT keeps must not depend on row order.
_NEAREST_EXACT = "ORDER BY distance + 0, document_id, cue\nLIMIT __semantic_cues__"


# A head table the renaming missed (say retrieve.sql came to read retrieval_cue itself).
_HEAD_TABLE = re.compile(r"\bretrieval_(cue|edge|document|posting|term_stat|index_state)\b")


@lru_cache(maxsize=4)
def as_of_statement(sql: str) -> str:
    """The head statement (``retrieve.sql`` before its placeholders are filled) reading
    the ``retrieval_asof_*`` views instead of the head tables."""
    if _NEAREST not in sql or "__cue_partition__" not in sql:
        raise RuntimeError("retrieve.sql no longer reads nearest cues as retrieval.asof expects")
    text = _TABLE.sub(lambda match: _VIEWS[match.group(1)], sql)
    missed = _HEAD_TABLE.search(text)
    if missed:
        raise RuntimeError(
            f"retrieve.sql reads {missed.group(0)}, which retrieval.asof cannot date"
        )
    text = text.replace("__cue_partition__", _CUES)
    return text.replace(_NEAREST, _NEAREST_EXACT)
