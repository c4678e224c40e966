"""Helpers for the retrieval tests: memory files in, through real git commits."""

from __future__ import annotations

from datetime import UTC, datetime


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
    """The bytes of a memory file, as the writers render it."""
    from memories.format import Link, Memory, render_memory

    when = updated or datetime(2026, 7, 31, tzinfo=UTC)
    return render_memory(
        Memory(
            tier=tier,
            tags=tags or [],
            created=when,
            updated=when,
            confidence=confidence,
            cues=cues,
            related=[Link(type=kind, path=path) for path, kind in (related or {}).items()],
            sources=sources or [],
            body=body,
        )
    )


def commit(namespace, files: dict[str, bytes | None], message: str = "test write") -> str:
    """Commit ``files`` (None deletes) to the namespace's repository; return the head."""
    from namespaces.repository import repository_commit

    result = repository_commit(
        prefix=namespace.storage_prefix, apply=lambda snapshot: files, message=message
    )
    return result.commit


def write(namespace, files: dict[str, bytes | None]):
    """Commit, then index, as a writer does before it reports the write done."""
    from retrieval.services import index_namespace

    commit(namespace, files)
    return index_namespace(namespace=namespace)
