"""The embedder's OpenAI-compatible backend (``retrieval.embeddings``), against the
project's scripted OpenAI-compatible server through the real ``openai`` client."""

from __future__ import annotations

import pytest
from django.test import override_settings

from retrieval.embeddings import embed_texts
from tests.support.model_server import ModelServer, Reply, hash_vector

DIM = 384
TEXTS = ["alpha", "beta", "alpha", "gamma"]  # read backwards, it is another list


def test_vectors_come_back_in_input_order_whatever_order_the_endpoint_answers_in():
    with ModelServer(embedding_dim=DIM) as server:

        def backwards(request):
            texts = request.json["input"]
            data = [
                {"object": "embedding", "index": i, "embedding": hash_vector(text, DIM)}
                for i, text in enumerate(texts)
            ]
            return Reply.json({"object": "list", "data": data[::-1], "model": "scripted"})

        server.embedding_responder = backwards
        with override_settings(
            GITLOOM_EMBEDDING_BACKEND="openai",
            GITLOOM_EMBEDDING_BASE_URL=server.base_url,
            GITLOOM_EMBEDDING_MODEL="scripted",
        ):
            vectors = embed_texts(TEXTS)

    assert [request.path for request in server.requests] == ["/v1/embeddings"]
    assert server.requests[0].json["input"] == TEXTS
    assert vectors[0] == vectors[2] != vectors[1]
    for vector, text in zip(vectors, TEXTS, strict=True):
        assert vector == pytest.approx(hash_vector(text, DIM), abs=1e-6)


def test_retrieval_with_an_embedding_endpoint_asks_it_once_and_reports_it_down(
    transactional_db, api, notes
):
    """An endpoint is asked for the query's vector before the index is read (no
    transaction waits on the network); when it fails, the caller gets a JSON 503 and
    the connection is left with no transaction open."""
    from django.db import connection

    from tests.retrieval.helpers import memory, write

    camera = "facts/camera-gear/sony-a7iii-9a01c4de.md"
    with (
        ModelServer(embedding_dim=DIM) as server,
        override_settings(
            GITLOOM_EMBEDDING_BACKEND="openai",
            GITLOOM_EMBEDDING_BASE_URL=server.base_url,
            GITLOOM_EMBEDDING_MODEL="scripted",
            GITLOOM_EMBEDDING_QUERY_CACHE=0,
        ),
    ):
        write(notes, {camera: memory(cues=["what camera do I own"], body="A Sony A7III.")})
        before = len(server.requests)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            pid = cursor.fetchone()[0]
        states = []

        def watched(request):
            # what the retrieving connection is doing while the endpoint is asked
            from django.db import connections

            with connections["default"].cursor() as cursor:
                cursor.execute("SELECT state FROM pg_stat_activity WHERE pid = %s", [pid])
                states.append(cursor.fetchone()[0])
            connections["default"].close()
            texts = request.json["input"]
            data = [
                {"object": "embedding", "index": i, "embedding": hash_vector(text, DIM)}
                for i, text in enumerate(texts)
            ]
            return Reply.json({"object": "list", "data": data, "model": "scripted"})

        server.embedding_responder = watched
        response = api.get("/v1/retrieve", {"query": "what camera do I own", "namespace": "notes"})
        assert response.status_code == 200, response.json()
        assert [r["path"] for r in response.json()["results"]] == [camera]
        assert [r.json["input"] for r in server.requests[before:]] == [["what camera do I own"]]
        assert states == ["idle"]  # not "idle in transaction": no snapshot held meanwhile

        server.embedding_responder = lambda request: Reply.error(500, "embedder down")
        response = api.get("/v1/retrieve", {"query": "which lens", "namespace": "notes"})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "embedding_unavailable"
    assert connection.connection.info.transaction_status.name == "IDLE"
