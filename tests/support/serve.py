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
