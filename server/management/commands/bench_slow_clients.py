"""Benchmark: what a normal client waits for while hundreds of slow clients hold
connections open to a running server.

First quiet, then under attack, one keep-alive client sends ``GET /v1/whoami`` and
``GET /v1/retrieve`` (a fresh question each time, as bench_http does) in turn and the
p50/p95 of each are printed. The attack keeps ``--slow`` connections open for the whole
second phase, from loopback addresses 127.0.0.2 and up (``--per-address`` each, under
the server's per-client bound): half send their headers a byte at a time, half send
whole headers announcing a body and then trickle the body a byte at a time. The server
answers each 408 when its deadline passes; the attacker opens another at once, so the
count never drops. Prints the CPU name, the quiet and attacked figures, their ratio,
the fewest slow connections open during the measurement and how many were dropped.
"""

from __future__ import annotations

import selectors
import socket
import threading
import time
import urllib.parse

from django.core.management.base import BaseCommand

from server.management.commands.bench_http import Target, cpu_name, fresh_queries, summary


class Attack:
    """``count`` slow connections kept open by one thread."""

    def __init__(self, host: str, port: int, count: int, per_address: int) -> None:
        self.host, self.port, self.count, self.per_address = host, port, count, per_address
        self.selector = selectors.DefaultSelector()
        self.open = 0
        self.fewest_open: int | None = None
        self.dropped = 0
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        for index in range(self.count):
            self._open(index)
        self.thread.start()

    def measure_from_now(self) -> None:
        self.fewest_open = self.open

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join()
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()

    def _open(self, index: int) -> None:
        source = f"127.0.0.{2 + index // self.per_address}"
        sock = socket.socket()
        sock.bind((source, 0))
        sock.connect((self.host, self.port))
        sock.setblocking(False)
        if index % 2:
            head = b"POST /v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n\r\n"
            sock.send(head)
            rest = b"{" * 4096
        else:
            rest = b"GET /v1/whoami HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4096
        self.selector.register(sock, selectors.EVENT_READ, [index, rest])
        self.open += 1

    def _run(self) -> None:
        while not self.stopping.is_set():
            # Anything readable is the server's 408 (or its close): open another.
            for key, _ in self.selector.select(timeout=0):
                index = key.data[0]
                self.selector.unregister(key.fileobj)
                key.fileobj.close()
                self.open -= 1
                self.dropped += 1
                self._open(index)
            if self.fewest_open is not None:
                self.fewest_open = min(self.fewest_open, self.open)
            # One byte on every connection a second.
            for key in list(self.selector.get_map().values()):
                rest = key.data[1]
                try:
                    key.fileobj.send(rest[:1])
                except OSError:
                    continue
                key.data[1] = rest[1:] or rest
            self.stopping.wait(1.0)


class Command(BaseCommand):
    help = "Normal clients' p50/p95 while hundreds of slow connections are held open."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--key", required=True)
        parser.add_argument("--namespace", default="default")
        parser.add_argument("--requests", type=int, default=200, help="of each kind, per phase")
        parser.add_argument("--slow", type=int, default=500)
        parser.add_argument("--per-address", type=int, default=40)
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument(
            "--seconds",
            type=float,
            default=30.0,
            help="the attacked phase lasts at least this long (past the server's deadlines)",
        )

    def handle(
        self, *args, url, key, namespace, requests, slow, per_address, seed, seconds, **options
    ):
        seed = seed if seed is not None else time.time_ns() % 2**31
        queries = iter(fresh_queries(40 * requests + 20, seed, 10**9))
        address = urllib.parse.urlsplit(url)
        self.stdout.write(f"CPU: {cpu_name()}")

        def phase(label: str, lasting: float = 0.0) -> dict:
            target = Target(label, url, None, key, None)
            for _ in range(10):  # warm the connection and the server's threads
                target.whoami(record=False)
                target.retrieve(next(queries), namespace, record=False)
            until = time.monotonic() + lasting
            sent = 0
            while sent < requests or time.monotonic() < until:
                target.whoami()
                target.retrieve(next(queries), namespace)
                sent += 1
                time.sleep(0.02)  # a client that asks now and then, not a flood
            target.close()
            return {kind: summary(target.samples[kind]) for kind in ("whoami", "retrieve")}

        quiet = phase("quiet")
        attack = Attack(address.hostname, address.port or 80, slow, per_address)
        attack.start()
        try:
            time.sleep(2.0)
            attack.measure_from_now()
            attacked = phase("attacked", seconds)
            fewest = attack.fewest_open
        finally:
            attack.stop()
        self.stdout.write(
            f"slow connections: {slow} opened, fewest open while measuring {fewest}, "
            f"dropped by the server and reopened {attack.dropped}"
        )
        for kind in ("whoami", "retrieve"):
            before, during = quiet[kind], attacked[kind]
            self.stdout.write(
                f"{kind:9} quiet p50 {before['p50_ms']:7.2f} ms  p95 {before['p95_ms']:7.2f} ms | "
                f"{slow} slow p50 {during['p50_ms']:7.2f} ms  p95 {during['p95_ms']:7.2f} ms | "
                f"p95 ratio {during['p95_ms'] / before['p95_ms']:.2f}  (n={during['n']})"
            )
