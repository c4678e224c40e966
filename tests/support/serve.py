"""Starting the real service for a test: ``manage.py serve`` in a subprocess on free
ports, with its own data directory, and waiting for its banner."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_serve(tmp_path: Path, port: int, mcp_port: int, **env) -> subprocess.Popen:
    log = open(tmp_path / "serve.log", "w+")  # noqa: SIM115
    return subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "serve",
            "--port",
            str(port),
            "--web-workers",
            "1",
            "--mcp-port",
            str(mcp_port),
        ],
        cwd=settings.BASE_DIR,
        env=dict(os.environ, GITLOOM_DATA_DIR=str(tmp_path), GITLOOM_WORKERS="1", **env),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_for_banner(process: subprocess.Popen, tmp_path: Path, timeout: float = 180) -> str:
    deadline = time.monotonic() + timeout
    while True:
        printed = (tmp_path / "serve.log").read_text()
        if "is listening on" in printed:
            return printed
        assert process.poll() is None, printed
        assert time.monotonic() < deadline, printed
        time.sleep(0.2)


def test_database_url() -> str:
    """The test database, for a ``serve`` subprocess to run on."""
    from django.db import connection

    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"]["host"]
    return f"postgresql://{db['USER']}@/{db['NAME']}?host={host}"


class RunningServe:
    """A ``serve`` on the test database with one account and API key of its own."""

    def __init__(self, tmp_path: Path, process: subprocess.Popen, port: int, mcp_port: int):
        self.tmp_path, self.process, self.port, self.mcp_port = tmp_path, process, port, mcp_port
        self.key = ""

    def log(self) -> str:
        return (self.tmp_path / "serve.log").read_text()


def serve_with_account(tmp_path: Path, account_id: str, *, mcp: bool = True, **env) -> RunningServe:
    """Start ``serve`` (one web worker, MCP on unless told) on the test database, and
    create ``account_id`` with a key, committed, for raw clients to use. The caller
    stops it with :func:`stop_serve` (inside ``django_db_blocker.unblock()``)."""
    from accounts.services import account_create, api_key_create

    port, mcp_port = free_port(), free_port() if mcp else 0
    process = start_serve(tmp_path, port, mcp_port, DATABASE_URL=test_database_url(), **env)
    running = RunningServe(tmp_path, process, port, mcp_port)
    wait_for_banner(process, tmp_path)
    running.key = api_key_create(account=account_create(account_id=account_id), name="raw")[1]
    return running


def stop_serve(running: RunningServe, account_id: str) -> str:
    """SIGTERM, wait, remove the account; the log."""
    import signal

    from accounts.models import Account

    running.process.send_signal(signal.SIGTERM)
    try:
        running.process.wait(timeout=60)
    finally:
        Account.objects.filter(id=account_id).delete()
    return running.log()
