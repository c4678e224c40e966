"""`manage.py reindex` rebuilds the index from object storage alone, row for row."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from retrieval.scope import namespace_scope
from tests.retrieval.helpers import memory, write

SNAPSHOT_QUERIES = {
    "documents": "SELECT path, blob_sha, tier, tags, cues, created, updated, confidence,"
    " sources, related::text, body, tsv::text, cue_length, body_length FROM retrieval_document ORDER BY path",
    "postings": "SELECT d.path, p.term, p.tf_cues, p.tf_body, p.cue_length, p.body_length,"
    " p.sig_a, p.sig_b"
    " FROM retrieval_posting p"
    " JOIN retrieval_document d ON d.id = p.document_id ORDER BY 1, 2",
    "term_stats": "SELECT term, df FROM retrieval_term_stat ORDER BY term",
    "edges": "SELECT e.src_path, e.dst_path, e.type, d.path FROM retrieval_edge e"
    " LEFT JOIN retrieval_document d ON d.id = e.dst_document_id ORDER BY 1, 2, 3",
    "state": "SELECT indexed_commit, doc_count, cue_length_total, body_length_total"
    " FROM retrieval_index_state",
    "cues": "SELECT d.path, c.cue, c.tier, c.tags FROM retrieval_cue c"
    " JOIN retrieval_document d ON d.id = c.document_id ORDER BY 1, 2",
    "vectors": "SELECT d.path, c.cue, c.embedding::real[] FROM retrieval_cue c"
    " JOIN retrieval_document d ON d.id = c.document_id ORDER BY 1, 2",
}


def snapshot(namespace) -> dict[str, list]:
    out = {}
    with namespace_scope(namespace), connection.cursor() as cursor:
        for name, sql in SNAPSHOT_QUERIES.items():
            cursor.execute(sql)
            out[name] = cursor.fetchall()
    return out


@pytest.fixture
def history(notes):
    """An index built incrementally over several commits: adds, rewrites, deletes."""
    write(
        notes,
        {
            "facts/a/one-00000001.md": memory(
                cues=["first cue", "shared cue"],
                body="One one.",
                related={"facts/a/two-00000002.md": "next"},
            ),
            "facts/a/two-00000002.md": memory(cues=["second cue"], body="Two."),
            "events/b/three-00000003.md": memory(
                tier="events", cues=["third cue", "shared cue"], body="Three.", tags=["x"]
            ),
        },
    )
    write(notes, {"facts/a/two-00000002.md": memory(cues=["second cue"], body="Two, again.")})
    write(notes, {"events/b/three-00000003.md": None})
    write(notes, {"facts/c/four-00000004.md": memory(cues=["fourth cue"], body="Four four.")})
    return notes


def test_reindex_yields_the_same_rows_as_the_incremental_index(history, other_notes):
    write(other_notes, {"facts/z/theirs-00000009.md": memory(cues=["theirs"], body="Theirs.")})
    before, theirs_before = snapshot(history), snapshot(other_notes)
    out = io.StringIO()
    call_command("reindex", "--namespace", "acme/notes", stdout=out)
    assert "acme/notes: 3 memories" in out.getvalue()
    after = snapshot(history)
    vectors_before, vectors_after = before.pop("vectors"), after.pop("vectors")
    assert after == before
    # Vectors are recomputed; the model is deterministic up to float rounding.
    assert [row[:2] for row in vectors_after] == [row[:2] for row in vectors_before]
    for (_, _, old), (_, _, new) in zip(vectors_before, vectors_after, strict=True):
        assert max(abs(a - b) for a, b in zip(old, new, strict=True)) < 1e-5
    assert snapshot(other_notes) == theirs_before  # untouched


def test_reindex_restores_an_index_that_lost_its_rows(api, history):
    with namespace_scope(history), connection.cursor() as cursor:
        cursor.execute("DELETE FROM retrieval_cue")
        cursor.execute("DELETE FROM retrieval_posting")
    assert api.get("/v1/retrieve", {"query": "four", "namespace": "notes"}).json()["results"] == []
    call_command("reindex", stdout=io.StringIO())
    body = api.get("/v1/retrieve", {"query": "four", "namespace": "notes"}).json()
    assert [r["path"] for r in body["results"]][0] == "facts/c/four-00000004.md"


def test_reindex_of_an_unknown_namespace_fails_clearly(db):
    with pytest.raises(CommandError, match="No namespace"):
        call_command("reindex", "--namespace", "acme/nope")
    with pytest.raises(CommandError, match="ACCOUNT/NAME"):
        call_command("reindex", "--namespace", "nope")
