"""Benchmark: concurrent `GET /v1/retrieve` against a running `serve`.

Builds (once, in a scratch data directory kept under ``--data-dir``) a namespace of
``--memories`` synthetic memories imported through the real import path, starts `serve`
on it, and sends retrievals from 1, 50 and 200 concurrent clients (one thread and
keep-alive connection per client, in one process), each level for ``--seconds``.
Queries are drawn from the memories' own cues, rotated so a process-level query cache
does not answer them all. Prints requests/s and client-side p50/p95 per level, the CPU
each request cost the web server, Postgres and the load generator (process CPU times
over the level), and the resident memory of each service process; with ``--json`` one
JSON object as the last line.

``--target LABEL=URL`` (repeatable) measures servers already running on that data
directory instead of starting one, alternating them at every level (A B, then B A at
the next): two commits' ``serve`` side by side, on one machine whose load drifts.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

SETUP = """
import json, random, sys, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from accounts.services import account_create, api_key_create
from memories.services import memory_import
from memories.synthetic import synthetic_archive
from namespaces.services import namespace_create

count, seed = int(sys.argv[1]), int(sys.argv[2])
account = account_create(account_id="load")
namespace = namespace_create(account=account, name="default")
secret = api_key_create(account=account, name="load")[1]
data, cues = synthetic_archive(count=count, seed=seed)
memory_import(namespace=namespace, data=data)
queries = random.Random(seed).sample(cues, min(len(cues), 2000))
print(json.dumps({"secret": secret, "queries": queries}))
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _level(
    port: int, secret: str, queries: list[str], clients: int, seconds: float, cpu=None
) -> dict:
    """``clients`` threads, each with its own keep-alive connection, sending retrievals
    back to back for ``seconds``.

    The load generator runs on the machine it measures, so it must cost the server as
    little CPU as possible: ``http.client`` in threads spends ~0.5 ms of CPU per request
    here, asyncio + httpx 1.8-3 ms, which on 2 cores at ~100 requests/s took about a tenth
    of the machine from the service being measured."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    headers = {"Authorization": f"Bearer {secret}"}
    deadline = time.monotonic() + seconds

    def one_client(offset: int) -> None:
        nonlocal errors
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine: list[float] = []
        failed = 0
        i = offset
        while time.monotonic() < deadline:
            query = queries[i % len(queries)]
            i += clients
            path = "/v1/retrieve?" + urllib.parse.urlencode({"query": query, "limit": 10})
            sent = time.monotonic()
            try:
                connection.request("GET", path, headers=headers)
                response = connection.getresponse()
                response.read()
            except (OSError, http.client.HTTPException):
                # A connection the server closed or reset (a keep-alive connection it
                # timed out as the client reused it, a full accept queue): counted, and
                # the client reconnects and goes on, as a real one retrying would.
                failed += 1
                connection.close()
                continue
            if response.status == 200:
                mine.append(time.monotonic() - sent)
            else:
                failed += 1
        connection.close()
        with lock:
            latencies.extend(mine)
            errors += failed

    threads = [threading.Thread(target=one_client, args=(n,)) for n in range(clients)]
    before = cpu.sample() if cpu else None
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    if not latencies:
        raise CommandError(f"no successful request at {clients} clients ({errors} errors)")
    result = {
        "clients": clients,
        "requests": len(latencies),
        "errors": errors,
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 1),
        "p95_ms": round(_percentile(latencies, 0.95) * 1000, 1),
    }
    if cpu:
        spent = cpu.since(before)
        result["cpu_ms_per_request"] = {
            part: round(seconds * 1000 / len(latencies), 2) for part, seconds in spent.items()
        }
    return result


class CpuMeter:
    """Process CPU seconds of a server (every process listening on its port, and their
    children), of the Postgres serving its data directory, and of this process (the load
    generator), between two samples."""

    def __init__(self, port: int, data_dir: Path | None) -> None:
        import psutil

        self.psutil = psutil
        listening = {
            c.pid
            for c in psutil.net_connections("tcp")
            if c.status == psutil.CONN_LISTEN and c.laddr.port == port and c.pid
        }
        self.web = [self._master(psutil.Process(pid)) for pid in listening]
        self.postmaster = None
        pidfile = data_dir / "postgres" / "postmaster.pid" if data_dir else None
        if pidfile and pidfile.exists():
            self.postmaster = psutil.Process(int(pidfile.read_text().split("\n", 1)[0]))

    @staticmethod
    def _master(process):
        """The listening socket is reported under one of gunicorn's processes: its
        master, with every worker below it, is the server."""
        parent = process.parent()
        while parent is not None and "gunicorn" in parent.name():
            process, parent = parent, parent.parent()
        return process

    def _each(self, roots) -> dict[int, float]:
        """pid -> CPU seconds of every process of ``roots``' families."""
        found: dict[int, float] = {}
        for root in roots:
            try:
                family = [root, *root.children(recursive=True)]
            except self.psutil.Error:
                continue
            for process in family:
                try:
                    times = process.cpu_times()
                except self.psutil.Error:
                    continue
                found[process.pid] = times.user + times.system
        return found

    def sample(self) -> dict[str, dict[int, float]]:
        own = self.psutil.Process()
        return {
            "web": self._each(self.web),
            "postgres": self._each([self.postmaster] if self.postmaster else []),
            "load_generator": self._each([own]),
        }

    def since(self, before: dict[str, dict[int, float]]) -> dict[str, float]:
        """CPU seconds spent since ``before``, process by process: one that started
        meanwhile (a new Postgres backend) counts whole, one that ended (an idle
        backend of another server) takes only its own CPU with it."""
        spent = {}
        for part, now in self.sample().items():
            spent[part] = sum(
                max(0.0, cpu - before[part].get(pid, 0.0)) for pid, cpu in now.items()
            )
        return spent


def _service_memory_mb(root_pid: int) -> dict[str, float]:
    import psutil

    sizes: dict[str, float] = {}
    for process in [psutil.Process(root_pid), *psutil.Process(root_pid).children(recursive=True)]:
        try:
            name = " ".join(process.cmdline()[:2]) or process.name()
            sizes[f"{process.pid} {name[:50]}"] = round(process.memory_info().rss / 2**20, 1)
        except psutil.Error:
            continue
    return sizes


class Command(BaseCommand):
    help = "Requests/s and client p50/p95 of /v1/retrieve at 1, 50 and 200 clients."

    def add_arguments(self, parser):
        parser.add_argument("--memories", type=int, default=10_000)
        parser.add_argument("--clients", default="1,50,200")
        parser.add_argument("--seconds", type=float, default=15)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--data-dir", help="scratch data dir (kept; reused if it has data)")
        parser.add_argument("--serve-args", default="", help="extra arguments for serve")
        parser.add_argument(
            "--target",
            action="append",
            default=[],
            help="LABEL=URL of a server already running on --data-dir (repeat: alternated)",
        )
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(
        self,
        *args,
        memories: int,
        clients: str,
        seconds: float,
        seed: int,
        data_dir: str | None,
        serve_args: str,
        target: list[str],
        as_json: bool,
        **options,
    ):
        scratch = Path(data_dir or tempfile.mkdtemp(prefix="gitloom-bench-load-"))
        scratch.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env["GITLOOM_DATA_DIR"] = str(scratch)
        setup_file = scratch / "bench-load.json"
        if not setup_file.exists():
            self.stdout.write(f"Importing {memories:,} memories into {scratch} ...")
            started = time.monotonic()
            done = subprocess.run(  # noqa: S603  (our interpreter, our script)
                [sys.executable, "-c", SETUP, str(memories), str(seed)],
                cwd=settings.BASE_DIR,
                env=dict(env, DJANGO_SETTINGS_MODULE="server.settings"),
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise CommandError(f"Setting up the namespace failed:\n{done.stderr[-3000:]}")
            setup_file.write_text(done.stdout.strip().splitlines()[-1])
            self.stdout.write(f"  imported and indexed in {time.monotonic() - started:.0f} s")
        setup = json.loads(setup_file.read_text())
        queries = setup["queries"]
        random.Random(seed).shuffle(queries)

        levels_wanted = [int(c) for c in clients.split(",")]
        if target:
            self._against_targets(target, scratch, setup, queries, levels_wanted, seconds, as_json)
            return
        port = _free_port()
        log_path = scratch / "bench-load-serve.log"
        with open(log_path, "w") as log:
            process = subprocess.Popen(  # noqa: S603
                [
                    sys.executable,
                    "manage.py",
                    "serve",
                    "--port",
                    str(port),
                    "--mcp-port",
                    "0",
                    *serve_args.split(),
                ],
                cwd=settings.BASE_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                deadline = time.monotonic() + 300
                while "is listening on" not in log_path.read_text():
                    if process.poll() is not None or time.monotonic() > deadline:
                        raise CommandError(f"serve did not come up:\n{log_path.read_text()}")
                    time.sleep(0.1)
                levels = []
                cpu = CpuMeter(port, scratch)
                for count in levels_wanted:
                    result = _level(port, setup["secret"], queries, count, seconds, cpu)
                    levels.append(result)
                    self.stdout.write(_level_line(result))
                memory = _service_memory_mb(process.pid)
            finally:
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=120)
        for name, mb in memory.items():
            self.stdout.write(f"  rss {mb:>7.1f} MB  {name}")
        if as_json:
            self.stdout.write(
                json.dumps({"memories": memories, "levels": levels, "rss_mb": memory})
            )

    def _against_targets(self, targets, scratch, setup, queries, levels_wanted, seconds, as_json):
        servers = []
        for item in targets:
            label, _, url = item.partition("=")
            port = urllib.parse.urlsplit(url).port
            if not port:
                raise CommandError(f"--target wants LABEL=http://host:port, got {item!r}")
            servers.append((label, port, CpuMeter(port, scratch)))
        self.stdout.write(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
        results: dict[str, list[dict]] = {label: [] for label, _, _ in servers}
        for i, count in enumerate(levels_wanted):
            for label, port, cpu in servers if i % 2 == 0 else servers[::-1]:
                # The same questions to each: every server has its own query cache.
                result = _level(port, setup["secret"], queries, count, seconds, cpu)
                results[label].append(result)
                self.stdout.write(f"{label:>8} " + _level_line(result))
        self.stdout.write(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
        if as_json:
            self.stdout.write(json.dumps({"targets": results}))


def _level_line(result: dict) -> str:
    line = (
        f"{result['clients']:>4} clients: {result['requests_per_s']:>7.1f} req/s, "
        f"p50 {result['p50_ms']:>7.1f} ms, p95 {result['p95_ms']:>7.1f} ms, "
        f"errors {result['errors']}"
    )
    cpu = result.get("cpu_ms_per_request")
    if cpu:
        line += "; CPU ms/request: " + ", ".join(f"{part} {ms}" for part, ms in cpu.items())
    return line
