"""What one retrieval adds to ``/metrics``: its time by the arms asked for, and which
arms found its results (``gitloom.core.metrics``)."""

from __future__ import annotations

from collections.abc import Collection

from gitloom.core.metrics import RETRIEVAL_HITS, RETRIEVAL_SECONDS
from retrieval.query import ARMS
from retrieval.selectors import Retrieval


def retrieval_observe(found: Retrieval, *, arms: Collection[str]) -> None:
    asked = set(arms)
    RETRIEVAL_SECONDS.labels("+".join(arm for arm in ARMS if arm in asked)).observe(
        found.took_ms / 1000.0
    )
    for hit in found.results:
        for arm in hit.arms:
            RETRIEVAL_HITS.labels(arm).inc()
