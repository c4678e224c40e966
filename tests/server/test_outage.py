"""A dependency that is down is `503 service_unavailable` with `Retry-After`, never 500.

The database case runs the real web server (gunicorn with the project's WSGI app) in
another process, pointed at a Postgres socket directory where no server listens: what a
stopped, crashed or restarting database looks like to a client. The object-storage
case points the real S3 client at a port where nothing listens.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time

import pytest
from django.conf import settings

from tests.support.serve import free_port


def _request(port: int, method: str, path: str, *, headers=None, body=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


@pytest.fixture
def server_without_database(tmp_path):
    """gunicorn serving the API with DATABASE_URL naming a socket where no Postgres is."""
    nowhere = tmp_path / "no-postgres-here"
    nowhere.mkdir()
    port = free_port()
    env = dict(
        os.environ,
        DATABASE_URL=f"postgresql://gitloom@/gitloom?host={nowhere}",
        GITLOOM_DATA_DIR=str(tmp_path / "data"),
    )
    log = open(tmp_path / "gunicorn.log", "w+")  # noqa: SIM115
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "server.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
        ],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _request(port, "GET", "/v1/whoami")
                break
            except OSError:
                assert process.poll() is None, (tmp_path / "gunicorn.log").read_text()
                assert time.monotonic() < deadline, (tmp_path / "gunicorn.log").read_text()
                time.sleep(0.3)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _assert_unavailable(status: int, headers: dict, body: bytes) -> None:
    assert status == 503, body
    assert int(headers["Retry-After"]) > 0
    assert headers["Content-Type"].startswith("application/json")
    error = json.loads(body)["error"]
    assert error["code"] == "service_unavailable"
    assert "database" in error["message"].lower()


BEARER = {"Authorization": "Bearer glk_" + "x" * 43}


@pytest.mark.slow
def test_every_call_is_503_with_retry_after_while_the_database_is_down(
    server_without_database,
):
    port = server_without_database
    # The API key lookup is the first thing to need the database.
    _assert_unavailable(*_request(port, "GET", "/v1/whoami", headers=BEARER))
    _assert_unavailable(*_request(port, "GET", "/v1/retrieve?query=camera", headers=BEARER))
    _assert_unavailable(*_request(port, "GET", "/v1/jobs?namespace=default", headers=BEARER))
    transcript = json.dumps({"messages": [{"role": "user", "content": "I bought a kayak."}]})
    _assert_unavailable(
        *_request(
            port,
            "POST",
            "/v1/memories",
            headers={**BEARER, "Content-Type": "application/json"},
            body=transcript,
        )
    )
    # A dashboard session is looked up in the database too.
    _assert_unavailable(
        *_request(port, "GET", "/v1/namespaces", headers={"Cookie": "sessionid=" + "a" * 32})
    )
    # Signing in to the dashboard is the 503 page too, not a 500 (the form itself
    # needs no database).
    status, headers, body = _request(port, "GET", "/login/")
    assert status == 200, body
    cookie = headers["Set-Cookie"].split(";", 1)[0]
    token = body.decode().split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    status, headers, body = _request(
        port,
        "POST",
        "/login/",
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": cookie,
            "Referer": f"http://127.0.0.1:{port}/login/",
        },
        body=f"csrfmiddlewaretoken={token}&username=pat&password=correct-horse-42",
    )
    assert status == 503 and int(headers["Retry-After"]) > 0, body
    assert b"Temporarily unavailable" in body
    # What needs no database still answers as usual.
    status, _, body = _request(port, "GET", "/v1/whoami")
    assert status == 401 and json.loads(body)["error"]["code"] == "not_authenticated"


def test_object_storage_down_is_503_with_retry_after(api, fake_aws_env, tmp_path):
    from namespaces.storage import S3ObjectStore, using_object_store

    assert api.post("/v1/namespaces", {"name": "notes"}, format="json").status_code == 201
    down = S3ObjectStore(
        bucket="gitloom-down",
        endpoint_url=f"http://127.0.0.1:{free_port()}",
        cache_dir=tmp_path / "cache-down",
    )
    with using_object_store(down):
        for response in (
            api.get("/v1/memories", {"namespace": "notes"}),
            api.post("/v1/namespaces", {"name": "more"}, format="json"),
        ):
            assert response.status_code == 503, response.json()
            assert int(response["Retry-After"]) > 0
            assert response.json()["error"]["code"] == "service_unavailable"
