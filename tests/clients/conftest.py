"""A live GitLoom over real HTTP for the Python client and the MCP server.

The API is pytest-django's ``live_server`` (a threaded WSGI server in this process, on
the test database and the test's object store) with jobs run inline as they are
accepted (``GITLOOM_QUEUE_SYNC``), so a job is done by the time a client polls it. The
MCP server runs as its real command, ``manage.py mcp``, in a subprocess that calls that
API over HTTP.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.conf import settings

CONVERSATION = [
    {
        "role": "user",
        "content": "I just bought a Sony A7III camera from Fotocentre in Bengaluru.",
        "id": "msg-1",
    },
    {"role": "assistant", "content": "Congratulations! Enjoy the new camera."},
]


def backfill(days_ago: int, content: str, message_id: str) -> list[dict]:
    """One user message said ``days_ago`` days back (at 10:00 UTC), as a backfill of an
    old conversation would post it."""
    from datetime import UTC, datetime, timedelta

    when = (datetime.now(UTC) - timedelta(days=days_ago)).replace(
        hour=10, minute=0, second=0, microsecond=0
    )
    stamp = when.isoformat().replace("+00:00", "Z")
    return [{"role": "user", "content": content, "id": message_id, "timestamp": stamp}]


def days_ago(days: int) -> str:
    from datetime import UTC, datetime, timedelta

    return (datetime.now(UTC) - timedelta(days=days)).date().isoformat()


BACKFILL_CAMERA = "I bought a Sony A7III camera from Fotocentre in Bengaluru."
BACKFILL_DOG = "I adopted a beagle named Biscuit from the shelter in Pune."


@pytest.fixture
def service(live_server, settings) -> str:
    """The base URL of a live API whose jobs run inline."""
    settings.GITLOOM_QUEUE_SYNC = True
    return live_server.url


def api_key(account, name: str = "client-tests") -> str:
    from accounts.services import api_key_create

    return api_key_create(account=account, name=name)[1]


@pytest.fixture
def acme_key(account) -> str:
    return api_key(account)


@pytest.fixture
def globex_key(other_account) -> str:
    return api_key(other_account)


@pytest.fixture
def gl(service, acme_key):
    from gitloom_client import GitLoom

    with GitLoom(service, api_key=acme_key) as client:
        yield client


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def relay_data_dir() -> Path:
    """The data directory a ``manage.py mcp`` child is given: it only relays to the API,
    so this directory must never appear."""
    return Path(settings.GITLOOM_DATA_DIR) / "mcp-relay-never-created"


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment of a ``manage.py mcp`` child, as a desktop agent's config gives it:
    no ``DATABASE_URL`` and a data directory of its own that must stay absent, since the
    command only calls the API."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("GITLOOM_API_") and k != "DATABASE_URL"
    }
    env["GITLOOM_DATA_DIR"] = str(relay_data_dir())
    env.update(extra)
    return env


def manage_py() -> list[str]:
    return [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]


@pytest.fixture(scope="session")
def mcp_http(live_server, django_db_setup, tmp_path_factory):
    """``manage.py mcp --http`` calling the live API; yields its MCP endpoint URL."""
    env = subprocess_env()
    port = free_port()
    log_path = tmp_path_factory.mktemp("mcp-http") / "mcp.log"
    log = open(log_path, "w+")  # noqa: SIM115
    process = subprocess.Popen(
        [*manage_py(), "mcp", "--http", "--port", str(port), "--api-url", live_server.url],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            assert process.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, log_path.read_text()
            if "is listening on" in log_path.read_text():
                break
            time.sleep(0.2)
        # It said so once it listens: it answers at once.
        assert httpx.get(f"{base}/healthz", timeout=5).status_code == 200
        yield f"{base}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        log.close()
