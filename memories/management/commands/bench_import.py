"""Benchmark: import throughput (files/s), committed and indexed, by archive size.

For each ``--sizes`` entry, a fresh namespace receives one tar.gz of that many synthetic
memory files (two distinct cues each, so every cue is embedded: the cost a real import
of new memories pays) through ``memory_import``, the function behind
``POST /v1/namespaces/<name>/import`` and its queued job. The time covers validation,
the commit to object storage and indexing (postings, cue embeddings, edges). Prints
files/s per size, the archive's size and the machine's load average; with ``--json``
one JSON object as the last line. ``--job`` imports through the queued import job
instead (``import_accept``, drained in this process, with the configured
``GITLOOM_JOB_TIMEOUT``), and also reports how many runs of the job it took (a big
import pauses once half the timeout is spent and goes on in its next run) and the
longest run. Uses the configured database and object store (run
it with a scratch ``GITLOOM_DATA_DIR``).
"""

from __future__ import annotations

import json
import logging
import os
import time
import uuid

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from memories.synthetic import synthetic_archive


class Command(BaseCommand):
    help = "Benchmark import throughput (files/s, committed and indexed) by archive size."

    def add_arguments(self, parser):
        parser.add_argument("--sizes", default="1000,10000,100000")
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--json", action="store_true")
        parser.add_argument(
            "--job", action="store_true", help="import through the queued job, run here"
        )

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
            runs = _Runs()
            started = time.perf_counter()
            if opts["job"]:
                created = self._through_job(namespace, data, runs)
            else:
                created = len(memory_import(namespace=namespace, data=data).created)
            seconds = time.perf_counter() - started
            if created != size:
                raise CommandError(f"imported {created} of {size} files")
            row = {
                "seconds": round(seconds, 2),
                "files_per_s": round(size / seconds, 1),
                "archive_bytes": len(data),
            }
            how = ""
            if opts["job"]:
                row["job_runs"] = len(runs.durations)
                row["longest_run_s"] = round(max(runs.durations), 1)
                how = (
                    f", {row['job_runs']} run(s) of the job, longest {row['longest_run_s']} s"
                    f" (timeout {settings.GITLOOM_JOB_TIMEOUT} s)"
                )
            report["sizes"][str(size)] = row
            self.stdout.write(
                f"{size:>8,} files: {row['files_per_s']:8.1f} files/s "
                f"({row['seconds']:.1f} s, archive {len(data) / 1e6:.2f} MB), committed and "
                f"indexed{how}"
            )
        report["load_average"] = [round(x, 2) for x in os.getloadavg()]
        self.stdout.write(f"load average {report['load_average']} ({os.cpu_count()} cores)")
        if opts["json"]:
            self.stdout.write(json.dumps(report))

    def _through_job(self, namespace, data: bytes, runs: _Runs) -> int:
        from memories.jobs import drains_inline
        from memories.models import Job
        from memories.services import import_accept

        jobs_logger = logging.getLogger("gitloom.jobs")
        jobs_logger.addHandler(runs)
        try:
            with drains_inline():
                job = import_accept(namespace=namespace, data=data)
        finally:
            jobs_logger.removeHandler(runs)
        job.refresh_from_db()
        if job.status != Job.Status.DONE:
            raise CommandError(f"the import job ended {job.status}: {job.error_message}")
        return len(job.result["created"])


class _Runs(logging.Handler):
    """The duration of each run of a job, from the queue's log lines."""

    def __init__(self):
        super().__init__()
        self.started: float | None = None
        self.durations: list[float] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = str(record.msg)
        if message.startswith("job started"):
            self.started = record.created
        elif self.started is not None and message.startswith("job "):
            self.durations.append(record.created - self.started)
            self.started = None
