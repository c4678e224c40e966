"""Reconcile's candidate lookup: the namespace's own index, asked like a retrieval.

One fused query per new fact, with a bounded limit, so the work per job does not grow
with the namespace (the pipeline caps candidates per fact and per job).
"""

from __future__ import annotations

from collections.abc import Sequence

from memories.extraction.types import ExistingMemory
from namespaces.models import Namespace
from retrieval.embeddings import embed_texts
from retrieval.query import fused_search


def memory_candidates(
    *, namespace: Namespace, texts: Sequence[str], limit: int
) -> list[list[ExistingMemory]]:
    """Each text's nearest memories in the namespace; the texts are embedded in one batch."""
    queries = [text[:1000] for text in texts]
    vectors = embed_texts(queries)
    return [
        _existing(
            fused_search(
                namespace=namespace,
                query=query,
                embedding=vector,
                limit=limit,
                arms=("lexical", "semantic"),
            )
        )
        for query, vector in zip(queries, vectors, strict=True)
    ]


def _existing(found) -> list[ExistingMemory]:
    return [
        ExistingMemory(path=hit.path, text=hit.memory.body, header=hit.memory) for hit in found.hits
    ]
