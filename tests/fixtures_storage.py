"""Object-storage fixtures: a real S3-compatible server and both store backends.

- ``moto_server`` (session): moto's S3 implementation served over real HTTP by a
  separate process on a free 127.0.0.1 port, with fake credentials in the
  environment (inherited by worker processes the tests spawn).
- ``local_store`` / ``s3_store``: a fresh store per test (a temp directory; a fresh
  bucket).
- ``object_store``: parametrized over ``local`` and ``s3``; installs the store as the
  process's object store for the test, so one test body runs against both.

The server handles requests one at a time.  moto checks ``If-Match`` /
``If-None-Match`` and then writes in two separate steps, so two concurrent
conditional writes could both pass the check; real S3 decides them atomically.
Serialising requests gives moto that atomicity; the clients still race for real.

Run as a script (``python tests/fixtures_storage.py --serve``) this file is the server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

FAKE_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "gitloom-test",
    "AWS_SECRET_ACCESS_KEY": "gitloom-test-secret",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
}


def _serve() -> None:
    import threading

    from moto.moto_server.werkzeug_app import (
        DomainDispatcherApplication,
        MotoRequestHandler,
        create_backend_app,
    )
    from werkzeug.serving import make_server

    app = DomainDispatcherApplication(create_backend_app)
    lock = threading.Lock()

    def serialised(environ, start_response):
        # One request at a time, body included (see the module docstring).
        with lock:
            body = app(environ, start_response)
            try:
                return [b"".join(body)]
            finally:
                close = getattr(body, "close", None)
                if close is not None:
                    close()

    server = make_server(
        "127.0.0.1", 0, serialised, threaded=True, request_handler=MotoRequestHandler
    )
    print(f"PORT {server.server_port}", flush=True)
    server.serve_forever()


@pytest.fixture(scope="session")
def fake_aws_env() -> Iterator[dict[str, str]]:
    """Fake AWS credentials in os.environ for boto3 (and for spawned workers)."""
    patcher = pytest.MonkeyPatch()
    for key, value in FAKE_AWS_ENV.items():
        patcher.setenv(key, value)
    # Never let a developer's real AWS config leak into tests.
    patcher.setenv("AWS_CONFIG_FILE", os.devnull)
    patcher.setenv("AWS_SHARED_CREDENTIALS_FILE", os.devnull)
    yield FAKE_AWS_ENV
    patcher.undo()


@pytest.fixture(scope="session")
def moto_server(fake_aws_env) -> Iterator[str]:
    """The endpoint URL of a standalone moto S3 server for this test session."""
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **fake_aws_env},
        text=True,
    )
    try:
        line = process.stdout.readline() if process.stdout else ""
        if not line.startswith("PORT "):
            raise RuntimeError(f"moto server did not start (said {line!r})")
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout:
            process.stdout.close()


@pytest.fixture
def local_store(tmp_path):
    from namespaces.storage import LocalObjectStore

    return LocalObjectStore(tmp_path / "objects", cache_dir=tmp_path / "cache")


@pytest.fixture
def s3_store(moto_server, tmp_path):
    from namespaces.storage import S3ObjectStore

    store = S3ObjectStore(
        bucket=f"gitloom-test-{uuid.uuid4().hex[:12]}",
        endpoint_url=moto_server,
        region_name="us-east-1",
        cache_dir=tmp_path / "cache",
    )
    store.ensure_bucket()
    return store


@pytest.fixture(params=["local", "s3"])
def object_store(request):
    """Each test using this runs twice: local directory, then S3 over HTTP."""
    from namespaces.storage import using_object_store

    store = request.getfixturevalue(f"{request.param}_store")
    with using_object_store(store):
        yield store


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        _serve()
    else:
        sys.exit("usage: python tests/fixtures_storage.py --serve")
