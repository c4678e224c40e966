"""/healthz and /readyz for load balancers and orchestrators, and /metrics summed over
``serve``'s processes.

The in-process tests check what needs no other process; the ``serve`` test runs the
whole service on its own embedded Postgres, stops that Postgres for real (fast
shutdown, as a crash or a restart looks to the app) and watches /readyz go 503 and
come back 200 once ``serve`` has started it again and a queue worker polls again."""

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
from prometheus_client.parser import text_string_to_metric_families

from tests.support.serve import free_port, wait_for_banner

TOKEN = "scrape-me"


def test_healthz_answers_without_credentials_or_the_database(anon):
    # No `db` fixture: any database access would raise here.
    response = anon.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_without_a_queue_worker_is_503_saying_so(anon, db):
    # No queue process runs beside the test process.
    response = anon.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["object_storage"] == "ok"
    assert body["checks"]["queue"] == "no live queue worker"
    assert body["down"] == ["queue"]
    assert body["error"]["code"] == "service_unavailable"
    assert int(response["Retry-After"]) > 0


def test_readyz_names_object_storage_when_it_is_down(anon, db, fake_aws_env, tmp_path):
    from namespaces.storage import S3ObjectStore, using_object_store

    down = S3ObjectStore(
        bucket="gitloom-down",
        endpoint_url=f"http://127.0.0.1:{free_port()}",
        cache_dir=tmp_path / "cache-down",
    )
    with using_object_store(down):
        response = anon.get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["object_storage"].startswith("unreachable")
    assert checks["database"] == "ok"
    assert "object_storage" in response.json()["down"]


def _get(port: int, path: str, key: str | None = None) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _post(port: int, path: str, key: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
        return response.status, json.loads(response.read())


def _wait_ready(port: int, deadline: float) -> dict:
    while True:
        status, body = _get(port, "/readyz")
        if status == 200:
            return json.loads(body)
        assert status == 503, body
        assert time.monotonic() < deadline, body
        time.sleep(0.5)


def _samples(text: str) -> dict[tuple[str, tuple], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


@pytest.mark.slow
def test_readyz_follows_a_postgres_stop_and_start_and_metrics_sum_every_process(serve_dir):
    tmp_path = serve_dir
    env = {
        k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "PROMETHEUS_MULTIPROC_DIR")
    }
    env.update(GITLOOM_DATA_DIR=str(tmp_path), GITLOOM_WORKERS="1", GITLOOM_METRICS_TOKEN=TOKEN)
    manage = [sys.executable, "manage.py"]
    port = free_port()
    log = open(tmp_path / "serve.log", "w+")  # noqa: SIM115
    process = subprocess.Popen(
        [*manage, "serve", "--port", str(port), "--web-workers", "2", "--mcp-port", "0"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        wait_for_banner(process, tmp_path)
        for command in (["create_account", "ops-test"], ["create_api_key", "ops-test"]):
            done = subprocess.run(
                [*manage, *command],
                cwd=settings.BASE_DIR,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
        key = done.stdout.strip().splitlines()[-1]
        ready = _wait_ready(port, time.monotonic() + 60)
        assert ready == {
            "status": "ready",
            "checks": {"database": "ok", "object_storage": "ok", "queue": "ok"},
        }

        # A job on the queue process, a retrieval on a web worker: one scrape has both.
        assert _post(port, "/v1/namespaces", key, {"name": "user-1"})[0] == 201
        transcript = {
            "namespace": "user-1",
            "messages": [{"role": "user", "content": "I bought a Sony A7III camera."}],
        }
        job = _post(port, "/v1/memories", key, transcript)[1]["job"]
        deadline = time.monotonic() + 90
        while json.loads(_get(port, f"/v1/jobs/{job['id']}", key)[1])["job"]["status"] != "done":
            assert time.monotonic() < deadline
            time.sleep(0.3)
        for _ in range(3):
            assert _get(port, "/v1/retrieve?namespace=user-1&query=camera", key)[0] == 200
        assert _get(port, "/metrics")[0] == 401
        status, text = _get(port, "/metrics", TOKEN)
        assert status == 200
        samples = _samples(text.decode())
        stage = ("gitloom_job_stage_duration_seconds_count", (("stage", "pipeline"),))
        assert samples[stage] == 1  # observed in the queue's worker process
        retrieve = (
            "gitloom_http_request_duration_seconds_count",
            (("method", "GET"), ("route", "v1/retrieve"), ("status", "200")),
        )
        assert samples[retrieve] == 3  # observed in gunicorn's workers
        assert samples[("gitloom_jobs", (("state", "queued"),))] == 0
        assert (
            samples[("gitloom_jobs_finished_total", (("error_code", ""), ("status", "done")))] == 1
        )
        assert "user-1" not in text.decode() and "ops-test" not in text.decode()
        assert len(list((tmp_path / "metrics").glob("*.db"))) >= 2  # a file per process

        # Stop Postgres for real: /readyz is 503 naming the database ...
        pidfile = tmp_path / "postgres" / "postmaster.pid"
        postmaster = psutil.Process(int(pidfile.read_text().split("\n", 1)[0]))
        postmaster.send_signal(signal.SIGINT)  # fast shutdown
        seen = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not seen:
            status, body = _get(port, "/readyz")
            if status == 503:
                seen.append(json.loads(body))
            time.sleep(0.05)
        assert seen, "no 503 while Postgres was down"
        down = seen[0]
        assert down["status"] == "unavailable" and "database" in down["down"]
        assert down["checks"]["database"].startswith("unreachable")
        assert down["error"]["code"] == "service_unavailable"
        # ... and 200 again once serve has started it and the queue polls again.
        assert _wait_ready(port, time.monotonic() + 90)["status"] == "ready"
        assert "restarted it" in (tmp_path / "serve.log").read_text()
    finally:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=60)
        log.close()
        print((tmp_path / "serve.log").read_text()[-6000:])  # shown when the test fails
