# ruff: noqa: F811 — pytest fixtures are imported by name and used as parameters
"""The per-namespace git repository in object storage (local directory and S3).

Where git itself is the point (clone, fsck, trailers, bundles made by git), the tests
run the real git CLI.
"""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from datetime import timedelta
from pathlib import Path

import pytest
from dulwich.objects import Blob, Commit, Tree

from gitloom.core.errors import InvalidInput, NamespaceNotFound, NotFound, PayloadTooLarge
from namespaces import repository as repo
from namespaces.errors import UnrelatedHistory
from namespaces.repository import (
    repository_commit,
    repository_consolidate,
    repository_delete,
    repository_diff,
    repository_export_bundle,
    repository_export_tar,
    repository_gc,
    repository_head,
    repository_import_bundle,
    repository_init,
    repository_path_log,
    repository_snapshot,
)

NS = "acme#user-1/"
OTHER = "acme#user-2/"

MEMORY = b"""---
tier: facts
tags: [camera]
---

Bought a Sony A7III.
"""


def git(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )


def write(prefix: str, files: dict[str, bytes | None], message: str = "Write", **trailers):
    return repository_commit(
        prefix=prefix, apply=lambda _snapshot: files, message=message, trailers=trailers
    )


def files_of(snapshot) -> dict[str, bytes]:
    return {path: snapshot.read(path) for path, _blob in snapshot.walk()}


def clone_files(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(directory).parts
    }


# ----------------------------------------------------------------------------- basics


def test_init_makes_an_empty_root_commit_and_is_idempotent(object_store):
    assert repository_head(prefix=NS) is None
    head = repository_init(prefix=NS)
    assert repository_head(prefix=NS) == head
    assert repository_init(prefix=NS) == head
    snapshot = repository_snapshot(prefix=NS)
    assert snapshot.commit == head
    assert list(snapshot.walk()) == []


def test_commit_writes_files_and_reports_what_changed(object_store):
    root = repository_init(prefix=NS)
    result = write(
        NS, {"facts/camera/a.md": MEMORY, "facts/camera/b.md": b"b\n"}, "Add camera facts"
    )
    assert result.parent == root and not result.noop
    assert result.created == ["facts/camera/a.md", "facts/camera/b.md"]
    assert result.modified == result.deleted == []
    assert repository_head(prefix=NS) == result.commit

    snapshot = repository_snapshot(prefix=NS)
    assert snapshot.read("facts/camera/a.md") == MEMORY
    assert snapshot.exists("facts/camera/b.md")
    assert snapshot.read("facts/camera/none.md") is None
    assert snapshot.read("facts/camera") is None  # a folder is not a file
    assert snapshot.blob_id("facts/camera/a.md") == Blob.from_string(MEMORY).id.decode()
    assert snapshot.tree_id("facts") is not None and snapshot.tree_id("nope") is None


def test_modify_and_delete_in_one_commit_and_empty_folders_vanish(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a/one.md": b"1", "events/b/two.md": b"2"})
    result = repository_commit(
        prefix=NS,
        apply=lambda s: {
            "facts/a/one.md": s.read("facts/a/one.md") + b"+",
            "events/b/two.md": None,
        },
        message="Edit and forget",
    )
    assert result.modified == ["facts/a/one.md"]
    assert result.deleted == ["events/b/two.md"]
    assert result.changed == ["events/b/two.md", "facts/a/one.md"]
    snapshot = repository_snapshot(prefix=NS)
    assert files_of(snapshot) == {"facts/a/one.md": b"1+"}
    assert snapshot.tree_id("events") is None


def test_a_change_that_changes_nothing_makes_no_commit_and_uploads_nothing(object_store):
    repository_init(prefix=NS)
    first = write(NS, {"facts/a/one.md": b"1"})
    puts = object_store.stats.puts
    for files in ({}, {"facts/a/one.md": b"1"}, {"facts/a/missing.md": None}):
        result = write(NS, files)
        assert result.noop and result.commit == first.commit and result.changed == []
    assert object_store.stats.puts == puts
    assert repository_head(prefix=NS) == first.commit


def test_changes_to_replaces_the_whole_tree_in_one_commit(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a/keep.md": b"same", "facts/a/edit.md": b"old", "facts/b/drop.md": b"x"})
    wanted = {"facts/a/keep.md": b"same", "facts/a/edit.md": b"new", "events/c/add.md": b"+"}
    result = repository_commit(
        prefix=NS, apply=lambda s: s.changes_to(wanted), message="Import tar"
    )
    assert (result.created, result.modified, result.deleted) == (
        ["events/c/add.md"],
        ["facts/a/edit.md"],
        ["facts/b/drop.md"],
    )
    assert files_of(repository_snapshot(prefix=NS)) == wanted


def test_a_snapshot_keeps_reading_its_commit_after_later_writes(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a/one.md": b"old"})
    before = repository_snapshot(prefix=NS)
    write(NS, {"facts/a/one.md": b"new", "facts/a/two.md": b"2"})
    assert before.read("facts/a/one.md") == b"old"
    assert not before.exists("facts/a/two.md")
    assert repository_snapshot(prefix=NS).read("facts/a/one.md") == b"new"
    # and an old commit can be opened by id
    assert repository_snapshot(prefix=NS, commit=before.commit).read("facts/a/one.md") == b"old"


def test_namespaces_are_isolated(object_store):
    repository_init(prefix=NS)
    repository_init(prefix=OTHER)
    write(NS, {"facts/a/secret.md": b"mine"})
    assert list(repository_snapshot(prefix=OTHER).walk()) == []
    repository_delete(prefix=OTHER)
    assert repository_snapshot(prefix=NS).read("facts/a/secret.md") == b"mine"


def test_unknown_namespace_is_not_created_implicitly(object_store):
    with pytest.raises(NamespaceNotFound):
        write(NS, {"facts/a/x.md": b"x"})
    with pytest.raises(NamespaceNotFound):
        repository_snapshot(prefix=NS)
    assert repository_head(prefix=NS) is None
    assert object_store.list(NS) == []


def test_delete_removes_every_object_and_the_namespace_reads_as_gone(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a/x.md": b"x"})
    assert repository_delete(prefix=NS) > 0
    assert object_store.list(NS) == []
    assert repository_head(prefix=NS) is None
    with pytest.raises(NamespaceNotFound):
        repository_snapshot(prefix=NS)


def test_unknown_commit_is_not_found(object_store):
    repository_init(prefix=NS)
    with pytest.raises(NotFound):
        repository_snapshot(prefix=NS, commit="0" * 40)
    with pytest.raises(InvalidInput):
        repository_snapshot(prefix=NS, commit="HEAD~1")


# ----------------------------------------------------------------------------- hostile input

HOSTILE_PREFIXES = [
    "",
    "acme",
    "acme#",
    "#user-1/",
    "acme#user-1",
    "acme#user-1/x/",
    "../acme#user-1/",
    "acme#../",
    "ACME#user-1/",
    "acme#user#1/",
    "acme/user-1/",
    "a" * 65 + "#user-1/",
    None,
]


@pytest.mark.parametrize("prefix", HOSTILE_PREFIXES)
def test_hostile_prefixes_are_refused_everywhere(local_store, prefix):
    from namespaces.storage import using_object_store

    calls = [
        lambda: repository_init(prefix=prefix),
        lambda: repository_head(prefix=prefix),
        lambda: repository_snapshot(prefix=prefix),
        lambda: write(prefix, {"facts/a/x.md": b"x"}),
        lambda: repository_export_bundle(prefix=prefix),
        lambda: repository_delete(prefix=prefix),
        lambda: repository_gc(prefix=prefix),
    ]
    with using_object_store(local_store):
        for call in calls:
            with pytest.raises(InvalidInput) as error:
                call()
            assert error.value.code == "invalid_prefix"
    assert not local_store.root.exists() or not any(local_store.root.iterdir())


HOSTILE_PATHS = [
    "../escape.md",
    "/etc/passwd",
    "facts//a.md",
    "facts/./a.md",
    "facts/../a.md",
    ".git/config",
    "facts/.GIT/hooks",
    "facts/a\x00.md",
    "facts/a\n.md",
    "facts/a#b.md",
    "facts\\a.md",
    "facts/a/",
    "",
    "x" * 2000,
]


@pytest.mark.parametrize("path", HOSTILE_PATHS)
def test_hostile_paths_are_refused_and_write_nothing(object_store, path):
    head = repository_init(prefix=NS)
    puts = object_store.stats.puts
    with pytest.raises(InvalidInput) as error:
        write(NS, {path: b"x"})
    assert error.value.code == "invalid_path"
    assert repository_head(prefix=NS) == head
    assert object_store.stats.puts == puts


def test_a_file_and_a_folder_cannot_share_a_path(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a.md": b"file"})
    with pytest.raises(InvalidInput) as error:
        write(NS, {"facts/a.md/b.md": b"x"})
    assert error.value.code == "path_conflict"
    with pytest.raises(InvalidInput):
        write(NS, {"facts": b"x"})
    with pytest.raises(InvalidInput):
        write(NS, {"x/y.md": b"1", "x/y.md/z.md": b"2"})


def test_bad_messages_trailers_and_authors_are_refused(object_store):
    repository_init(prefix=NS)
    for kwargs in (
        {"message": ""},
        {"message": "ok", "trailers": {"Bad Key": "v"}},
        {"message": "ok", "trailers": {"Gitloom-Job": "a\nInjected: yes"}},
        {"message": "ok", "author": "no email"},
    ):
        with pytest.raises(InvalidInput):
            repository_commit(prefix=NS, apply=lambda s: {"facts/a.md": b"x"}, **kwargs)


# ----------------------------------------------------------------------------- diff and log


def test_diff_lists_added_modified_and_deleted_files(object_store):
    root = repository_init(prefix=NS)
    c1 = write(NS, {"facts/a/one.md": b"1", "facts/b/two.md": b"2", "events/c/3.md": b"3"})
    c2 = write(NS, {"facts/a/one.md": b"1!", "facts/b/two.md": None, "working/d/4.md": b"4"})
    changes = repository_diff(prefix=NS, old=c1.commit, new=c2.commit)
    assert {(c.kind, c.path) for c in changes} == {
        ("modify", "facts/a/one.md"),
        ("delete", "facts/b/two.md"),
        ("add", "working/d/4.md"),
    }
    modify = next(c for c in changes if c.kind == "modify")
    assert modify.old_blob == Blob.from_string(b"1").id.decode()
    assert modify.new_blob == Blob.from_string(b"1!").id.decode()
    everything = repository_diff(prefix=NS, old=None, new=c2.commit)
    assert sorted(c.path for c in everything) == [
        "events/c/3.md",
        "facts/a/one.md",
        "working/d/4.md",
    ]
    assert repository_diff(prefix=NS, old=root, new=root) == []


def test_path_log_gives_each_version_with_message_trailers_and_diff(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a/cam.md": b"line one\n"}, "Add camera", **{"Gitloom-Job": "job-1"})
    write(NS, {"facts/a/other.md": b"x"}, "Unrelated")
    write(
        NS, {"facts/a/cam.md": b"line one\nline two\n"}, "Update camera", **{"Gitloom-Job": "job-2"}
    )
    write(NS, {"facts/a/cam.md": None}, "Forget camera")
    versions = repository_path_log(prefix=NS, path="facts/a/cam.md")
    assert [v.kind for v in versions] == ["delete", "modify", "add"]
    assert [v.message for v in versions] == ["Forget camera", "Update camera", "Add camera"]
    assert versions[1].trailers == {"Gitloom-Job": "job-2"}
    assert versions[0].blob is None
    assert "+line two\n" in versions[1].diff_text
    assert versions[1].diff_text.startswith("--- a/facts/a/cam.md\n+++ b/facts/a/cam.md\n")
    assert versions[2].diff_text.startswith("--- /dev/null\n")
    assert versions[0].time.tzinfo is not None
    assert len(repository_path_log(prefix=NS, path="facts/a/cam.md", limit=1)) == 1
    assert repository_path_log(prefix=NS, path="facts/a/never.md") == []


# ----------------------------------------------------------------------------- export


def test_exported_bundle_clones_with_git_fscks_clean_and_matches(object_store, tmp_path):
    repository_init(prefix=NS)
    write(
        NS,
        {"facts/camera/a.md": MEMORY, "preferences/food/b.md": b"b\n"},
        "First",
        **{"Gitloom-Job": "j1"},
    )
    write(NS, {"facts/camera/a.md": MEMORY + b"More.\n"}, "Second", **{"Gitloom-Job": "j2"})
    repository_consolidate(prefix=NS)  # export must not depend on the pack layout
    write(NS, {"events/trip/c.md": "Trip to Bengaluru ₹\n".encode()}, "Third")
    bundle = tmp_path / "ns.bundle"
    bundle.write_bytes(repository_export_bundle(prefix=NS))

    git("bundle", "verify", str(bundle))
    git("clone", "-q", str(bundle), str(tmp_path / "clone"))
    fsck = git("fsck", "--full", "--strict", cwd=tmp_path / "clone")
    assert "error" not in fsck.stderr + fsck.stdout
    snapshot = repository_snapshot(prefix=NS)
    assert clone_files(tmp_path / "clone") == files_of(snapshot)
    log = git("log", "--format=%H %s", cwd=tmp_path / "clone").stdout.splitlines()
    assert [line.split(" ", 1)[1] for line in log] == [
        "Third",
        "Second",
        "First",
        "Create namespace",
    ]
    assert log[0].split()[0] == snapshot.commit
    jobs = git(
        "log", "--format=%(trailers:key=Gitloom-Job,valueonly)", cwd=tmp_path / "clone"
    ).stdout.split()
    assert jobs == ["j2", "j1"]
    assert git("rev-parse", "--abbrev-ref", "HEAD", cwd=tmp_path / "clone").stdout.strip() == "main"


def test_trailers_are_readable_by_git_interpret_trailers(object_store, tmp_path):
    repository_init(prefix=NS)
    write(
        NS,
        {"facts/a.md": b"x"},
        "Ingest job 7\n\nTwo facts from one session.",
        **{"Gitloom-Job": "7", "Gitloom-Session": "s-1"},
    )
    bundle = tmp_path / "b.bundle"
    bundle.write_bytes(repository_export_bundle(prefix=NS))
    git("clone", "-q", str(bundle), str(tmp_path / "c"))
    message = git("log", "-1", "--format=%B", cwd=tmp_path / "c").stdout
    parsed = subprocess.run(
        ["git", "interpret-trailers", "--parse"],
        input=message,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert parsed.splitlines() == ["Gitloom-Job: 7", "Gitloom-Session: s-1"]


def test_tar_export_holds_the_files_at_head(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a/one.md": MEMORY, "events/b/two.md": b"2"})
    data = repository_export_tar(prefix=NS)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        contents = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    assert contents == {"events/b/two.md": b"2", "facts/a/one.md": MEMORY}
    assert repository_export_tar(prefix=NS) == data  # same head, same bytes


# ----------------------------------------------------------------------------- import


def make_git_repo(path: Path, files: dict[str, str], commits: int = 2) -> str:
    git("init", "-q", "-b", "main", str(path))
    for i in range(commits):
        for name, text in files.items():
            target = path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text + f"\nrevision {i}\n" + "filler line\n" * 50)
        git("add", "-A", cwd=path)
        git("commit", "-q", "-m", f"revision {i}", cwd=path)
    # Repack with deltas so the bundle exercises delta resolution.
    git("repack", "-adf", "-q", cwd=path)
    return git("rev-parse", "HEAD", cwd=path).stdout.strip()


def test_a_bundle_made_by_git_imports_into_a_fresh_namespace_with_its_history(
    object_store, tmp_path
):
    head = make_git_repo(
        tmp_path / "src", {"facts/a/one.md": "one", "facts/a/two.md": "one", "events/x.md": "e"}, 3
    )
    git("bundle", "create", "-q", str(tmp_path / "src.bundle"), "--all", cwd=tmp_path / "src")
    repository_init(prefix=NS)
    result = repository_import_bundle(
        prefix=NS, data=(tmp_path / "src.bundle").read_bytes(), trailers={"Gitloom-Job": "imp"}
    )
    assert result.commit == head == repository_head(prefix=NS)
    assert result.created == ["events/x.md", "facts/a/one.md", "facts/a/two.md"]
    snapshot = repository_snapshot(prefix=NS)
    assert files_of(snapshot) == clone_files(tmp_path / "src")
    log = repository_path_log(prefix=NS, path="facts/a/one.md")
    assert [v.message for v in log] == ["revision 2", "revision 1", "revision 0"]


def test_reimporting_an_export_fast_forwards_or_does_nothing(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a/one.md": b"1"})
    repository_init(prefix=OTHER)
    first = repository_import_bundle(prefix=OTHER, data=repository_export_bundle(prefix=NS))
    assert first.commit == repository_head(prefix=NS)
    write(NS, {"facts/a/two.md": b"2"})
    forward = repository_import_bundle(prefix=OTHER, data=repository_export_bundle(prefix=NS))
    assert forward.commit == repository_head(prefix=NS)
    assert forward.created == ["facts/a/two.md"]
    again = repository_import_bundle(prefix=OTHER, data=repository_export_bundle(prefix=NS))
    assert again.noop


def test_importing_into_a_namespace_with_other_history_commits_the_bundle_tree(object_store):
    repository_init(prefix=OTHER)
    write(OTHER, {"facts/b/theirs.md": b"t", "facts/a/shared.md": b"old"})
    repository_init(prefix=NS)
    before = write(NS, {"facts/a/mine.md": b"m", "facts/a/shared.md": b"x"})
    bundle = repository_export_bundle(prefix=OTHER)
    # Unrelated history would drop the namespace's files: only when asked to.
    with pytest.raises(UnrelatedHistory):
        repository_import_bundle(prefix=NS, data=bundle, message="Import from backup")
    assert repository_snapshot(prefix=NS).commit == before.commit
    result = repository_import_bundle(
        prefix=NS, data=bundle, message="Import from backup", replace=True
    )
    assert result.parent == before.commit
    assert result.created == ["facts/b/theirs.md"]
    assert result.modified == ["facts/a/shared.md"]
    assert result.deleted == ["facts/a/mine.md"]
    snapshot = repository_snapshot(prefix=NS)
    assert files_of(snapshot) == {"facts/a/shared.md": b"old", "facts/b/theirs.md": b"t"}
    # history stays linear: the earlier version is one commit back
    versions = repository_path_log(prefix=NS, path="facts/a/mine.md")
    assert [v.kind for v in versions] == ["delete", "add"]


def _dulwich_bundle(tree: Tree, blobs: list[Blob]) -> bytes:
    from dulwich.object_format import DEFAULT_OBJECT_FORMAT
    from dulwich.pack import write_pack_objects

    commit = Commit()
    commit.tree = tree.id
    commit.parents = []
    commit.author = commit.committer = b"X <x@example.com>"
    commit.author_time = commit.commit_time = 0
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"hostile\n"
    out = io.BytesIO()
    out.write(b"# v2 git bundle\n" + commit.id + b" refs/heads/main\n\n")
    write_pack_objects(out.write, [*blobs, tree, commit], DEFAULT_OBJECT_FORMAT)
    return out.getvalue()


def test_hostile_bundles_are_refused_and_write_nothing(object_store, tmp_path):
    head = repository_init(prefix=NS)
    good = repository_export_bundle(prefix=NS)
    corrupt = bytearray(good)
    corrupt[-30] ^= 0xFF

    blob = Blob.from_string(b"x")
    symlink_tree = Tree()
    symlink_tree.add(b"link.md", 0o120000, blob.id)
    evil_name = Tree()
    evil_name.add(b"a#b.md", 0o100644, blob.id)
    missing_blob = Tree()
    missing_blob.add(b"a.md", 0o100644, Blob.from_string(b"absent").id)

    cases = {
        b"not a bundle": "invalid_bundle",
        b"# v2 git bundle\n\n": "invalid_bundle",
        bytes(corrupt): "invalid_bundle",
        good[: len(good) - 40]: "invalid_bundle",
        _dulwich_bundle(symlink_tree, [blob]): "invalid_path",
        _dulwich_bundle(evil_name, [blob]): "invalid_path",
        _dulwich_bundle(missing_blob, []): "invalid_bundle",
    }
    puts = object_store.stats.puts
    for data, code in cases.items():
        with pytest.raises(InvalidInput) as error:
            repository_import_bundle(prefix=NS, data=data)
        assert error.value.code == code, data[:40]
    assert object_store.stats.puts == puts
    assert repository_head(prefix=NS) == head


def test_a_decompression_bomb_bundle_is_refused_before_inflating(object_store):
    repository_init(prefix=NS)
    huge = Blob.from_string(b"\0" * (4 * 1024 * 1024))
    tree = Tree()
    tree.add(b"bomb.md", 0o100644, huge.id)
    data = _dulwich_bundle(tree, [huge])
    assert len(data) < 16 * 1024
    with pytest.raises(PayloadTooLarge):
        repository_import_bundle(prefix=NS, data=data, max_object_bytes=1024 * 1024)


def test_import_validator_sees_the_bundle_files_and_can_refuse_them(object_store):
    repository_init(prefix=OTHER)
    write(OTHER, {"facts/a/bad.md": b"no header"})
    head = repository_init(prefix=NS)
    seen = {}

    def validate(snapshot):
        seen.update(files_of(snapshot))
        from namespaces.errors import InvalidMemory

        raise InvalidMemory("facts/a/bad.md has no YAML header")

    with pytest.raises(InvalidInput) as error:
        repository_import_bundle(
            prefix=NS, data=repository_export_bundle(prefix=OTHER), validate=validate
        )
    assert error.value.code == "invalid_memory"
    assert seen == {"facts/a/bad.md": b"no header"}
    assert repository_head(prefix=NS) == head


# ----------------------------------------------------------------------------- upkeep and cost


def test_many_small_writes_are_consolidated_and_everything_still_reads(object_store):
    repository_init(prefix=NS)
    for i in range(repo.AUTO_CONSOLIDATE_PACKS + 4):
        result = write(NS, {f"facts/t{i % 3}/m{i}.md": f"memory {i}".encode()})
        assert result.pack_count <= repo.AUTO_CONSOLIDATE_PACKS + 1
    merged = repository_consolidate(prefix=NS, full=True)
    assert merged is not None and merged.packs_after == 1
    assert repository_consolidate(prefix=NS, full=True) is None  # nothing left to do
    gc = repository_gc(prefix=NS, grace=timedelta(0))
    assert gc.deleted and gc.retired_pending == 0
    repo.clear_pack_cache()  # read like a fresh process: every pack fetched again
    import shutil

    shutil.rmtree(object_store.cache_dir, ignore_errors=True)
    snapshot = repository_snapshot(prefix=NS)
    n = repo.AUTO_CONSOLIDATE_PACKS + 4
    assert len(list(snapshot.walk())) == n
    last = n - 1
    assert snapshot.read(f"facts/t{last % 3}/m{last}.md") == f"memory {last}".encode()
    packs = [o.key for o in object_store.list(NS + "packs/")]
    assert len(packs) == 2  # one .pack and its .idx


def test_gc_keeps_recent_orphans_and_retired_packs_within_grace(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a/1.md": b"1"})
    write(NS, {"facts/a/2.md": b"2"})
    object_store.put(f"{NS}packs/pack-{'a' * 40}.pack", b"orphan")  # a lost race's upload
    repository_consolidate(prefix=NS, full=True)
    before = {o.key for o in object_store.list(NS)}
    result = repository_gc(prefix=NS)  # default grace: everything is too young
    assert result.deleted == [] and result.retired_pending == 3
    assert {o.key for o in object_store.list(NS)} == before
    result = repository_gc(prefix=NS, grace=timedelta(0))
    assert f"{NS}packs/pack-{'a' * 40}.pack" in result.deleted
    assert files_of(repository_snapshot(prefix=NS)) == {"facts/a/1.md": b"1", "facts/a/2.md": b"2"}


def test_a_damaged_local_cache_is_fetched_again(object_store):
    repository_init(prefix=NS)
    write(NS, {"facts/a/1.md": b"one"})
    repo.clear_pack_cache()
    for path in Path(object_store.cache_dir).rglob("pack-*"):
        path.write_bytes(path.read_bytes()[:40])  # a torn file from a crash
    assert repository_snapshot(prefix=NS).read("facts/a/1.md") == b"one"


def build_many(prefix: str, count: int, per_folder: int = 200) -> None:
    files = {
        f"facts/topic-{i // per_folder:04d}/memory-{i:06d}.md": MEMORY + f"number {i}\n".encode()
        for i in range(count)
    }
    write(prefix, files, "Bulk load")


def test_a_one_file_write_costs_the_same_in_a_big_repository(object_store):
    # Both repositories have full 200-file topic folders; one has 1, the other 20.
    repository_init(prefix=NS)
    repository_init(prefix=OTHER)
    build_many(NS, 200)
    build_many(OTHER, 4000)
    small = write(NS, {"facts/topic-0000/new.md": MEMORY})
    downloaded = object_store.stats.bytes_downloaded
    big = write(OTHER, {"facts/topic-0010/new.md": MEMORY})
    # what changed: one blob, one 201-entry folder, the tier, the root, the commit
    assert big.uploaded_bytes < 12_000
    assert big.uploaded_bytes < small.uploaded_bytes * 1.2
    # the write read the head and the trees on its path, not the repository
    assert object_store.stats.bytes_downloaded - downloaded < 2_000


def test_bench_store_reports_write_times_and_upload_bytes_per_size(tmp_path):
    from namespaces.management.commands.bench_store import run_bench

    result = run_bench(sizes=[50, 600], writes=3, workdir=tmp_path)
    assert set(result["write_ms"]) == {"50", "600"}
    assert all(ms > 0 for ms in result["write_ms"].values())
    assert all(0 < b < 8000 for b in result["upload_bytes"].values())
