"""The tree-diff indexer touches only what a commit changed, and is safe to repeat."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import override_settings

from retrieval.scope import namespace_scope
from retrieval.services import index_namespace
from tests.retrieval.helpers import commit, memory, write

A = "facts/topic-a/alpha-00000001.md"
B = "facts/topic-a/beta-00000002.md"
C = "facts/topic-b/gamma-00000003.md"


def rows(namespace) -> dict[str, tuple]:
    """path -> (document id, xmin, blob): xmin changes whenever a row is rewritten."""
    with namespace_scope(namespace), connection.cursor() as cursor:
        cursor.execute("SELECT path, id, xmin::text, blob_sha FROM retrieval_document")
        return {path: rest for path, *rest in cursor.fetchall()}


def cue_rows(namespace) -> dict[tuple[str, str], str]:
    with namespace_scope(namespace), connection.cursor() as cursor:
        cursor.execute(
            "SELECT d.path, c.cue, c.xmin::text FROM retrieval_cue c"
            " JOIN retrieval_document d ON d.id = c.document_id"
        )
        return {(path, cue): xmin for path, cue, xmin in cursor.fetchall()}


@pytest.fixture
def three(notes):
    result = write(
        notes,
        {
            A: memory(cues=["alpha one", "alpha two"], body="Alpha body."),
            B: memory(cues=["beta one"], body="Beta body."),
            C: memory(cues=["gamma one", "alpha one"], body="Gamma body."),
        },
    )
    # "alpha one" is shared by A and C: embedded once.
    assert (result.added, result.embedded, result.reused) == (3, 4, 0)
    return notes


def test_only_the_changed_memory_is_rewritten_and_only_new_cues_are_embedded(three):
    before, cues_before = rows(three), cue_rows(three)
    result = write(three, {B: memory(cues=["beta one", "beta two"], body="Beta, rewritten.")})
    assert (result.added, result.modified, result.deleted) == (0, 1, 0)
    assert (result.embedded, result.reused) == (1, 1)  # "beta two" new, "beta one" kept
    after, cues_after = rows(three), cue_rows(three)
    assert after[A] == before[A] and after[C] == before[C]  # same row versions: untouched
    assert after[B][2] != before[B][2]  # keyed by the new blob
    assert cues_after[(A, "alpha one")] == cues_before[(A, "alpha one")]
    assert set(cues_after) - set(cues_before) == {(B, "beta two")}


def test_the_reused_vector_is_the_one_computed_before(three):
    with namespace_scope(three), connection.cursor() as cursor:
        cursor.execute("SELECT embedding::text FROM retrieval_cue WHERE cue = 'beta one'")
        (vector,) = cursor.fetchone()
    write(three, {B: memory(cues=["beta one"], body="Beta, rewritten.")})
    with namespace_scope(three), connection.cursor() as cursor:
        cursor.execute("SELECT embedding::text FROM retrieval_cue WHERE cue = 'beta one'")
        assert cursor.fetchone() == (vector,)


def test_deleting_a_memory_removes_all_its_rows(api, three):
    result = write(three, {A: None})
    assert (result.deleted, result.embedded) == (1, 0)
    assert set(rows(three)) == {B, C}
    with namespace_scope(three), connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM retrieval_cue")
        assert cursor.fetchone()[0] == 3  # beta one, gamma one, alpha one (of C)
        cursor.execute("SELECT count(*) FROM retrieval_term_stat WHERE term = 'two'")
        assert cursor.fetchone()[0] == 0  # "alpha two" was A's only
    response = api.get("/v1/retrieve", {"query": "alpha two", "namespace": "notes"})
    assert A not in [r["path"] for r in response.json()["results"]]


def test_running_twice_is_a_no_op(three):
    before = rows(three)
    again = index_namespace(namespace=three)
    assert not again.changed
    assert (again.added, again.modified, again.deleted, again.embedded) == (0, 0, 0, 0)
    assert rows(three) == before


def test_several_commits_are_caught_up_in_one_run(three):
    commit(three, {A: None})
    commit(three, {"facts/topic-c/delta-00000004.md": memory(cues=["delta"], body="Delta.")})
    result = index_namespace(namespace=three)
    assert (result.added, result.deleted) == (1, 1)
    assert set(rows(three)) == {B, C, "facts/topic-c/delta-00000004.md"}


def test_an_invalid_file_is_skipped_without_blocking_the_rest(three):
    result = write(
        three,
        {
            "facts/topic-c/broken-00000005.md": b"no header at all\n",
            "facts/topic-c/fine-00000006.md": memory(cues=["fine"], body="Fine."),
            "README.md": b"not a memory\n",
        },
    )
    assert result.skipped == ["facts/topic-c/broken-00000005.md"]
    assert result.added == 1
    assert "facts/topic-c/fine-00000006.md" in rows(three)


def test_a_write_reported_done_is_visible_to_retrieval(api, three):
    write(three, {"facts/topic-c/fresh-00000007.md": memory(cues=["zanzibar"], body="New.")})
    body = api.get("/v1/retrieve", {"query": "zanzibar", "namespace": "notes"}).json()
    assert body["results"][0]["path"] == "facts/topic-c/fresh-00000007.md"


def test_a_failing_embedder_leaves_the_index_at_the_previous_commit(notes):
    from tests.support.model_server import ModelServer, Reply

    first = write(notes, {A: memory(cues=["alpha one"], body="Alpha.")})
    with ModelServer(embedding_dim=384) as server:
        server.embedding_responder = lambda request: Reply.error(500, "embedder down")
        with override_settings(
            GITLOOM_EMBEDDING_BACKEND="openai",
            GITLOOM_EMBEDDING_BASE_URL=server.base_url,
            GITLOOM_EMBEDDING_MODEL="scripted",
        ):
            head = commit(notes, {B: memory(cues=["beta one"], body="Beta.")})
            with pytest.raises(Exception, match="embedding"):
                index_namespace(namespace=notes)
            assert set(rows(notes)) == {A}
            with namespace_scope(notes), connection.cursor() as cursor:
                cursor.execute("SELECT indexed_commit FROM retrieval_index_state")
                assert cursor.fetchone()[0] == first.commit
            server.embedding_responder = None  # back up: deterministic vectors
            result = index_namespace(namespace=notes)
    assert (result.commit, result.added, result.embedded) == (head, 1, 1)
    assert set(rows(notes)) == {A, B}
