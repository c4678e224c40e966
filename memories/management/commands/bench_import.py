"""Benchmark: import throughput (files/s), committed and indexed, by archive size.

For each ``--sizes`` entry, a fresh namespace receives one tar.gz of that many synthetic
memory files (two distinct cues each, so every cue is embedded: the cost a real import
of new memories pays) through ``memory_import``, the function behind
``POST /v1/namespaces/<name>/import`` and its queued job. The time covers validation,
the commit to object storage and indexing (postings, cue embeddings, edges). Prints
files/s per size, the archive's size and the machine's load average; with ``--json``
one JSON object as the last line. Uses the configured database and object store (run
it with a scratch ``GITLOOM_DATA_DIR``).
"""

from __future__ import annotations

import json
import os
import time
import uuid

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from memories.synthetic import synthetic_archive


class Command(BaseCommand):
    help = "Benchmark import throughput (files/s, committed and indexed) by archive size."

    def add_arguments(self, parser):
        parser.add_argument("--sizes", default="1000,10000,100000")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **opts):
        from accounts.services import account_create
        from memories.imports import memory_import
        from namespaces.services import namespace_create
        from retrieval.embeddings import embedder_load, embedder_warm_up

        try:
            sizes = [int(s) for s in opts["sizes"].split(",") if s.strip()]
        except ValueError:
            raise CommandError("--sizes takes comma-separated integers") from None
        if not sizes or min(sizes) < 1:
            raise CommandError("--sizes takes positive integers")
        call_command("migrate", verbosity=0)  # a fresh GITLOOM_DATA_DIR has no tables yet
        embedder_load()
        embedder_warm_up()  # the model's first load is start-up's cost, not an import's
        account = account_create(account_id=f"bench-import-{uuid.uuid4().hex[:8]}")
        report = {"sizes": {}, "load_average": None}
        for size in sizes:
            data, _ = synthetic_archive(count=size, seed=opts["seed"])
            namespace = namespace_create(account=account, name=f"n{size}")
            started = time.perf_counter()
            result = memory_import(namespace=namespace, data=data)
            seconds = time.perf_counter() - started
            if len(result.created) != size:
                raise CommandError(f"imported {len(result.created)} of {size} files")
            row = {
                "seconds": round(seconds, 2),
                "files_per_s": round(size / seconds, 1),
                "archive_bytes": len(data),
            }
            report["sizes"][str(size)] = row
            self.stdout.write(
                f"{size:>8,} files: {row['files_per_s']:8.1f} files/s "
                f"({row['seconds']:.1f} s, archive {len(data) / 1e6:.2f} MB), committed and indexed"
            )
        report["load_average"] = [round(x, 2) for x in os.getloadavg()]
        self.stdout.write(f"load average {report['load_average']} ({os.cpu_count()} cores)")
        if opts["json"]:
            self.stdout.write(json.dumps(report))
