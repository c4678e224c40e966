"""Row-level security: a query that forgets its namespace filter still sees one namespace."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from retrieval.models import INDEX_TABLES
from retrieval.scope import namespace_scope
from tests.retrieval.helpers import memory, write


@pytest.fixture
def two_namespaces(notes, other_notes):
    write(
        notes,
        {
            "facts/a/one-00000001.md": memory(
                cues=["alpha cue", "beta cue"],
                body="Alpha.",
                related={"facts/a/two-00000002.md": "see"},
            ),
            "facts/a/two-00000002.md": memory(cues=["gamma cue"], body="Gamma gamma."),
        },
    )
    write(
        other_notes,
        {
            "facts/b/three-00000003.md": memory(
                cues=["delta cue"], body="Delta.", related={"facts/b/four-00000004.md": "see"}
            ),
            "facts/b/four-00000004.md": memory(cues=["epsilon cue"], body="Epsilon."),
            "facts/b/five-00000005.md": memory(cues=["zeta cue"], body="Zeta."),
        },
    )
    return notes, other_notes


def unfiltered_counts() -> dict[str, int]:
    counts = {}
    with connection.cursor() as cursor:
        for table in INDEX_TABLES:
            cursor.execute(f"SELECT count(*) FROM {table}")  # no WHERE, on purpose
            counts[table] = cursor.fetchone()[0]
    return counts


def test_the_service_role_cannot_bypass_row_level_security(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False, False)
        cursor.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class"
            " WHERE relname = ANY(%s) ORDER BY relname",
            [list(INDEX_TABLES)],
        )
        assert cursor.fetchall() == [(table, True, True) for table in sorted(INDEX_TABLES)]


def test_a_query_without_where_sees_only_the_scoped_namespace(two_namespaces):
    notes, other_notes = two_namespaces
    with namespace_scope(notes):
        mine = unfiltered_counts()
    with namespace_scope(other_notes):
        theirs = unfiltered_counts()
    # Postings are (term, memory) pairs: one {alpha, beta, cue} + two {gamma, cue} here,
    # three {delta, cue} + four {epsilon, cue} + five {zeta, cue} there. Terms: alpha,
    # beta, gamma, cue here; delta, epsilon, zeta, cue there ("cue" is in both, and
    # counted once in each). A leak would show the sum of the two namespaces.
    assert mine == {
        "retrieval_edge": 1,
        "retrieval_posting": 5,
        "retrieval_term_stat": 4,
        "retrieval_cue": 3,
        "retrieval_document": 2,
        "retrieval_index_state": 1,
    }
    assert theirs == {
        "retrieval_edge": 1,
        "retrieval_posting": 6,
        "retrieval_term_stat": 4,
        "retrieval_cue": 3,
        "retrieval_document": 3,
        "retrieval_index_state": 1,
    }
    with namespace_scope(notes), connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT namespace_id FROM retrieval_document")
        assert cursor.fetchall() == [(notes.pk,)]
        # Naming the other namespace explicitly does not help either.
        cursor.execute(
            "SELECT count(*) FROM retrieval_cue WHERE namespace_id = %s", [other_notes.pk]
        )
        assert cursor.fetchone()[0] == 0
        cursor.execute(f"SELECT count(*) FROM retrieval_cue_ns_{other_notes.pk}")
        assert cursor.fetchone()[0] == 0


def test_outside_any_scope_nothing_is_visible(two_namespaces):
    assert set(unfiltered_counts().values()) == {0}
    # ...also on a connection that has been scoped before (the setting reads '' then).
    with namespace_scope(two_namespaces[0]):
        pass
    assert set(unfiltered_counts().values()) == {0}


def test_rows_cannot_be_written_into_another_namespace(two_namespaces):
    notes, other_notes = two_namespaces
    with (
        pytest.raises(Exception, match="row-level security"),
        namespace_scope(notes),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            "INSERT INTO retrieval_term_stat (namespace_id, term, df) VALUES (%s, 'x', 1)",
            [other_notes.pk],
        )
    with namespace_scope(notes), connection.cursor() as cursor:
        cursor.execute("DELETE FROM retrieval_document")  # every row it can see
    with namespace_scope(other_notes):
        assert unfiltered_counts()["retrieval_document"] == 3


def test_nesting_a_scope_for_another_namespace_is_refused(two_namespaces):
    notes, other_notes = two_namespaces
    with (
        transaction.atomic(),
        pytest.raises(RuntimeError),
        namespace_scope(notes),
        namespace_scope(other_notes),
    ):
        pass


def test_the_one_message_scope_sees_one_namespace_and_ends_with_its_statement(
    transactional_db, two_namespaces
):
    from retrieval.scope import scoped_query

    notes, other_notes = two_namespaces
    assert not connection.in_atomic_block  # the single-round-trip path
    for namespace, expected in ((notes, 2), (other_notes, 3)):
        columns, rows = scoped_query(
            namespace=namespace,
            sql="SELECT count(*) AS n, current_setting('hnsw.ef_search') AS ef"
            " FROM retrieval_document WHERE %(anything)s",
            params={"anything": True},
            settings={"hnsw.ef_search": "77"},
        )
        assert columns == ["n", "ef"] and rows == [(expected, "77")]
    assert set(unfiltered_counts().values()) == {0}
