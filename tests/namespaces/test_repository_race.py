# ruff: noqa: F811 — pytest fixtures are imported by name and used as parameters
"""Concurrent writers, readers during writes, and a writer killed mid-write.

Every test runs on the local directory and on S3 over HTTP.  Writers are threads of
this process and separate processes (spawned, so each has its own caches and its own
connections), released at the same moment.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import subprocess
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from namespaces import repository as repo
from namespaces.repository import (
    repository_commit,
    repository_consolidate,
    repository_export_bundle,
    repository_gc,
    repository_head,
    repository_import_bundle,
    repository_init,
    repository_log,
    repository_path_log,
    repository_snapshot,
)
from namespaces.storage import ObjectStore, using_object_store

NS = "acme#race/"
LOG = "facts/race/log.md"


def _write_many(prefix: str, who: str, count: int) -> list[int]:
    """``count`` writes, each adding its own file and appending a line to a shared
    file it must read first: a lost update would drop a line."""
    attempts = []
    for j in range(count):
        name = f"{who}-{j}"

        def apply(snapshot, name=name):
            log = snapshot.read(LOG) or b""
            return {f"facts/race/{name}.md": name.encode(), LOG: log + name.encode() + b"\n"}

        result = repository_commit(
            prefix=prefix, apply=apply, message=f"Write {name}", trailers={"Gitloom-Job": name}
        )
        attempts.append(result.attempts)
    return attempts


def _process_writer(store: ObjectStore, prefix: str, who: str, count: int, go, results) -> None:
    with using_object_store(store):
        go.wait(60)
        results.put(_write_many(prefix, who, count))


def _crash_between_upload_and_swap(store: ObjectStore, prefix: str) -> None:
    from namespaces.repository import manifest

    def killed(*_args, **_kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    # Fault injection at the commit point: the pack and index are uploaded, the head
    # is never swapped, and the process dies as abruptly as a machine would.
    manifest.swap_head = killed
    with using_object_store(store):
        repository_commit(
            prefix=prefix,
            apply=lambda _s: {"facts/crash/lost.md": b"never committed"},
            message="Doomed write",
        )


def _git(*args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    ).stdout


def _clone(tmp_path: Path, name: str) -> Path:
    bundle = tmp_path / f"{name}.bundle"
    bundle.write_bytes(repository_export_bundle(prefix=NS))
    _git("clone", "-q", str(bundle), str(tmp_path / name))
    _git("fsck", "--full", "--strict", cwd=tmp_path / name)
    return tmp_path / name


def test_threads_and_processes_writing_at_once_all_land_in_a_linear_history(object_store, tmp_path):
    root = repository_init(prefix=NS)
    threads, processes, per_writer = 3, 3, 4
    context = multiprocessing.get_context("spawn")
    go = context.Event()
    results = context.Queue()
    workers = [
        context.Process(
            target=_process_writer, args=(object_store, NS, f"p{i}", per_writer, go, results)
        )
        for i in range(processes)
    ]
    for worker in workers:
        worker.start()
    thread_attempts: list[int] = []

    def thread_writer(who: str) -> None:
        go.wait(60)
        thread_attempts.extend(_write_many(NS, who, per_writer))

    pool = [threading.Thread(target=thread_writer, args=(f"t{i}",)) for i in range(threads)]
    for thread in pool:
        thread.start()
    go.set()  # everyone starts writing now
    process_attempts = [results.get(timeout=240) for _ in workers]
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    for thread in pool:
        thread.join(240)

    names = {
        f"{who}{i}-{j}"
        for who, n in (("t", threads), ("p", processes))
        for i in range(n)
        for j in range(per_writer)
    }
    total = len(names)
    attempts = thread_attempts + [a for batch in process_attempts for a in batch]
    assert len(attempts) == total
    assert sum(attempts) > total, "the writers never raced; the test proved nothing"

    snapshot = repository_snapshot(prefix=NS)
    # nothing lost: every file, and every line of the file all of them rewrote
    assert {p.rsplit("/", 1)[1][:-3] for p in snapshot.paths("facts/race")} == names | {"log"}
    lines = snapshot.read(LOG).decode().splitlines()
    assert sorted(lines) == sorted(names)
    # one commit per write, one after the other
    assert len(repository_path_log(prefix=NS, path=LOG)) == total
    clone = _clone(tmp_path, "clone")
    assert _git("rev-list", "--count", "HEAD", cwd=clone).strip() == str(total + 1)
    assert _git("rev-list", "--merges", "HEAD", cwd=clone).strip() == ""
    assert _git("rev-list", "--max-parents=0", "HEAD", cwd=clone).strip() == root
    jobs = _git("log", "--format=%(trailers:key=Gitloom-Job,valueonly)", cwd=clone).split()
    assert sorted(jobs) == sorted(names)


def test_readers_only_ever_see_whole_commits(object_store):
    repository_init(prefix=NS)
    repository_commit(prefix=NS, apply=lambda _s: {"a/x.md": b"0", "b/y.md": b"0"}, message="Start")
    stop = threading.Event()
    seen: list[tuple[bytes, bytes]] = []
    errors: list[BaseException] = []

    def reader() -> None:
        try:
            while not stop.is_set():
                snapshot = repository_snapshot(prefix=NS)
                seen.append((snapshot.read("a/x.md"), snapshot.read("b/y.md")))
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    def writer(who: int) -> None:
        for n in range(6):
            value = f"{who}.{n}".encode()
            repository_commit(
                prefix=NS,
                apply=lambda _s, v=value: {"a/x.md": v, "b/y.md": v},
                message=f"Pair {value.decode()}",
            )

    readers = [threading.Thread(target=reader) for _ in range(2)]
    writers = [threading.Thread(target=writer, args=(w,)) for w in range(3)]
    for thread in readers + writers:
        thread.start()
    for thread in writers:
        thread.join(120)
    stop.set()
    for thread in readers:
        thread.join(30)
    assert not errors
    assert seen and all(x == y for x, y in seen)
    assert len({x for x, _ in seen}) > 1  # readers did see the head move


def test_a_writer_killed_before_swapping_the_head_loses_only_its_own_write(object_store, tmp_path):
    repository_init(prefix=NS)
    before = repository_commit(
        prefix=NS, apply=lambda _s: {"facts/crash/kept.md": b"kept"}, message="Before"
    )
    packs_before = {o.key for o in object_store.list(NS + "packs/")}

    context = multiprocessing.get_context("spawn")
    victim = context.Process(target=_crash_between_upload_and_swap, args=(object_store, NS))
    victim.start()
    victim.join(120)
    assert victim.exitcode == -signal.SIGKILL

    # its objects were uploaded...
    orphans = {o.key for o in object_store.list(NS + "packs/")} - packs_before
    assert len(orphans) == 2  # one pack, one index
    # ...but the namespace still reads whole at its old head
    assert repository_head(prefix=NS) == before.commit
    snapshot = repository_snapshot(prefix=NS)
    assert snapshot.read("facts/crash/kept.md") == b"kept"
    assert not snapshot.exists("facts/crash/lost.md")

    after = repository_commit(
        prefix=NS, apply=lambda _s: {"facts/crash/next.md": b"next"}, message="After"
    )
    assert after.parent == before.commit and after.attempts == 1

    # gc leaves young orphans alone (their writer might still be about to swap)...
    assert repository_gc(prefix=NS).deleted == []
    # ...and removes them once past the grace period, and nothing else
    assert set(repository_gc(prefix=NS, grace=timedelta(0)).deleted) == orphans
    repo.clear_pack_cache()  # read like a fresh process
    shutil.rmtree(object_store.cache_dir, ignore_errors=True)
    assert set(repository_snapshot(prefix=NS).paths()) == {
        "facts/crash/kept.md",
        "facts/crash/next.md",
    }
    clone = _clone(tmp_path, "after-crash")
    assert (clone / "facts/crash/next.md").read_bytes() == b"next"


# --------------------------------------------------------------------------- losing the swap
#
# Commits, bundle imports and merges all change the head through one compare-and-swap
# loop.  Each test below makes that loop lose its first swap, deterministically: the
# store lets another change land just before it.


class _AnotherLandsFirst:
    """The store as it is, except that just before the next head swap ``interloper``
    runs (against the plain store) and lands its own change, so that swap loses."""

    def __init__(self, store: ObjectStore, interloper) -> None:
        self._store = store
        self._interloper = interloper

    def __getattr__(self, name):
        return getattr(self._store, name)

    def put_if_match(self, key: str, data: bytes, etag: str) -> bool:
        interloper, self._interloper = self._interloper, None
        if interloper is not None:
            with using_object_store(self._store):
                interloper()
        return self._store.put_if_match(key, data, etag)


def _late_write(results: list) -> None:
    results.append(
        repository_commit(
            prefix=NS, apply=lambda _s: {"facts/late/late.md": b"late"}, message="Late"
        )
    )


def _small_writes(count: int) -> None:
    repository_init(prefix=NS)
    for i in range(count):
        repository_commit(
            prefix=NS, apply=lambda _s, i=i: {f"facts/m/{i}.md": b"%d" % i}, message=f"W{i}"
        )


def test_a_write_that_loses_the_swap_reapplies_its_change_to_the_new_head(object_store):
    repository_init(prefix=NS)
    late: list = []
    seen: list = []

    def apply(snapshot):
        seen.append(snapshot.commit)
        return {LOG: (snapshot.read(LOG) or b"") + b"mine\n"}

    with using_object_store(_AnotherLandsFirst(object_store, lambda: _late_write(late))):
        result = repository_commit(prefix=NS, apply=apply, message="Mine")
    assert result.attempts == 2
    assert result.parent == late[0].commit == seen[1] != seen[0]
    snapshot = repository_snapshot(prefix=NS)
    assert snapshot.read("facts/late/late.md") == b"late"
    assert snapshot.read(LOG) == b"mine\n"


def test_a_bundle_import_that_loses_the_swap_lands_on_top_of_the_write_that_won(object_store):
    from namespaces.errors import UnrelatedHistory

    source = "acme#race-source/"
    repository_init(prefix=source)
    repository_commit(prefix=source, apply=lambda _s: {"facts/b/one.md": b"one"}, message="Source")
    bundle = repository_export_bundle(prefix=source)
    repository_init(prefix=NS)  # fresh: the bundle's history would be adopted whole...
    late: list = []
    # ...but a write lands first: replacing its files now needs the caller's say-so, so
    # the accepted write is never wiped behind its back
    racing = _AnotherLandsFirst(object_store, lambda: _late_write(late))
    with using_object_store(racing), pytest.raises(UnrelatedHistory):
        repository_import_bundle(prefix=NS, data=bundle, message="Import")
    assert repository_snapshot(prefix=NS).paths() == ["facts/late/late.md"]
    # with replace, the import is one commit on top of the write that won
    result = repository_import_bundle(prefix=NS, data=bundle, message="Import", replace=True)
    assert result.parent == late[0].commit
    assert result.created == ["facts/b/one.md"] and result.deleted == ["facts/late/late.md"]
    assert repository_snapshot(prefix=NS).paths() == ["facts/b/one.md"]
    assert [e.message for e in repository_log(prefix=NS)] == ["Import", "Late", "Create namespace"]


def test_a_merge_that_loses_to_a_write_merges_again_on_the_new_head(object_store):
    _small_writes(4)
    late: list = []
    with using_object_store(_AnotherLandsFirst(object_store, lambda: _late_write(late))):
        merged = repository_consolidate(prefix=NS)
    assert merged is not None and merged.merged_packs == 5
    assert merged.packs_before == late[0].pack_count == 6  # counted on the head it replaced
    assert merged.packs_after == 2  # the late write's pack and the merged one
    assert repository_head(prefix=NS) == late[0].commit
    snapshot = repository_snapshot(prefix=NS)
    assert snapshot.read("facts/late/late.md") == b"late"
    assert [snapshot.read(f"facts/m/{i}.md") for i in range(4)] == [b"0", b"1", b"2", b"3"]


def test_a_full_merge_that_loses_to_a_write_gives_up(object_store):
    _small_writes(2)
    late: list = []
    with using_object_store(_AnotherLandsFirst(object_store, lambda: _late_write(late))):
        assert repository_consolidate(prefix=NS, full=True) is None
    assert repository_head(prefix=NS) == late[0].commit
    assert repository_snapshot(prefix=NS).read("facts/late/late.md") == b"late"


def test_a_merge_that_loses_to_the_same_merge_gives_up(object_store):
    _small_writes(4)
    rival: list = []
    interloper = lambda: rival.append(repository_consolidate(prefix=NS))  # noqa: E731
    with using_object_store(_AnotherLandsFirst(object_store, interloper)):
        assert repository_consolidate(prefix=NS) is None
    assert rival[0] is not None and rival[0].packs_after == 1
    assert [repository_snapshot(prefix=NS).read(f"facts/m/{i}.md") for i in range(4)] == [
        b"0",
        b"1",
        b"2",
        b"3",
    ]
