"""`manage.py serve` runs the real service: gunicorn and the queue workers."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from django.conf import settings

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serve_answers_the_api_and_stops_cleanly(transactional_db, tmp_path, api):
    from django.db import connection

    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"]["host"]
    port = _free_port()
    env = dict(
        os.environ,
        DATABASE_URL=f"postgresql://{db['USER']}@/{db['NAME']}?host={host}",
        GITLOOM_DATA_DIR=str(tmp_path),
    )
    log = open(tmp_path / "serve.log", "w+")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port), "--web-workers", "1"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/v1/whoami",
                    headers={"Authorization": f"Bearer {api.secret}"},
                )
                with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310
                    body = json.loads(response.read())
                break
            except OSError:
                assert process.poll() is None, (tmp_path / "serve.log").read_text()
                assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                time.sleep(0.5)
        assert body["account"] == "acme"
        with urllib.request.urlopen(  # noqa: S310
            f"http://127.0.0.1:{port}/static/admin/css/base.css", timeout=5
        ) as response:
            assert response.status == 200
        printed = (tmp_path / "serve.log").read_text()
        assert f"http://127.0.0.1:{port}/" in printed
        assert "create_api_key" in printed
        # The queue workers came up with the service.
        from django_q.models import Schedule

        assert Schedule.objects.filter(func="memories.jobs.requeue_pending").exists()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0, (tmp_path / "serve.log").read_text()
        log.close()
