"""The write queue with real django-q2 workers in another process (`manage.py qcluster`)
against the test database, a slow scripted model, and a shared object store."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest
from django.conf import settings

from tests.support.model_server import ModelServer, pipeline_responder

pytestmark = pytest.mark.slow

JOB_TIMEOUT = 90  # seconds a drain task may run (one job; the first loads the embedder)
JOB_RETRY = 12  # an unacknowledged task is redelivered after this (a duplicate drain of
# a job still running finds the namespace locked and leaves, so retry < timeout is safe)
JOB_MAX_ATTEMPTS = 2  # starts after which a job whose worker keeps dying is failed


@pytest.fixture(scope="session")
def slow_model():
    with ModelServer() as server:
        server.responder = pipeline_responder
        yield server


@pytest.fixture(scope="session")
def cluster_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cluster")


# Module-scoped: a cluster left polling the shared test database after this module
# would run other modules' queued jobs (tests that expect a job to stay queued, with
# no worker, saw it picked up and failed against the cluster's own store).
@pytest.fixture(scope="module")
def queue_cluster(django_db_setup, django_db_blocker, slow_model, cluster_dir):
    """A qcluster process with two workers, on the test database and a shared store."""
    from django.db import connection

    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"]["host"]
    env = dict(
        os.environ,
        DATABASE_URL=f"postgresql://{db['USER']}@/{db['NAME']}?host={host}",
        GITLOOM_DATA_DIR=str(cluster_dir),
        GITLOOM_LLM_BASE_URL=slow_model.base_url,
        GITLOOM_LLM_API_KEY="test",
        GITLOOM_LLM_MODEL="scripted-model",
        GITLOOM_LLM_BACKOFF_SCALE="0",
        GITLOOM_WORKERS="2",
        GITLOOM_JOB_TIMEOUT=str(JOB_TIMEOUT),
        GITLOOM_JOB_RETRY=str(JOB_RETRY),
        GITLOOM_JOB_MAX_ATTEMPTS=str(JOB_MAX_ATTEMPTS),
    )
    log = open(cluster_dir / "qcluster.log", "wb")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    time.sleep(3)  # workers spawn and start polling the ORM broker
    assert process.poll() is None, "qcluster did not start"
    yield process
    process.send_signal(signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=20)
    # Never leave a worker behind, whatever state the cluster ended in.
    for child in psutil.Process().children(recursive=True):
        if "qcluster" in " ".join(child.cmdline()):
            child.kill()
    if process.poll() is None:
        process.kill()
    log.close()


@pytest.fixture
def shared_store(cluster_dir, tmp_path):
    """The test process reads the same object store the workers write."""
    from namespaces.storage import LocalObjectStore, using_object_store

    with using_object_store(LocalObjectStore(cluster_dir / "objects", cache_dir=tmp_path)):
        yield


@pytest.fixture
def workers(queue_cluster, transactional_db, shared_store, api):
    return queue_cluster


def _namespace(api) -> str:
    # Repositories outlive the per-test database flush, so names are unique per test.
    name = f"q-{uuid.uuid4().hex[:10]}"
    assert api.post("/v1/namespaces", {"name": name}, format="json").status_code == 201
    return name


def _post(api, namespace: str, text: str) -> str:
    body = {"namespace": namespace, "messages": [{"role": "user", "content": text}]}
    response = api.post("/v1/memories", body, format="json")
    assert response.status_code == 202, response.json()
    return response.json()["job"]["id"]


def _wait(api, job_ids: list[str], timeout: float = 60) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        jobs = [api.get(f"/v1/jobs/{job_id}").json()["job"] for job_id in job_ids]
        if all(job["status"] in ("done", "failed") for job in jobs):
            return jobs
        assert time.monotonic() < deadline, f"jobs did not finish: {jobs}"
        time.sleep(0.1)


def _elapsed(jobs: list[dict]) -> float:
    from django.utils.dateparse import parse_datetime

    start = min(parse_datetime(job["created"]) for job in jobs)
    end = max(parse_datetime(job["finished"]) for job in jobs)
    return (end - start).total_seconds()


def test_two_namespaces_run_in_parallel(api, workers, slow_model):
    slow_model.delay = 1.0
    alone = _wait(api, [_post(api, _namespace(api), "Alone in the queue: Ada owns a kayak.")])
    assert alone[0]["status"] == "done", alone
    single = _elapsed(alone)
    first, second = _namespace(api), _namespace(api)
    pair = _wait(
        api,
        [_post(api, first, "Ada owns a red kayak."), _post(api, second, "Bo owns a blue canoe.")],
    )
    assert all(job["status"] == "done" for job in pair), pair
    # Two namespaces finish in about the time of one, not two.
    assert _elapsed(pair) < 1.6 * single, (single, _elapsed(pair))


def test_a_burst_to_one_namespace_lands_in_acceptance_order(api, workers, slow_model):
    from namespaces import repository
    from namespaces.models import Namespace

    slow_model.delay = 0.3
    name = _namespace(api)
    job_ids = [
        _post(api, name, f"Fact number {i}: the locker code is {1000 + i}.") for i in range(4)
    ]
    jobs = _wait(api, job_ids)
    assert all(job["status"] == "done" for job in jobs), jobs
    # Serialised: each job started after the one accepted before it finished.
    for earlier, later in zip(jobs, jobs[1:], strict=False):
        assert later["started"] >= earlier["finished"]
    prefix = Namespace.objects.get(name=name).storage_prefix
    log = [e.trailers.get("Gitloom-Job") for e in repository.repository_log(prefix=prefix)]
    committed = [job_id for job_id in reversed(log) if job_id]
    assert committed == job_ids


def _kill_attempt(api, workers, name: str, job_id: str, attempt: int) -> None:
    """SIGKILL the worker running the job's ``attempt``-th start, mid model call (as an
    OOM kill would). The sentinel starts a new worker; the task, never acknowledged,
    is redelivered."""
    from namespaces.models import Namespace

    deadline = time.monotonic() + 60  # the cluster's first job waits for warm workers
    while True:
        job = api.get(f"/v1/jobs/{job_id}").json()["job"]
        if job["status"] == "running" and job["attempts"] == attempt:
            break
        assert time.monotonic() < deadline, f"attempt {attempt} never started: {job}"
        time.sleep(0.05)
    namespace_id = Namespace.objects.get(name=name).pk
    task = f"processing drain-namespace-{namespace_id} '"
    # A second drain of the namespace (the later write's, or a redelivery) may show the
    # task for a moment: it finds the namespace locked and leaves. Wait for it to go.
    deadline = time.monotonic() + 10
    while True:
        commands = {}
        for process in psutil.Process(workers.pid).children(recursive=True):
            with contextlib.suppress(psutil.Error):  # a worker killed before is a zombie
                commands[process] = " ".join(process.cmdline())
        busy = [process for process, command in commands.items() if task in command]
        if len(busy) == 1:
            break
        assert time.monotonic() < deadline, list(commands.values())
        time.sleep(0.05)
    busy[0].kill()


def test_a_worker_killed_mid_job_is_redone_exactly_once(api, workers, slow_model):
    from namespaces import repository
    from namespaces.models import Namespace

    slow_model.delay = 3.0
    name = _namespace(api)
    job_id = _post(api, name, "Cleo keeps her passport in the blue drawer.")
    _kill_attempt(api, workers, name, job_id, attempt=1)
    slow_model.delay = 0.2
    job = _wait(api, [job_id], timeout=JOB_RETRY + 40)[0]
    assert job["status"] == "done", job
    assert job["attempts"] >= 2
    prefix = Namespace.objects.get(name=name).storage_prefix
    mine = [
        e
        for e in repository.repository_log(prefix=prefix)
        if e.trailers.get("Gitloom-Job") == job_id
    ]
    assert len(mine) == 1
    assert api.get(f"/v1/memories?namespace={name}").json()["memories"]


def test_a_job_whose_worker_keeps_dying_fails_and_the_next_job_runs(api, workers, slow_model):
    from namespaces import repository
    from namespaces.models import Namespace

    slow_model.delay = 3.0
    name = _namespace(api)
    stuck = _post(api, name, "Dev keeps the spare key under the blue flowerpot.")
    _kill_attempt(api, workers, name, stuck, attempt=1)
    # The next write's drain finds the namespace free and restarts the older job first.
    later = _post(api, name, "Dev's flat is on the fourth floor.")
    _kill_attempt(api, workers, name, stuck, attempt=JOB_MAX_ATTEMPTS)
    slow_model.delay = 0.2
    # A redelivered drain finds the job started JOB_MAX_ATTEMPTS times: it fails it
    # without a further start, and the later job runs.
    failed, done = _wait(api, [stuck, later], timeout=JOB_RETRY + 40)
    assert failed["status"] == "failed", failed
    assert failed["attempts"] == JOB_MAX_ATTEMPTS
    assert failed["error"]["code"] == "job_attempts_exhausted"
    assert failed["commit"] == ""
    assert done["status"] == "done", done
    assert done["commit"] and done["started"] >= failed["finished"]
    prefix = Namespace.objects.get(name=name).storage_prefix
    jobs = [e.trailers.get("Gitloom-Job") for e in repository.repository_log(prefix=prefix)]
    assert stuck not in jobs and later in jobs
