"""``python manage.py bench_history``: what blame and changes-since cost on a long history.

A scratch namespace on the local backend gets ``--commits`` one-file commits (default
1,000) on top of ``--files`` memories (default 1,000, one bulk commit): every
``commits / versions``-th commit rewrites one line of the blamed file, so it ends with
``--versions`` versions (default 20), the others add or rewrite other files. Then, each
``--runs`` times (median reported), with the process's pack cache warm:

- ``repository_blame`` of that file (its oldest line is as old as the history);
- ``repository_changes`` since the bulk commit (every commit after it walked: the
  "~1,000 commits" case), one 200-path page, and the same since the middle commit;
- the same with the parsed-commit cache emptied before each call (a worker's first
  walk over those commits), alternated with the warm runs;
- and once, blame and changes with the pack and commit caches dropped (a fresh
  worker's first call).

Run with ``--json`` for a machine-readable last line. No database is touched.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from namespaces.management.commands.bench_store import _memory, _path

PREFIX = "bench#history/"
BLAMED = "facts/diary/the-blamed-memory-0badcafe.md"


def _blamed(version: int, lines: int = 20) -> bytes:
    """The blamed file at ``version``: version k rewrote line ``k % lines``."""
    body = [f"Line {i}: as first written." for i in range(lines)]
    for k in range(1, version + 1):
        body[k % lines] = f"Line {k % lines}: rewritten by version {k}."
    text = "\n".join(body)
    return (
        "---\ntier: facts\ncreated: 2026-07-31T00:00:00Z\nupdated: 2026-07-31T00:00:00Z\n"
        f"cues:\n  - what does the diary say\nsources:\n  - msg-{version}\n---\n\n{text}\n"
    ).encode()


def _timed(call, runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def run_bench(*, files: int, commits: int, versions: int, runs: int) -> dict[str, Any]:
    from namespaces import repository
    from namespaces.repository.history import clear_walked_commits
    from namespaces.storage import LocalObjectStore, using_object_store

    scratch = Path(tempfile.mkdtemp(prefix="bench-history-"))
    store = LocalObjectStore(scratch / "objects", cache_dir=scratch / "cache")
    try:
        with using_object_store(store):
            repository.repository_init(prefix=PREFIX)
            bulk = {_path(i): _memory(i) for i in range(files)}
            bulk[BLAMED] = _blamed(0)
            base = repository.repository_commit(
                prefix=PREFIX, apply=lambda _s: bulk, message="Bench: load"
            ).commit
            every = max(1, commits // max(1, versions - 1))
            written = 1
            middle = base
            started = time.perf_counter()
            for j in range(1, commits + 1):
                if j % every == 0 and written < versions:
                    change = {BLAMED: _blamed(written)}
                    written += 1
                else:
                    n = files + j if j % 2 else (j * 7919) % files
                    change = {_path(n): _memory(n, revision=j)}
                commit = repository.repository_commit(
                    prefix=PREFIX,
                    apply=lambda _s, c=change: c,
                    message=f"Bench: write {j}",
                    trailers={"Gitloom-Job": f"bench-{j}"},
                ).commit
                if j == commits // 2:
                    middle = commit
            build_s = time.perf_counter() - started
            repository.repository_consolidate(prefix=PREFIX)

            blame = repository.repository_blame(prefix=PREFIX, path=BLAMED)
            assert blame is not None
            since_base = repository.repository_changes(prefix=PREFIX, since=base, limit=200)
            result: dict[str, Any] = {
                "files": files,
                "commits": commits,
                "blamed_versions": written,
                "blame_commits_named": len(blame.commits),
                "blame_lines": blame.line_count,
                "changes_since_base_paths_on_page": len(since_base.changes),
                "build_s": round(build_s, 1),
            }
            figures = {
                "blame_ms": lambda: repository.repository_blame(prefix=PREFIX, path=BLAMED),
                "changes_since_base_ms": lambda: repository.repository_changes(
                    prefix=PREFIX, since=base, limit=200
                ),
                "changes_since_middle_ms": lambda: repository.repository_changes(
                    prefix=PREFIX, since=middle, limit=200
                ),
                "changes_full_listing_ms": lambda: repository.repository_changes(
                    prefix=PREFIX, since=None, limit=200
                ),
            }
            # Alternate the measurements so a noisy neighbour slows each alike.
            samples: dict[str, list[float]] = {name: [] for name in figures}
            for _ in range(runs):
                for name, call in figures.items():
                    samples[name].append(_timed(call, 1))
            for name, values in samples.items():
                result[name] = round(statistics.median(values), 2)
            # The same with the parsed-commit cache emptied before each call (what a
            # worker pays the first time it walks these commits), alternated too.
            uncached: dict[str, list[float]] = {name: [] for name in figures}
            for _ in range(runs):
                for name, call in figures.items():
                    clear_walked_commits()
                    uncached[name].append(_timed(call, 1))
            for name, values in uncached.items():
                result[f"uncached_{name}"] = round(statistics.median(values), 2)
            for name in ("blame_ms", "changes_since_base_ms"):
                repository.clear_pack_cache()
                clear_walked_commits()
                shutil.rmtree(store.cache_dir, ignore_errors=True)
                result[f"cold_{name}"] = round(_timed(figures[name], 1), 2)
        return result
    finally:
        repository.clear_pack_cache()
        shutil.rmtree(scratch, ignore_errors=True)


class Command(BaseCommand):
    help = "Time blame and changes-since on a long history (local backend, no database)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--files", type=int, default=1000, help="memories at the start")
        parser.add_argument("--commits", type=int, default=1000, help="one-file commits after")
        parser.add_argument("--versions", type=int, default=20, help="versions of the blamed file")
        parser.add_argument("--runs", type=int, default=15, help="timed runs (median)")
        parser.add_argument("--json", action="store_true", help="print a JSON line last")

    def handle(self, *args: Any, **options: Any) -> None:
        if min(options["files"], options["commits"], options["versions"], options["runs"]) < 1:
            self.stderr.write("--files, --commits, --versions and --runs must be at least 1")
            raise SystemExit(2)
        result = run_bench(
            files=options["files"],
            commits=options["commits"],
            versions=options["versions"],
            runs=options["runs"],
        )
        self.stdout.write(
            f"{result['files']} memories, {result['commits']} commits after them "
            f"(built in {result['build_s']} s); the blamed file has "
            f"{result['blamed_versions']} versions, {result['blame_lines']} lines from "
            f"{result['blame_commits_named']} commits"
        )
        self.stdout.write(f"{'median ms':<44} {'warm':>8} {'no commit cache':>16}")
        for name, label in (
            ("blame_ms", "blame of the 20-version file"),
            ("changes_since_base_ms", f"changes since {result['commits']} commits ago"),
            ("changes_since_middle_ms", "changes since the middle commit"),
            ("changes_full_listing_ms", "changes, full listing (first page)"),
        ):
            self.stdout.write(
                f"{label:<44} {result[name]:>8.2f} {result['uncached_' + name]:>16.2f}"
            )
        self.stdout.write(
            f"cold (packs reopened, nothing cached): blame {result['cold_blame_ms']:.1f} ms, "
            f"changes since {result['commits']} commits ago "
            f"{result['cold_changes_since_base_ms']:.1f} ms; "
            f"{result['changes_since_base_paths_on_page']} paths on that page"
        )
        if options["json"]:
            self.stdout.write(json.dumps(result, sort_keys=True))
