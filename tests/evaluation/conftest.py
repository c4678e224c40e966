"""The harness writes real repositories: a fresh local object store per test."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def store(tmp_path):
    from namespaces.storage import LocalObjectStore, using_object_store

    with using_object_store(
        LocalObjectStore(tmp_path / "objects", cache_dir=tmp_path / "cache")
    ) as object_store:
        yield object_store
