"""Benchmark: how long `serve` takes to answer, and whether its first job is slower.

Each run starts `serve` on embedded defaults in a scratch data directory that already
holds an account, a key and a namespace (a restart, as a user's second day looks), and
measures:

- start → banner: from launching `serve` to its "is listening on" line;
- first request: the latency of a `/v1/retrieve` sent the moment the banner shows;
- start → first 200: the two together, what a user waiting for the banner sees;
- jobs: accept → done for a few small `POST /v1/memories` in a row; the first job's
  extra latency is its time less the median of the later ones;
- stop: SIGTERM → `serve` exited, and whether its embedded Postgres stopped with it.

With ``--fresh`` the data directory is new for each run (initdb and migrations
included in start → banner; the account and key are made after the banner, and that
gap is not counted). Prints a table and, with ``--json``, one JSON object as its last line.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

SETUP = """
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from accounts.services import account_create, api_key_create
from namespaces.services import namespace_create
account = account_create(account_id="bench")
namespace_create(account=account, name="default")
print(api_key_create(account=account, name="bench")[1])
"""

TRANSCRIPT = [
    {"role": "user", "content": "I have a three-year-old beagle named Biscuit."},
    {"role": "assistant", "content": "Biscuit sounds lovely."},
    {"role": "user", "content": "We are flying to Lisbon on December 19 for a week."},
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _call(url: str, secret: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(  # noqa: S310  (loopback http)
        url,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310  (loopback)
        return response.status, json.loads(response.read())


class Command(BaseCommand):
    help = "Measure serve's start → first answer, the first job's extra latency, and stop."

    def add_arguments(self, parser):
        parser.add_argument("--runs", type=int, default=3)
        parser.add_argument("--jobs", type=int, default=4, help="jobs per run (>= 2)")
        parser.add_argument("--fresh", action="store_true", help="a new data dir per run")
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, runs: int, jobs: int, fresh: bool, as_json: bool, **options):
        if jobs < 2:
            raise CommandError("--jobs must be at least 2 (the first job is compared).")
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        results = []
        scratch = Path(tempfile.mkdtemp(prefix="gitloom-bench-start-"))
        try:
            secret = None
            for run in range(runs):
                data_dir = scratch / (f"run-{run}" if fresh else "data")
                run_env = dict(env, GITLOOM_DATA_DIR=str(data_dir))
                if secret is None and not fresh:
                    secret = self._setup(run_env)
                results.append(self._one_run(run_env, data_dir, secret, jobs))
                self.stdout.write(self._row(run, results[-1]))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        summary = {
            "runs": results,
            "fresh_data_dir": fresh,
            "start_to_first_200_s_max": max(r["start_to_first_200_s"] for r in results),
            "first_request_after_banner_ms_max": max(
                r["first_request_after_banner_ms"] for r in results
            ),
            "first_job_extra_ms_max": max(r["first_job_extra_ms"] for r in results),
        }
        self.stdout.write(
            f"max over {runs} runs: start → first 200 {summary['start_to_first_200_s_max']:.1f} s, "
            f"first request after banner {summary['first_request_after_banner_ms_max']:.0f} ms, "
            f"first job's extra latency {summary['first_job_extra_ms_max']:.0f} ms"
        )
        if as_json:
            self.stdout.write(json.dumps(summary))

    def _setup(self, env: dict) -> str:
        """Make the data dir hold an account, a key and a namespace; return the key."""
        done = subprocess.run(  # noqa: S603  (our own interpreter and script)
            [sys.executable, "-c", SETUP],
            cwd=settings.BASE_DIR,
            env=dict(env, DJANGO_SETTINGS_MODULE="server.settings"),
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise CommandError(f"Setting up the scratch data dir failed:\n{done.stderr[-2000:]}")
        return done.stdout.strip().splitlines()[-1]

    def _one_run(self, env: dict, data_dir: Path, secret: str | None, jobs: int) -> dict:
        """One start of serve; ``secret`` None means a fresh data dir, whose account and
        key are made once serve is up (that gap is not counted)."""
        data_dir.mkdir(parents=True, exist_ok=True)
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        log_path = data_dir / "bench-serve.log"
        with open(log_path, "w") as log:
            started = time.monotonic()
            process = subprocess.Popen(  # noqa: S603
                [
                    sys.executable,
                    "manage.py",
                    "serve",
                    "--port",
                    str(port),
                    "--mcp-port",
                    str(_free_port()),
                ],
                cwd=settings.BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                while "is listening on" not in log_path.read_text():
                    if process.poll() is not None or time.monotonic() - started > 300:
                        raise CommandError(f"serve did not come up:\n{log_path.read_text()}")
                    time.sleep(0.05)
                banner = time.monotonic() - started
                if secret is None:
                    secret = self._setup(env)
                sent = time.monotonic()
                status, _ = _call(f"{base}/v1/retrieve?query=what+is+my+dog+called", secret)
                first_request = time.monotonic() - sent
                if status != 200:
                    raise CommandError(f"/v1/retrieve answered {status}")
                job_ms = [self._job_ms(base, secret) for _ in range(jobs)]
            finally:
                stop_sent = time.monotonic()
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=120)
                stop = time.monotonic() - stop_sent
        return {
            "start_to_banner_s": round(banner, 2),
            "first_request_after_banner_ms": round(first_request * 1000, 1),
            "start_to_first_200_s": round(banner + first_request, 2),
            "job_ms": [round(ms, 1) for ms in job_ms],
            "first_job_extra_ms": round(job_ms[0] - statistics.median(job_ms[1:]), 1),
            "stop_s": round(stop, 2),
            "postgres_stopped": not (data_dir / "postgres" / "postmaster.pid").exists(),
        }

    def _job_ms(self, base: str, secret: str) -> float:
        sent = time.monotonic()
        _, accepted = _call(f"{base}/v1/memories", secret, {"messages": TRANSCRIPT})
        job_id = accepted["job"]["id"]
        while True:
            _, job = _call(f"{base}/v1/jobs/{job_id}", secret)
            job = job["job"]
            if job["status"] in ("done", "failed"):
                if job["status"] == "failed":
                    raise CommandError(f"bench job failed: {job}")
                return (time.monotonic() - sent) * 1000
            time.sleep(0.01)

    def _row(self, run: int, result: dict) -> str:
        return (
            f"run {run + 1}: start → banner {result['start_to_banner_s']:.1f} s, "
            f"first request {result['first_request_after_banner_ms']:.0f} ms, "
            f"start → first 200 {result['start_to_first_200_s']:.1f} s; "
            f"jobs {result['job_ms']} ms (first +{result['first_job_extra_ms']:.0f} ms); "
            f"stop {result['stop_s']:.1f} s, postgres stopped: {result['postgres_stopped']}"
        )
