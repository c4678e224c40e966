"""A memory's field limits in the pipeline, and the two helpers that keep to them:
``merge`` (lists without repeats, first spelling wins) and ``clip`` (text to a length).
Shared by the stages (``memories.extraction.pipeline``) and the model's output checks."""

from __future__ import annotations

from collections.abc import Sequence

MAX_CUES = 12  # per memory, after merging a rewrite's old and new cues


MAX_TAGS = 12


MAX_BODY_CHARS = 8000


def merge(*lists: Sequence[str], limit: int | None = None) -> list[str]:
    """Concatenate, dropping repeats (case- and space-insensitive), first spelling wins."""
    seen: set[str] = set()
    merged: list[str] = []
    for values in lists:
        for value in values:
            fold = " ".join(value.split()).casefold()
            if fold and fold not in seen:
                seen.add(fold)
                merged.append(value)
    return merged[:limit] if limit is not None else merged


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
