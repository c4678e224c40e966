"""A service process killed with SIGKILL leaves nothing running behind it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from django.conf import settings

from tests.support.serve import free_port, start_serve, wait_for_banner

pytestmark = pytest.mark.slow


def _test_database_url() -> str:
    from django.db import connection

    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"]["host"]
    return f"postgresql://{db['USER']}@/{db['NAME']}?host={host}"


def _descendants_once_started(process: subprocess.Popen, at_least: int) -> list[psutil.Process]:
    deadline = time.monotonic() + 180
    while True:
        found = psutil.Process(process.pid).children(recursive=True)
        if len(found) >= at_least:
            return found
        assert process.poll() is None, "the command stopped before it started its processes"
        assert time.monotonic() < deadline, f"only {len(found)} processes after 180 s"
        time.sleep(0.5)


def _left_running(processes: list[psutil.Process], timeout: float = 30) -> list[str]:
    _, alive = psutil.wait_procs(processes, timeout=timeout)
    left = []
    for proc in alive:
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                left.append(" ".join(proc.cmdline()))
        except psutil.NoSuchProcess:
            pass
    for proc in alive:  # do not leave them to the next test either
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    return left


def test_a_killed_queue_cluster_takes_its_sentinel_and_workers_with_it(
    transactional_db, tmp_path: Path
):
    log = open(tmp_path / "qcluster.log", "w+")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=settings.BASE_DIR,
        env=dict(
            os.environ,
            DATABASE_URL=_test_database_url(),
            GITLOOM_DATA_DIR=str(tmp_path),
            GITLOOM_WORKERS="2",
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        # the sentinel, two workers, the monitor and the pusher
        started = _descendants_once_started(process, at_least=5)
    finally:
        process.kill()
        process.wait(timeout=30)
    assert _left_running(started) == [], (tmp_path / "qcluster.log").read_text()


def test_a_killed_serve_takes_gunicorn_the_queue_and_the_mcp_server_with_it(
    transactional_db, tmp_path: Path
):
    port, mcp_port = free_port(), free_port()
    process = start_serve(tmp_path, port, mcp_port, DATABASE_URL=_test_database_url())
    try:
        wait_for_banner(process, tmp_path)
        started = psutil.Process(process.pid).children(recursive=True)
        commands = [" ".join(proc.cmdline()) for proc in started]
        assert any("gunicorn" in c for c in commands), commands
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert _left_running(started) == [], (tmp_path / "serve.log").read_text()
