"""Fixtures for the index and retrieval tests.

Memories go in the way they do in production: rendered by ``namespaces.memory_format``,
committed to the namespace's real git repository in object storage (a fresh local
store per test, so repositories never leak between tests), then indexed by
``index_namespace``.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def store(tmp_path):
    from namespaces.storage import LocalObjectStore, using_object_store

    with using_object_store(
        LocalObjectStore(tmp_path / "objects", cache_dir=tmp_path / "cache")
    ) as object_store:
        yield object_store


@pytest.fixture
def notes(account):
    from namespaces.services import namespace_create

    return namespace_create(account=account, name="notes")


@pytest.fixture
def other_notes(other_account):
    from namespaces.services import namespace_create

    return namespace_create(account=other_account, name="notes")
