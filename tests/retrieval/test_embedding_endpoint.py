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
