"""The embedded Postgres the project starts when DATABASE_URL is unset."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection


@pytest.mark.skipif(not settings.EMBEDDED_POSTGRES, reason="DATABASE_URL names a server")
def test_the_embedded_server_runs_with_the_configured_shared_buffers(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_size_bytes(current_setting('shared_buffers')) = pg_size_bytes(%s)",
            [settings.GITLOOM_POSTGRES_SHARED_BUFFERS],
        )
        assert cursor.fetchone()[0]


def _postgres_processes(data_dir):
    import psutil

    pgdata = str(data_dir / "postgres")
    return [
        proc
        for proc in psutil.process_iter(attrs=["cmdline"])
        if pgdata in " ".join(proc.info["cmdline"] or [])
    ]


def test_a_user_killed_by_a_signal_leaves_no_record_that_keeps_the_server_running(tmp_path):
    # A process using the embedded server is SIGKILLed, so it never takes itself off
    # the server's record of users. The next process to use the server drops the dead
    # one from the record, and when it exits, as the last user, the server stops.
    import os
    import signal
    import subprocess
    import sys
    import time

    import psutil

    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["GITLOOM_DATA_DIR"] = str(tmp_path)
    pidfile = tmp_path / "postgres" / "postmaster.pid"
    user = subprocess.Popen(
        [sys.executable, "manage.py", "shell", "-c", "print('up', flush=True); input()"],
        cwd=settings.BASE_DIR,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        try:
            while (line := user.stdout.readline()) and line.strip() != "up":
                pass  # the shell's own banner
            assert line.strip() == "up" and pidfile.exists()
        finally:
            user.kill()
            user.wait(timeout=30)
        subprocess.run(
            [sys.executable, "manage.py", "shell", "-c", "pass"],
            cwd=settings.BASE_DIR,
            env=env,
            check=True,
            timeout=300,
        )
        deadline = time.monotonic() + 60
        while pidfile.exists():
            assert time.monotonic() < deadline, "the server outlived every user"
            time.sleep(0.2)
        psutil.wait_procs(_postgres_processes(tmp_path), timeout=10)
        assert not [p for p in _postgres_processes(tmp_path) if p.status() != "zombie"]
    finally:
        if pidfile.exists():  # failed: stop the server this test started
            os.kill(int(pidfile.read_text().split("\n", 1)[0]), signal.SIGTERM)
