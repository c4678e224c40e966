"""Slow clients cannot starve the real `serve`: a request whose headers or body do not
arrive in time is answered 408 and closed, clients that trickle bytes hold no thread,
and one client address holds a bounded number of waiting connections. Raw sockets,
since a client library would not send half a request."""

from __future__ import annotations

import json
import select
import socket
import time

import pytest

from tests.support.serve import serve_with_account, stop_serve

pytestmark = pytest.mark.slow

DEADLINE = 2.0  # the header and body time the service below is started with
PER_CLIENT = 16


@pytest.fixture(scope="module")
def service(django_db_setup, django_db_blocker, tmp_path_factory):
    with django_db_blocker.unblock():
        running = serve_with_account(
            tmp_path_factory.mktemp("slow-serve"),
            "slowpoke",
            GITLOOM_HTTP_HEADER_TIMEOUT=str(DEADLINE),
            GITLOOM_HTTP_BODY_TIMEOUT=str(DEADLINE),
            GITLOOM_HTTP_CONNECTIONS_PER_CLIENT=str(PER_CLIENT),
        )
        try:
            yield running
        finally:
            stop_serve(running, "slowpoke")


def _connect(service, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(15)
    sock.connect(("127.0.0.1", service.port))
    return sock


def _whoami(service, timeout: float = 5.0) -> tuple[int, dict]:
    with _connect(service) as sock:
        sock.settimeout(timeout)
        sock.sendall(
            b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Authorization: Bearer " + service.key.encode() + b"\r\n\r\n"
        )
        return _response(sock)


def _response(sock: socket.socket) -> tuple[int, dict]:
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_partial_headers_hold_no_thread_and_are_answered_408(service):
    # Sixty-four clients send half their headers and stop: with four request threads,
    # four were enough to stop the service before.
    stuck = []
    for _ in range(4):
        for source in ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"):
            for _ in range(4):
                sock = _connect(service, source)
                sock.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                stuck.append(sock)
    try:
        started = time.monotonic()
        status, body = _whoami(service)
        assert status == 200 and body["account"] == "slowpoke"
        assert time.monotonic() - started < 1.0
        # Each stuck request is answered 408 in JSON once its time is up, and closed.
        for sock in stuck:
            status, body = _response(sock)
            assert status == 408 and body["error"]["code"] == "request_too_slow"
        assert time.monotonic() - started < DEADLINE + 3
    finally:
        for sock in stuck:
            sock.close()


def test_headers_trickling_a_byte_at_a_time_still_meet_one_deadline(service):
    # The deadline is for the whole header block, not for each read.
    sock = _connect(service, "127.0.0.6")
    started = time.monotonic()
    request = b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + b"a" * 200
    try:
        for byte in request:
            try:
                sock.send(bytes([byte]))
            except OSError:
                break  # closed on us: the deadline passed
            time.sleep(0.05)
            if time.monotonic() - started > DEADLINE + 3:
                break
        status, body = _response(sock)
        assert status == 408, body
        assert DEADLINE - 0.5 < time.monotonic() - started < DEADLINE + 2
    finally:
        sock.close()


def test_a_partial_body_with_a_valid_key_is_dropped_and_holds_no_thread(service):
    partial = []
    for _ in range(8):
        sock = _connect(service, "127.0.0.7")
        sock.sendall(
            b"POST /v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Authorization: Bearer " + service.key.encode() + b"\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
            b'{"name": "tr'
        )
        partial.append(sock)
    try:
        status, _ = _whoami(service, timeout=1.0)
        assert status == 200
        for sock in partial:
            status, body = _response(sock)
            assert status == 408 and body["error"]["code"] == "request_too_slow"
    finally:
        for sock in partial:
            sock.close()
    # Nothing half-sent was created.
    with _connect(service) as sock:
        sock.sendall(
            b"GET /v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Authorization: Bearer " + service.key.encode() + b"\r\n\r\n"
        )
        status, body = _response(sock)
    assert status == 200 and body["namespaces"] == []


def _readable(socks: list[socket.socket], timeout: float) -> list[socket.socket]:
    """The sockets with something to read (or closed): poll, not select(), which fails
    on a descriptor above 1023 in a test process that has opened many before."""
    poller = select.poll()
    by_fd = {sock.fileno(): sock for sock in socks}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    return [by_fd[fd] for fd, _ in poller.poll(timeout * 1000)]


def test_one_address_holds_a_bounded_number_of_waiting_connections(service):
    idle = [_connect(service, "127.0.0.8") for _ in range(PER_CLIENT + 4)]
    try:
        time.sleep(0.5)
        readable = _readable(idle, 0.3)
        closed = [sock in readable and sock.recv(1) == b"" for sock in idle]
        # The longest-waiting ones were closed to make room, the newest are open.
        assert closed == [True] * 4 + [False] * PER_CLIENT
        # Another address is not affected, and a well-formed request on a kept
        # connection of the bounded address is still served.
        assert _whoami(service)[0] == 200
        sock = idle[-1]
        sock.settimeout(5)
        sock.sendall(
            b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            b"Authorization: Bearer " + service.key.encode() + b"\r\n\r\n"
        )
        assert _response(sock)[0] == 200
    finally:
        for sock in idle:
            sock.close()


def test_kept_alive_and_pipelined_requests_are_still_served(service):
    request = (
        b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Authorization: Bearer " + service.key.encode() + b"\r\n\r\n"
    )
    with _connect(service) as sock:
        # Two requests in one packet, then a third on the same connection.
        sock.sendall(request + request)
        received = b""
        while received.count(b"HTTP/1.1 200") < 2:
            received += sock.recv(65536)
        sock.sendall(request.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        while chunk := sock.recv(65536):
            received += chunk
    assert received.count(b"HTTP/1.1 200") == 3


def test_an_unknown_transfer_coding_is_a_json_400(service):
    with _connect(service) as sock:
        sock.sendall(
            b"POST /v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Transfer-Encoding: xchunked\r\n\r\n"
        )
        status, body = _response(sock)
    assert status == 400 and body["error"]["code"] == "unsupported_transfer_coding"


def test_a_huge_or_malformed_head_is_answered_at_once_not_read_forever(service):
    # Over the head limit, then nothing more: 431 at once, not after the deadline.
    with _connect(service, "127.0.0.9") as sock:
        started = time.monotonic()
        lines = b"".join(b"X-Pad-%d: %s\r\n" % (i, b"a" * 1000) for i in range(70))
        sock.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\n" + lines)
        status, body = _response(sock)
        assert status == 431 and body["error"]["code"] == "headers_too_large"
        assert time.monotonic() - started < DEADLINE
    # A whole head with a malformed line, the connection left open: gunicorn's 400 at
    # once, not a wait for bytes that will not come.
    with _connect(service, "127.0.0.9") as sock:
        started = time.monotonic()
        sock.sendall(b"GET /v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n")
        status, body = _response(sock)
        assert status == 400 and body["error"]["code"] == "bad_request"
        assert time.monotonic() - started < DEADLINE
