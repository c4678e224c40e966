"""GET /v1/retrieve says which commit its answer comes from, and when the index is behind
the namespace's head: `indexed_commit` beside `commit`."""

from __future__ import annotations

from django.test import override_settings

from tests.support.archives import memory_bytes, tar_gz
from tests.support.model_server import ModelServer, Reply

KAYAK = "facts/boats/kayak-00000001.md"
CANOE = "facts/boats/canoe-00000002.md"


def _import(api, path: str, body: str):
    files = {path: memory_bytes(body, cues=[body.split(".")[0]])}
    return api.post("/v1/namespaces/notes/import", tar_gz(files), content_type="application/gzip")


def _retrieve(api, query: str) -> dict:
    response = api.get("/v1/retrieve", {"query": query, "namespace": "notes", "arms": "lexical"})
    assert response.status_code == 200, response.json()
    return response.json()


def _paths(body: dict) -> set[str]:
    return {result["path"] for result in body["results"]}


def test_retrieval_says_when_the_index_is_behind_the_head(api):
    from namespaces.models import Namespace
    from namespaces.repository import repository_head

    assert api.post("/v1/namespaces", {"name": "notes"}, format="json").status_code == 201
    prefix = Namespace.objects.get(name="notes").storage_prefix

    # A fresh namespace: its root commit is both the head and what the index reflects.
    body = _retrieve(api, "kayak")
    assert body["commit"] == body["indexed_commit"] == repository_head(prefix=prefix)

    assert _import(api, KAYAK, "Ada paddles a red kayak.").status_code == 201
    indexed = repository_head(prefix=prefix)
    body = _retrieve(api, "kayak")
    assert body["commit"] == body["indexed_commit"] == indexed
    assert _paths(body) == {KAYAK}

    # The next write is committed, but its indexing fails: the embedder is down.
    with ModelServer(embedding_dim=384) as embedder:
        embedder.embedding_responder = lambda request: Reply.error(500, "embedder down")
        with override_settings(
            GITLOOM_EMBEDDING_BACKEND="openai",
            GITLOOM_EMBEDDING_BASE_URL=embedder.base_url,
            GITLOOM_EMBEDDING_MODEL="scripted",
        ):
            response = _import(api, CANOE, "Ada also owns a green canoe.")
    assert response.status_code == 503, response.json()
    head = repository_head(prefix=prefix)
    assert head != indexed  # the commit landed

    # The answer comes from the older commit, and the response says so.
    body = _retrieve(api, "canoe kayak")
    assert body["commit"] == head
    assert body["indexed_commit"] == indexed
    assert _paths(body) == {KAYAK}

    # The next write that indexes brings the index up to the head again.
    assert _import(api, "facts/boats/oar-00000003.md", "Ada's oar is carbon.").status_code == 201
    body = _retrieve(api, "canoe kayak")
    assert body["commit"] == body["indexed_commit"] == repository_head(prefix=prefix)
    assert _paths(body) == {KAYAK, CANOE}
