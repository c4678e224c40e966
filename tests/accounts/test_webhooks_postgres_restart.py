"""Deliveries resume within seconds of Postgres coming back: the real `serve` on its own
embedded Postgres, whose server is killed (serve starts it again), and a real receiver.
django-q2's pusher used to sleep 10 s and exit on a broker error (and a delivery waited
minutes in the probe); the queue's pusher now waits a second and tries again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import psutil
import pytest
from django.conf import settings

from tests.support.serve import free_port, wait_for_banner
from tests.support.webhook_receiver import Receiver

pytestmark = pytest.mark.slow


def _manage(tmp_path, *args: str, code: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(GITLOOM_DATA_DIR=str(tmp_path), GITLOOM_WEBHOOK_ALLOW_LOCAL="1")
    command = [sys.executable, "manage.py", *args] + (["-c", code] if code else [])
    done = subprocess.run(
        command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip().splitlines()[-1]


def _call(port: int, key: str, method: str, path: str, body: dict | None = None) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def test_deliveries_resume_within_seconds_of_postgres_coming_back(serve_dir):
    tmp_path = serve_dir
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    port = free_port()
    log = open(tmp_path / "serve.log", "w+")  # noqa: SIM115
    process = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "serve",
            "--port",
            str(port),
            "--web-workers",
            "1",
            "--mcp-port",
            "0",
        ],  # fmt: skip
        cwd=settings.BASE_DIR,
        env=dict(
            env,
            GITLOOM_DATA_DIR=str(tmp_path),
            GITLOOM_WORKERS="1",
            GITLOOM_WEBHOOK_ALLOW_LOCAL="1",
        ),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        with Receiver() as receiver:
            wait_for_banner(process, tmp_path)
            _manage(tmp_path, "create_account", "hooked")
            key = _manage(tmp_path, "create_api_key", "hooked", "--name", "k")
            _manage(
                tmp_path,
                "shell",
                code=(
                    "from accounts.models import Account\n"
                    "from accounts.webhooks.services import endpoint_create\n"
                    "endpoint_create(account=Account.objects.get(id='hooked'), "
                    f"url={receiver.url!r}, events=['namespace.created'])"
                ),
            )
            assert _call(port, key, "POST", "/v1/namespaces", {"name": "before"}) == 201
            deadline = time.monotonic() + 30
            while len(receiver.received) < 1:
                assert time.monotonic() < deadline, "the first delivery never came"
                time.sleep(0.1)

            pidfile = tmp_path / "postgres" / "postmaster.pid"
            psutil.Process(int(pidfile.read_text().split("\n", 1)[0])).kill()
            time.sleep(1)
            deadline = time.monotonic() + 60
            while _call(port, key, "GET", "/v1/whoami") != 200:
                assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
                time.sleep(0.2)
            back = time.monotonic()
            assert _call(port, key, "POST", "/v1/namespaces", {"name": "after"}) == 201
            while len(receiver.received) < 2:
                assert time.monotonic() - back < 5, "no delivery within 5 s of the database"
                time.sleep(0.1)
            print(f"\ndelivered {time.monotonic() - back:.2f} s after the API was back")
            assert receiver.received[-1].json["data"]["namespace"] == "after"
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
        log.close()
