"""Helpers for the retrieval tests: memory files in, through real git commits."""

from __future__ import annotations

from datetime import datetime

from tests.support.archives import memory_bytes


def memory(
    *,
    cues: list[str],
    body: str,
    tier: str = "facts",
    tags: list[str] | None = None,
    related: dict[str, str] | None = None,
    sources: list[str] | None = None,
    updated: datetime | None = None,
    confidence: float | None = None,
) -> bytes:
    """The bytes of a memory file, as the writers render it (``related``: path -> type)."""
    return memory_bytes(
        body,
        tier=tier,
        cues=cues,
        tags=tags,
        related=[(kind, path) for path, kind in (related or {}).items()],
        sources=sources,
        when=updated,
        confidence=confidence,
    )


def commit(namespace, files: dict[str, bytes | None], message: str = "test write") -> str:
    """Commit ``files`` (None deletes) to the namespace's repository; return the head."""
    from namespaces.repository import repository_commit

    result = repository_commit(
        prefix=namespace.storage_prefix, apply=lambda snapshot: files, message=message
    )
    return result.commit


def write(namespace, files: dict[str, bytes | None]):
    """Commit, then record the head and index, as a writer does before it reports the
    write done."""
    from retrieval.services import after_repository_change

    return after_repository_change(namespace=namespace, commit=commit(namespace, files))
