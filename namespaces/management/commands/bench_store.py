"""``python manage.py bench_store``: what one memory write costs as a repository grows.

For each size (default 100, 10,000 and 100,000 memories) a scratch namespace on the
local backend is filled with one big commit (~500-byte markdown memories in topic
folders of at most 200 files), then a series of one-memory writes (half new files,
half rewrites) is timed.  Reported per size: the median write time, the median
bytes uploaded per write, plus the bulk-load time, a read, and a "cold" write made
after dropping the process's pack cache (the first write a fresh worker makes).

Target: the 100,000 figure within 2x of the 100 figure.  No database is touched.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from namespaces.memory_format import TIERS

DEFAULT_SIZES = (100, 10_000, 100_000)
PER_FOLDER = 180  # < 200, leaving room for the writes the benchmark adds
PREFIX = "bench#store/"


def _memory(i: int, revision: int = 0) -> bytes:
    tier = TIERS[i % len(TIERS)]
    return (
        f"---\n"
        f"tier: {tier}\n"
        f"tags: [bench, topic-{i % 97}]\n"
        f"created: 2026-07-31T00:00:00Z\n"
        f"updated: 2026-07-31T00:{revision % 60:02d}:00Z\n"
        f"confidence: 0.9\n"
        f"cues:\n"
        f"  - what did I buy on day {i}\n"
        f"  - purchase number {i} from Fotocentre\n"
        f"sources:\n"
        f"  - msg-{i}\n"
        f"---\n\n"
        f"Bought item number {i} (revision {revision}) on 2026-07-31 from Fotocentre in "
        f"Bengaluru for 142,000 rupees, chosen over the alternative on price after "
        f"comparing reviews for a week; kept the receipt for the warranty claim.\n"
    ).encode()


def _path(i: int) -> str:
    tier = TIERS[i % len(TIERS)]
    folder = (i // len(TIERS)) // PER_FOLDER
    digest = hashlib.sha256(str(i).encode()).hexdigest()[:8]
    return f"{tier}/topic-{folder:04d}/memory-{i:06d}-{digest}.md"


def _load(size: int, workdir: Path) -> tuple[Any, float]:
    from namespaces import repository
    from namespaces.storage import LocalObjectStore, using_object_store

    store = LocalObjectStore(workdir / "objects", cache_dir=workdir / "cache")
    with using_object_store(store):
        repository.repository_init(prefix=PREFIX)
        files = {_path(i): _memory(i) for i in range(size)}
        started = time.perf_counter()
        repository.repository_commit(
            prefix=PREFIX, apply=lambda _s: files, message=f"Bench: load {size} memories"
        )
        return store, time.perf_counter() - started


def _timed_write(size: int, j: int) -> tuple[float, int, float]:
    from namespaces import repository

    # Alternate a new memory and a rewrite of an existing one.
    target = _path(size + j) if j % 2 == 0 else _path((j * 7919) % size)
    content = _memory(size + j, revision=j + 1)
    started = time.perf_counter()
    result = repository.repository_commit(
        prefix=PREFIX,
        apply=lambda _s: {target: content},
        message=f"Bench: write {j}",
        trailers={"Gitloom-Job": f"bench-{j}"},
    )
    write_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    repository.repository_snapshot(prefix=PREFIX).read(target)
    return write_ms, result.uploaded_bytes, (time.perf_counter() - started) * 1000


def run_bench(
    *,
    sizes: list[int] | tuple[int, ...] = DEFAULT_SIZES,
    writes: int = 15,
    workdir: Path | None = None,
) -> dict[str, Any]:
    """Run the benchmark; returns ``{"write_ms": {size: ms}, "upload_bytes": {...}, ...}``.

    All repositories are loaded first; then the timed writes go round-robin across the
    sizes, so a noisy neighbour on the disk or CPU slows every size alike.
    """
    from namespaces import repository
    from namespaces.storage import using_object_store

    scratch = Path(tempfile.mkdtemp(prefix="bench-store-", dir=workdir))
    figures: dict[str, dict[str, float]] = {
        key: {}
        for key in (
            "write_ms",
            "upload_bytes",
            "build_s",
            "read_ms",
            "cold_write_ms",
            "repository_bytes",
        )
    }
    try:
        stores = {}
        for size in sizes:
            stores[size], figures["build_s"][str(size)] = _load(size, scratch / str(size))
        samples: dict[int, list[tuple[float, int, float]]] = {size: [] for size in sizes}
        for j in range(writes):
            for size in sizes:
                with using_object_store(stores[size]):
                    samples[size].append(_timed_write(size, j))
        for size in sizes:
            key, store = str(size), stores[size]
            figures["write_ms"][key] = statistics.median(s[0] for s in samples[size])
            figures["upload_bytes"][key] = statistics.median(s[1] for s in samples[size])
            figures["read_ms"][key] = statistics.median(s[2] for s in samples[size])
            # A fresh worker: nothing opened, nothing cached locally.
            repository.clear_pack_cache()
            shutil.rmtree(store.cache_dir, ignore_errors=True)
            with using_object_store(store):
                started = time.perf_counter()
                repository.repository_commit(
                    prefix=PREFIX,
                    apply=lambda _s, n=size + writes: {_path(n): _memory(n)},
                    message="Bench: cold write",
                )
                figures["cold_write_ms"][key] = (time.perf_counter() - started) * 1000
            figures["repository_bytes"][key] = sum(o.size for o in store.list(PREFIX + "packs/"))
    finally:
        repository.clear_pack_cache()
        shutil.rmtree(scratch, ignore_errors=True)
    result: dict[str, Any] = {
        name: {size: round(value, 3) for size, value in values.items()}
        for name, values in figures.items()
    }
    smallest, largest = str(min(sizes)), str(max(sizes))
    result["write_ratio"] = round(result["write_ms"][largest] / result["write_ms"][smallest], 3)
    result["writes_per_size"] = writes
    return result


class Command(BaseCommand):
    help = "Time a one-memory write at several repository sizes (local backend)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--sizes",
            default=",".join(str(s) for s in DEFAULT_SIZES),
            help="comma-separated repository sizes in memories (default 100,10000,100000)",
        )
        parser.add_argument("--writes", type=int, default=15, help="timed writes per size")
        parser.add_argument("--json", action="store_true", help="print a JSON line last")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            sizes = [int(s) for s in options["sizes"].split(",") if s.strip()]
        except ValueError:
            sizes = []
        if not sizes or any(s < 1 for s in sizes) or options["writes"] < 1:
            self.stderr.write("--sizes must be positive integers and --writes at least 1")
            raise SystemExit(2)
        result = run_bench(sizes=sizes, writes=options["writes"])
        self.stdout.write(
            f"{'memories':>10} {'write ms':>9} {'upload B':>9} {'cold ms':>9} "
            f"{'read ms':>8} {'load s':>7}"
        )
        for size in sizes:
            key = str(size)
            self.stdout.write(
                f"{size:>10} {result['write_ms'][key]:>9.2f} "
                f"{result['upload_bytes'][key]:>9.0f} {result['cold_write_ms'][key]:>9.1f} "
                f"{result['read_ms'][key]:>8.2f} {result['build_s'][key]:>7.2f}"
            )
        self.stdout.write(
            f"write time at {max(sizes)} is {result['write_ratio']:.2f}x that at {min(sizes)} "
            f"(target: within 2x)"
        )
        if options["json"]:
            self.stdout.write(json.dumps(result, sort_keys=True))
