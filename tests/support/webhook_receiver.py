"""A real HTTP webhook receiver on loopback (http.server in a thread) for the tests.

``mode`` decides how it answers: ``ok`` (204), ``error`` (500), ``hang`` (reads the
request, then says nothing until ``hang_for`` seconds pass), ``trickle`` (its answer's
status line and headers one byte a second, for ``hang_for`` seconds), ``redirect`` (307
to ``redirect_to``). ``stop()`` takes it down (connections refused) and ``start()`` brings
it back on the same port. Every request that reached it is kept in ``received``.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float

    @property
    def json(self) -> dict:
        return json.loads(self.body)

    @property
    def message_id(self) -> str:
        return self.headers["webhook-id"]


class Receiver:
    def __init__(self, mode: str = "ok"):
        self.mode = mode
        self.hang_for = 30.0
        self.redirect_to = "http://127.0.0.1:9/"
        self.received: list[Received] = []
        self.port = 0
        self._server: ThreadingHTTPServer | None = None
        self._lock = threading.Lock()
        self._released = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver._lock:
                    receiver.received.append(
                        Received({k.lower(): v for k, v in self.headers.items()}, body, time.time())
                    )
                mode = receiver.mode
                if mode == "hang":
                    receiver._released.wait(receiver.hang_for)
                    return
                if mode == "trickle":
                    # Every read the sender makes gets a byte within a second: a
                    # per-read timeout never fires.
                    head = b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000
                    until = time.monotonic() + receiver.hang_for
                    for byte in head:
                        if time.monotonic() > until or receiver._released.wait(1.0):
                            return
                        try:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                        except OSError:
                            return
                    return
                if mode == "redirect":
                    self.send_response(307)
                    self.send_header("Location", receiver.redirect_to)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status, text = (204, b"") if mode == "ok" else (500, b"x" * 100_000)
                self.send_response(status)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

        self._released.clear()
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._released.set()  # hanging handlers end
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def ids(self) -> list[str]:
        with self._lock:
            return [r.message_id for r in self.received]

    def __enter__(self) -> Receiver:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
