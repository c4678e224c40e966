# ruff: noqa: F811 — pytest fixtures are imported by name and used as parameters
"""repository_purge: the history rewrite, its compare-and-swap, and what it deletes,
on the local directory and on S3 over HTTP."""

from __future__ import annotations

from pathlib import Path

from namespaces.repository import (
    repository_commit,
    repository_export_bundle,
    repository_import_bundle,
    repository_init,
    repository_log,
    repository_path_log,
    repository_purge,
    repository_snapshot,
)
from tests.support.stored import git, holding, stored_texts

NS = "acme#user-1/"


def write(files: dict[str, bytes | None], message: str = "Write", **trailers):
    return repository_commit(
        prefix=NS, apply=lambda _snapshot: files, message=message, trailers=trailers
    )


def by_path(path: str):
    return lambda candidate, _read: candidate == path


def test_a_writer_landing_during_the_purge_is_kept_and_a_forget_is_not_undone(object_store):
    repository_init(prefix=NS)
    write({"facts/a/secret.md": b"the secret", "facts/a/gone.md": b"forget me"})
    write({"facts/a/secret.md": b"the secret, again"})
    raced = []

    def drop(path, read):
        if not raced:  # another writer lands while the first round rewrites
            raced.append(write({"facts/a/gone.md": None, "facts/b/new.md": b"landed meanwhile"}))
        return path == "facts/a/secret.md"

    result = repository_purge(prefix=NS, drop=drop, message="Purge secret")

    assert result.attempts == 2  # the first swap lost; the rewrite ran again on top
    snapshot = repository_snapshot(prefix=NS)
    assert snapshot.paths() == ["facts/b/new.md"]
    assert snapshot.read("facts/b/new.md") == b"landed meanwhile"
    assert raced[0].commit in result.replaced  # the writer's commit, rewritten
    assert [e.message for e in repository_log(prefix=NS)] == [
        "Purge secret",
        "Write",
        "Write",
        "Write",
        "Create namespace",
    ]
    assert holding(stored_texts(object_store, NS), "the secret") == []
    packs = [o.key for o in object_store.list(NS) if o.key.endswith(".pack")]
    assert packs == [f"{NS}packs/pack-{result.pack}.pack"]


def test_commits_before_the_first_one_that_held_it_keep_their_ids(object_store):
    root = repository_init(prefix=NS)
    first = write({"facts/a/keep.md": b"keep"}).commit
    write({"facts/a/secret.md": b"secret"})
    write({"facts/a/keep.md": b"keep 2"})
    result = repository_purge(prefix=NS, drop=by_path("facts/a/secret.md"), message="Purge")
    log = [e.commit for e in repository_log(prefix=NS)]
    assert log[-2:] == [first, root]
    assert first not in result.replaced and root not in result.replaced
    assert len(result.replaced) == 2
    assert [v.kind for v in repository_path_log(prefix=NS, path="facts/a/keep.md")] == [
        "modify",
        "add",
    ]


def test_nothing_to_drop_changes_nothing(object_store):
    repository_init(prefix=NS)
    head = write({"facts/a/keep.md": b"keep"}).commit
    before = [o.key for o in object_store.list(NS)]
    result = repository_purge(prefix=NS, drop=by_path("facts/a/none.md"), message="Purge")
    assert result.noop and result.commit == head and result.replaced == {}
    assert [o.key for o in object_store.list(NS)] == before


def test_a_history_with_merges_from_a_git_bundle_is_rewritten_whole(object_store, tmp_path):
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    for args in (["config", "user.name", "T"], ["config", "user.email", "t@example.com"]):
        git("-C", str(work), *args)
    (work / "facts" / "a").mkdir(parents=True)
    (work / "facts/a/base.md").write_text("base\n")
    git("-C", str(work), "add", ".")
    git("-C", str(work), "commit", "-qm", "base")
    git("-C", str(work), "checkout", "-qb", "side")
    (work / "facts/a/secret.md").write_text("side secret\n")
    git("-C", str(work), "add", ".")
    git("-C", str(work), "commit", "-qm", "side")
    git("-C", str(work), "checkout", "-q", "main")
    (work / "facts/a/main.md").write_text("main\n")
    git("-C", str(work), "add", ".")
    git("-C", str(work), "commit", "-qm", "main")
    git("-C", str(work), "merge", "-q", "--no-edit", "side")
    bundle = tmp_path / "in.bundle"
    git("-C", str(work), "bundle", "create", "-q", str(bundle), "main")
    repository_init(prefix=NS)
    repository_import_bundle(prefix=NS, data=bundle.read_bytes())

    repository_purge(prefix=NS, drop=by_path("facts/a/secret.md"), message="Purge")

    assert holding(stored_texts(object_store, NS), "side secret") == []
    out = tmp_path / "out.bundle"
    out.write_bytes(repository_export_bundle(prefix=NS))
    clone = tmp_path / "clone"
    git("clone", "-q", str(out), str(clone))
    git("-C", str(clone), "fsck", "--full", "--strict")
    parents = git("-C", str(clone), "log", "--format=%P", "-n1", "HEAD~1").split()
    assert len(parents) == 2  # the merge is still a merge
    assert sorted(p.name for p in (clone / "facts/a").iterdir()) == ["base.md", "main.md"]
    assert "side secret" not in git("-C", str(clone), "log", "--all", "-p")
    assert Path(clone / "facts/a/base.md").read_text() == "base\n"


def test_another_nodes_cache_forgets_the_old_packs_at_its_next_read(object_store, tmp_path):
    """A second node (its own cache directory, the same store) read the namespace
    before the purge; its next read, which meets the purge's new pack, deletes its
    copies of the old ones."""
    import copy
    import os
    import time

    from namespaces.storage import using_object_store
    from tests.support.stored import cached_texts

    repository_init(prefix=NS)
    write({"facts/a/secret.md": b"the secret", "facts/a/keep.md": b"keep"})
    node2 = copy.copy(object_store)
    node2.cache_dir = tmp_path / "node2-cache"
    with using_object_store(node2):
        assert repository_snapshot(prefix=NS).read("facts/a/secret.md") == b"the secret"
    assert holding(cached_texts(node2, NS), "the secret")
    old = time.time() - 120  # fetched two minutes before the purge
    for path in (node2.cache_dir / NS.rstrip("/")).iterdir():
        os.utime(path, (old, old))

    repository_purge(prefix=NS, drop=by_path("facts/a/secret.md"), message="Purge")

    with using_object_store(node2):
        assert repository_snapshot(prefix=NS).paths() == ["facts/a/keep.md"]
    assert holding(cached_texts(node2, NS), "the secret") == []


def test_two_purges_racing_both_land(object_store):
    repository_init(prefix=NS)
    write({"facts/a/one.md": b"first secret", "facts/a/two.md": b"second secret"})
    write({"facts/a/keep.md": b"keep"})
    inner = []

    def drop(path, read):
        if not inner:  # a second purge lands while the first one rewrites
            inner.append(repository_purge(prefix=NS, drop=by_path("facts/a/two.md"), message="P2"))
        return path == "facts/a/one.md"

    outer = repository_purge(prefix=NS, drop=drop, message="P1")

    assert outer.attempts == 2 and inner[0].commit in outer.replaced
    # Each reports only what it dropped itself.
    assert outer.paths == ["facts/a/one.md"] and inner[0].paths == ["facts/a/two.md"]
    assert repository_snapshot(prefix=NS).paths() == ["facts/a/keep.md"]
    assert [e.message for e in repository_log(prefix=NS)][:2] == ["P1", "P2"]
    assert holding(stored_texts(object_store, NS), "secret") == []
