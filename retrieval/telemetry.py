"""What one retrieval adds to ``/metrics`` (its time by the arms asked for, and which
arms found its results) and to traces (the attributes of its spans): counts, names and
times, never the query or a memory's text (``gitloom.core.metrics``,
``gitloom.core.tracing``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from django.conf import settings

from gitloom.core.metrics import RETRIEVAL_HITS, RETRIEVAL_SECONDS
from retrieval.query import ARMS


def _arms_label(arms: Collection[str]) -> str:
    asked = set(arms)
    return "+".join(arm for arm in ARMS if arm in asked)


def retrieval_observe(found, *, arms: Collection[str]) -> None:
    RETRIEVAL_SECONDS.labels(_arms_label(arms)).observe(found.took_ms / 1000.0)
    # Counted first, then one increment per arm: ~2 µs each, not one per hit and arm.
    for arm, hits in Counter(arm for hit in found.results for arm in hit.arms).items():
        RETRIEVAL_HITS.labels(arm).inc(hits)


def retrieve_span_attributes(**kwargs) -> dict:
    return {
        "gitloom.retrieval.arms": _arms_label(kwargs.get("arms", ARMS)),
        "gitloom.retrieval.limit": kwargs.get("limit", 10),
        "gitloom.retrieval.as_of": kwargs.get("as_of") is not None,
    }


def retrieve_span_result(found) -> dict:
    arms = sorted({arm for hit in found.results for arm in hit.arms})
    return {
        "gitloom.retrieval.results": len(found.results),
        "gitloom.retrieval.took_ms": float(found.took_ms),
        "gitloom.retrieval.arms_found": ",".join(arms),
    }


def embedding_span_attributes() -> dict:
    return {
        "gen_ai.operation.name": "embeddings",
        "gen_ai.request.model": settings.GITLOOM_EMBEDDING_MODEL,
    }


def fused_query_span_attributes(**kwargs) -> dict:
    return {"db.system.name": "postgresql", "db.operation.name": "SELECT"}
