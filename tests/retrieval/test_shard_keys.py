"""What sharding the index by namespace (Citus, docs/SCALING.md) needs of the schema and
of the statements: every key includes ``namespace_id``, no table refers to another by a
foreign key, and every statement the query and the indexer run reads one namespace's
rows, named by an explicit ``namespace_id = <value>`` on every table it scans (the
row-level-security policy's condition does not count: a router cannot prune on it)."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from retrieval.asof import as_of_resolve
from retrieval.embeddings import embed_query
from retrieval.indexer import index_namespace
from retrieval.models import HISTORY_TABLES, INDEX_TABLES, cue_partition
from retrieval.query import fused_search
from retrieval.scope import namespace_scope
from tests.retrieval.helpers import commit, memory, write

KAYAK = "facts/hobbies/kayak-0000aaaa.md"
RIVER = "events/hobbies/river-trip-0000cccc.md"
PASTA = "preferences/food/pasta-0000bbbb.md"

# A scan node of the plan, the relation (or index) it names.
_SCAN = re.compile(r"Scan (?:Backward )?(?:using \S+ )?on (retrieval_\w+)")
# An explicit condition on the namespace: a constant or a parameter, not the policy's
# current_setting() expression.
_OWN_NAMESPACE = re.compile(r"namespace_id = (?:'?\d+'?(?:::bigint)?\b|\$\d+)")
# Session-local tables the indexer makes from one namespace's rows (a rebuild's kept
# vectors): not index tables.
_TEMPORARY = {"retrieval_kept_vectors"}


def index_relations() -> list[str]:
    """Every permanent table of the retrieval app (partitions included), by name."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c"
            " WHERE c.relname LIKE 'retrieval\\_%%' AND c.relkind IN ('r', 'p')"
            " AND c.relpersistence = 'p' AND c.relnamespace = 'public'::regnamespace"
            " ORDER BY 1"
        )
        return [row[0] for row in cursor.fetchall()]


def test_every_key_of_every_index_table_includes_namespace_id(notes, other_notes):
    relations = index_relations()
    assert set(INDEX_TABLES) | set(HISTORY_TABLES) <= set(relations)
    assert {cue_partition(notes.pk), cue_partition(other_notes.pk)} <= set(relations)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c WHERE c.relname = ANY(%s) AND NOT EXISTS ("
            " SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid"
            " AND a.attname = 'namespace_id' AND NOT a.attisdropped)",
            [relations],
        )
        assert cursor.fetchall() == []
        # Primary keys, unique constraints and unique (or exclusion) indexes: the
        # column must be one of the index's key columns, not an INCLUDEd one.
        cursor.execute(
            "SELECT t.relname, i.relname,"
            " ARRAY(SELECT a.attname FROM unnest(x.indkey[0:x.indnkeyatts - 1]) k(attnum)"
            "       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum)"
            " FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid"
            " JOIN pg_class i ON i.oid = x.indexrelid"
            " WHERE t.relname = ANY(%s) AND (x.indisunique OR x.indisexclusion)"
            " ORDER BY 1, 2",
            [relations],
        )
        keys = cursor.fetchall()
        assert {table for table, _, _ in keys} >= set(INDEX_TABLES) | set(HISTORY_TABLES)
        assert [(t, i, cols) for t, i, cols in keys if "namespace_id" not in cols] == []
        # No foreign keys at all: none to cross a shard, none to another namespace.
        cursor.execute(
            "SELECT conrelid::regclass::text, conname FROM pg_constraint"
            " WHERE contype = 'f' AND (conrelid::regclass::text = ANY(%(r)s)"
            "   OR confrelid::regclass::text = ANY(%(r)s))",
            {"r": relations},
        )
        assert cursor.fetchall() == []


def unbounded_scans(plan: str, namespace_id: int) -> list[str]:
    """The plan's scans of index tables that do not name the namespace explicitly, and
    any cue partition but the namespace's own."""
    lines = plan.splitlines()
    wrong = []
    for i, line in enumerate(lines):
        for partition in re.findall(r"retrieval_cue_ns_\d+", line):
            if partition != cue_partition(namespace_id):
                wrong.append(line)
        scan = _SCAN.search(line)
        if not scan or scan.group(1) in _TEMPORARY:
            continue
        details = [line]
        for follow in lines[i + 1 :]:
            if "->" in follow:
                break
            details.append(follow)
        # The namespace's own cue partition holds only its rows (its CHECK constraint).
        if cue_partition(namespace_id) in line:
            continue
        if not any(_OWN_NAMESPACE.search(d) for d in details):
            wrong.append("\n".join(details))
    return wrong


@pytest.fixture
def linked(notes, other_notes):
    write(
        other_notes,
        {KAYAK: memory(cues=["what boat do I paddle"], body="Paddles a red canoe.")},
    )
    write(
        notes,
        {
            KAYAK: memory(cues=["what boat do I paddle"], body="Paddles a green sea kayak."),
            RIVER: memory(
                tier="events",
                cues=["kayak trip on the river"],
                body="Took the kayak down the Kaveri in March.",
                related={KAYAK: "used", PASTA: "ate"},
            ),
        },
    )
    return notes


@pytest.mark.parametrize("arms", [("lexical", "semantic", "graph"), ("lexical",)])
def test_the_fused_statement_names_its_namespace_on_every_scan(db, linked, arms):
    query = "kayak boat river"
    embedding = embed_query(query) if "semantic" in arms else None
    plan = fused_search(
        namespace=linked, query=query, embedding=embedding, arms=arms, explain=True
    ).plan
    assert len(_SCAN.findall(plan)) >= 4, plan
    assert unbounded_scans(plan, linked.pk) == [], plan
    filtered = fused_search(
        namespace=linked, query=query, embedding=embedding, arms=arms, tiers=["events"],
        explain=True,
    ).plan  # fmt: skip
    assert unbounded_scans(filtered, linked.pk) == [], filtered


def test_the_as_of_statement_names_its_namespace_on_every_scan(db, linked):
    first = as_of_resolve(namespace=linked, value=index_namespace(namespace=linked).commit)
    write(linked, {KAYAK: None, PASTA: memory(cues=["favourite pasta"], body="Cacio e pepe.")})
    query = "kayak boat pasta"
    plan = fused_search(
        namespace=linked, query=query, embedding=embed_query(query), as_of=first, explain=True
    ).plan
    assert "retrieval_document_history" in plan, plan
    assert unbounded_scans(plan, linked.pk) == [], plan


def test_the_indexers_statements_name_their_namespace_on_every_scan(db, linked):
    """Every statement an indexer run makes is explained, just before it runs (in its
    transaction: a rebuild's temporary table exists then), for adds, rewrites,
    deletions, links resolved and unresolved, and a rebuild."""
    plans: list[tuple[str, str]] = []

    def explain_first(execute, sql, params, many, context):
        text = sql.lstrip()
        if (
            "retrieval_" in text
            and re.match(r"(?i)(with|select|insert|update|delete)\b", text)
            and "retrieval_cue_partition_create" not in text
        ):
            raw = context["cursor"].cursor
            raw.execute("EXPLAIN " + sql, params)
            plans.append((sql, "\n".join(row[0] for row in raw.fetchall())))
        return execute(sql, params, many, context)

    steps = [
        {PASTA: memory(tier="preferences", cues=["favourite pasta"], body="Cacio e pepe.")},
        {KAYAK: memory(cues=["what boat do I paddle"], body="Now a white kayak.")},
        {KAYAK: None},
    ]
    with connection.execute_wrapper(explain_first):
        for files in steps:
            commit(linked, files)
            index_namespace(namespace=linked)
        index_namespace(namespace=linked, rebuild=True, reuse_vectors=True)
    statements = {sql for sql, _ in plans}
    for needed in ("retrieval_document_history", "retrieval_posting_history", "retrieval_edge"):
        assert any(needed in sql for sql in statements), needed
    assert len(statements) >= 20
    wrong = [(sql, plan) for sql, plan in plans if unbounded_scans(plan, linked.pk)]
    assert wrong == []


def test_explicit_conditions_are_what_the_check_counts(db, linked):
    """The check above is not satisfied by the row-level-security policy alone."""
    with namespace_scope(linked), connection.cursor() as cursor:
        cursor.execute("EXPLAIN SELECT path FROM retrieval_document WHERE path = 'x'")
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "current_setting" in plan
    assert unbounded_scans(plan, linked.pk) != []
