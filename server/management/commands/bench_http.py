"""Benchmark: what one keep-alive client waits for, against running servers.

Sends, from one thread over one keep-alive connection per server, ``GET /v1/whoami``
(no retrieval at all: the HTTP stack and the key check), ``GET /v1/retrieve`` (limit
20) and, when an MCP address is given, the MCP ``search`` tool (a JSON-RPC
``tools/call`` over Streamable HTTP, which calls ``/v1/retrieve`` itself). Several
servers (``--target old=http://127.0.0.1:8400 --target new=http://127.0.0.1:8500``,
e.g. two commits serving one data directory) take turns request by request (A B A B,
then B A B A in the next round), so a machine whose load drifts treats them alike;
ratios are the later targets' over the first's. The CPU each request cost the server's
processes is measured too (same machine only; its Postgres only with one target, as
servers on one data directory share it).

Every retrieval sends a question no server of the run has seen (the synthetic
namespace's question shape, ``what <thing> did <person> buy in <place> #<n>``, drawn
with a fresh seed unless ``--seed`` is given; or ``--queries FILE``, one a line), the
same sequence to each target: the per-process query-embedding cache never answers, so
the query embedding is part of every retrieval. For each retrieval the client's time
minus the response's own ``took_ms`` is what the HTTP layer costs around the work.

Prints p50/p95 per target, the CPU and the load average before and after; with
``--json`` one JSON object as the last line. ``bench_load --data-dir`` builds a
10,000-memory namespace whose key it saves (``--data-dir`` here reads it).
"""

from __future__ import annotations

import http.client
import json
import os
import platform
import random
import statistics
import time
import urllib.parse
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from memories.synthetic import PEOPLE, PLACES, THINGS


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def fresh_queries(count: int, seed: int, limit_number: int) -> list[str]:
    rng = random.Random(seed)
    seen: set[str] = set()
    while len(seen) < count:
        thing, person, place = rng.choice(THINGS), rng.choice(PEOPLE), rng.choice(PLACES)
        seen.add(f"what {thing} did {person} buy in {place} #{rng.randrange(limit_number)}")
    queries = sorted(seen)
    rng.shuffle(queries)
    return queries


class Target:
    """One server: its keep-alive connections (API and MCP) and what was measured."""

    def __init__(
        self, label: str, url: str, mcp_url: str | None, key: str, data_dir: Path | None
    ) -> None:
        self.label = label
        api = urllib.parse.urlsplit(url)
        self.api = http.client.HTTPConnection(api.hostname, api.port or 80, timeout=60)
        self.mcp_path = None
        if mcp_url:
            mcp = urllib.parse.urlsplit(mcp_url)
            self.mcp = http.client.HTTPConnection(mcp.hostname, mcp.port or 80, timeout=60)
            self.mcp_path = mcp.path or "/mcp"
        self.headers = {"Authorization": f"Bearer {key}"}
        self.samples: dict[str, list[float]] = {
            "whoami": [], "retrieve": [], "retrieve_took": [], "retrieve_outside": [], "mcp": []
        }  # fmt: skip
        # CPU seconds the server's processes spent per kind of request (same machine only).
        self.api_cpu = _meter(api.port or 80, data_dir)
        self.mcp_cpu = _meter(mcp.port or 80, None) if mcp_url else None
        self.cpu: dict[str, dict[str, float]] = {}

    def cpu_before(self) -> dict:
        meters = {"api": self.api_cpu, "mcp": self.mcp_cpu}
        return {name: (meter, meter.sample()) for name, meter in meters.items() if meter}

    def cpu_after(self, kind: str, before: dict, with_postgres: bool) -> None:
        """Add the CPU the API server (and its Postgres, when only this server was
        measured: the servers share it) and the MCP server spent since ``before``."""
        spent = self.cpu.setdefault(kind, {})
        for name, (meter, sample) in before.items():
            for part, seconds in meter.since(sample).items():
                if part == "web" or (part == "postgres" and name == "api" and with_postgres):
                    label = "postgres" if part == "postgres" else name
                    spent[label] = spent.get(label, 0.0) + seconds

    def _get(self, path: str) -> tuple[float, bytes]:
        sent = time.perf_counter()
        response, body = _exchange(self.api, "GET", path, None, self.headers)
        elapsed = (time.perf_counter() - sent) * 1000
        if response.status != 200:
            raise CommandError(f"{self.label}: GET {path} answered {response.status}: {body[:300]}")
        return elapsed, body

    def whoami(self, record: bool = True) -> None:
        elapsed, _ = self._get("/v1/whoami")
        if record:
            self.samples["whoami"].append(elapsed)

    def retrieve(self, query: str, namespace: str, record: bool = True) -> None:
        path = "/v1/retrieve?" + urllib.parse.urlencode(
            {"query": query, "namespace": namespace, "limit": 20}
        )
        elapsed, body = self._get(path)
        took = json.loads(body)["took_ms"]
        if record:
            self.samples["retrieve"].append(elapsed)
            self.samples["retrieve_took"].append(took)
            self.samples["retrieve_outside"].append(elapsed - took)

    def mcp_search(self, query: str, namespace: str, record: bool = True) -> None:
        payload = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "search",
                    "arguments": {"query": query, "namespace": namespace, "limit": 20},
                },
            }
        )
        headers = {
            **self.headers,
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        sent = time.perf_counter()
        response, body = _exchange(self.mcp, "POST", self.mcp_path, payload, headers)
        elapsed = (time.perf_counter() - sent) * 1000
        answer = json.loads(body) if response.status == 200 else {}
        if response.status != 200 or answer.get("result", {}).get("isError"):
            raise CommandError(f"{self.label}: MCP search answered {response.status}: {body[:300]}")
        if record:
            self.samples["mcp"].append(elapsed)

    def close(self) -> None:
        self.api.close()
        if self.mcp_path:
            self.mcp.close()


def _exchange(connection, method, path, body, headers):
    """One request on a kept-alive connection; a connection the server closed while it
    sat idle (past its keep-alive timeout) is opened again, once."""
    for attempt in (1, 2):
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response, response.read()
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            connection.close()
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def _meter(port: int, data_dir: Path | None):
    """A CPU meter of the server listening on ``port`` here (and of the Postgres of
    ``data_dir``, when given), or None (not on this machine, or not visible to us)."""
    from server.management.commands.bench_load import CpuMeter

    try:
        meter = CpuMeter(port, data_dir)
    except Exception:  # noqa: BLE001 - psutil refused: measure latency only
        return None
    return meter if meter.web else None


def summary(samples: list[float]) -> dict | None:
    if not samples:
        return None
    return {
        "n": len(samples),
        "p50_ms": round(statistics.median(samples), 2),
        "p95_ms": round(percentile(samples, 0.95), 2),
    }


class Command(BaseCommand):
    help = "Client p50/p95 of /v1/whoami, /v1/retrieve and MCP search, servers alternated."

    def add_arguments(self, parser):
        parser.add_argument(
            "--target",
            action="append",
            required=True,
            help="LABEL=URL of a running server's API (repeat to alternate several)",
        )
        parser.add_argument(
            "--mcp",
            action="append",
            default=[],
            help="LABEL=URL of that server's MCP endpoint (e.g. http://127.0.0.1:8001/mcp)",
        )
        parser.add_argument("--key", help="API key (default: the one --data-dir's bench saved)")
        parser.add_argument("--data-dir", help="a bench_load data directory (its key)")
        parser.add_argument("--namespace", default="default")
        parser.add_argument("--queries", help="file of queries, one a line (default: fresh)")
        parser.add_argument("--seed", type=int, help="seed of the fresh queries (default: time)")
        parser.add_argument("--rounds", type=int, default=4)
        parser.add_argument("--requests", type=int, default=100, help="per kind, round, target")
        parser.add_argument("--warmup", type=int, default=20, help="unrecorded, per target")
        parser.add_argument("--json", action="store_true", dest="as_json")

    def handle(self, *args, **options):
        key = options["key"]
        if not key and options["data_dir"]:
            key = json.loads((Path(options["data_dir"]) / "bench-load.json").read_text())["secret"]
        if not key:
            raise CommandError("Give --key or --data-dir.")
        mcp_urls = dict(item.split("=", 1) for item in options["mcp"])
        targets = []
        for item in options["target"]:
            label, _, url = item.partition("=")
            if not url:
                raise CommandError(f"--target wants LABEL=URL, got {item!r}")
            data_dir = Path(options["data_dir"]) if options["data_dir"] else None
            targets.append(Target(label, url, mcp_urls.get(label), key, data_dir))
        rounds, per = options["rounds"], options["requests"]
        namespace = options["namespace"]
        warmup = options["warmup"]
        kinds_with_query = 1 + any(target.mcp_path for target in targets)
        wanted = (rounds * per + warmup) * kinds_with_query
        if options["queries"]:
            queries = [
                line.strip()
                for line in Path(options["queries"]).read_text().splitlines()
                if line.strip()
            ]
            if len(queries) < wanted:
                raise CommandError(f"{wanted} queries needed, the file has {len(queries)}.")
            seed = None
        else:
            seed = options["seed"] if options["seed"] is not None else int(time.time())
            queries = fresh_queries(wanted, seed, limit_number=100_000)
        before = load_average()
        self.stdout.write(
            f"CPU: {cpu_name()} x{os.cpu_count()}; load average before: {before}; "
            f"{rounds} rounds x {per} requests per kind and target; query seed {seed}"
        )
        warm_queries, queries = queries[:warmup * kinds_with_query], queries[warmup * kinds_with_query:]  # fmt: skip
        for target in targets:
            for i in range(warmup):
                target.whoami(record=False)
                target.retrieve(warm_queries[i], namespace, record=False)
                if target.mcp_path:
                    target.mcp_search(warm_queries[warmup + i], namespace, record=False)
        for r in range(rounds):
            # Request by request, A B A B ... (B A B A in the next round): a burst of
            # load on the shared machine falls on both servers alike.
            order = targets if r % 2 == 0 else targets[::-1]
            chunk = queries[r * per * kinds_with_query : (r + 1) * per * kinds_with_query]
            kinds = [
                ("whoami", lambda t, i: t.whoami()),
                ("retrieve", lambda t, i, c=chunk: t.retrieve(c[i], namespace)),
            ]
            if any(target.mcp_path for target in targets):
                kinds.append(("mcp", lambda t, i, c=chunk: t.mcp_search(c[per + i], namespace)))
            for kind, send in kinds:
                cpu_samples = [(target, target.cpu_before()) for target in targets]
                for i in range(per):
                    for target in order:
                        if kind != "mcp" or target.mcp_path:
                            send(target, i)
                for target, sample in cpu_samples:
                    target.cpu_after(kind, sample, with_postgres=len(targets) == 1)
        after = load_average()
        results = {}
        for target in targets:
            target.close()
            found = {kind: summary(values) for kind, values in target.samples.items()}
            found["cpu_ms_per_request"] = {
                kind: {part: round(sec * 1000 / (rounds * per), 2) for part, sec in parts.items()}
                for kind, parts in target.cpu.items()
            }
            results[target.label] = found
            line = (
                f"{target.label:>8}: whoami p50 {found['whoami']['p50_ms']:6.2f} "
                f"p95 {found['whoami']['p95_ms']:6.2f} ms | retrieve p50 "
                f"{found['retrieve']['p50_ms']:6.2f} p95 {found['retrieve']['p95_ms']:6.2f} ms, "
                f"took_ms p50 {found['retrieve_took']['p50_ms']:6.2f}, client minus took_ms "
                f"p50 {found['retrieve_outside']['p50_ms']:5.2f}"
            )
            if found["mcp"]:
                line += (
                    f" | MCP search p50 {found['mcp']['p50_ms']:6.2f} "
                    f"p95 {found['mcp']['p95_ms']:6.2f} ms "
                    f"(+{found['mcp']['p50_ms'] - found['retrieve']['p50_ms']:.2f} over retrieve)"
                )
            self.stdout.write(line)
            for kind, parts in found["cpu_ms_per_request"].items():
                self.stdout.write(
                    f"{'':>10}CPU ms per {kind}: "
                    + ", ".join(f"{part} {ms}" for part, ms in parts.items())
                )
        if len(targets) > 1:
            base = results[targets[0].label]
            for target in targets[1:]:
                mine = results[target.label]
                ratios = {
                    f"{kind} {q}": round(mine[kind][q] / base[kind][q], 2)
                    for kind in ("whoami", "retrieve", "retrieve_outside", "mcp")
                    if mine[kind] and base[kind] and base[kind]["p50_ms"] > 0
                    for q in ("p50_ms", "p95_ms")
                }
                self.stdout.write(
                    f"{target.label} / {targets[0].label}: "
                    + ", ".join(f"{name} {value}" for name, value in ratios.items())
                )
        self.stdout.write(f"load average after: {after}")
        if options["as_json"]:
            self.stdout.write(
                json.dumps(
                    {
                        "cpu": cpu_name(),
                        "load_before": before,
                        "load_after": after,
                        "seed": seed,
                        "results": results,
                    }
                )
            )
