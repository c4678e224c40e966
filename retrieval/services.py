"""Index lifecycle hooks called by namespace services (filled in by the index work)."""

from __future__ import annotations


def index_namespace_create(*, namespace) -> None:
    """Prepare a new namespace's index storage."""


def index_namespace_drop(*, namespace) -> None:
    """Remove a namespace's index rows."""
