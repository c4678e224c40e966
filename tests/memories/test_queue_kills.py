"""Killing any queue process of a running `serve` with SIGKILL, at any moment, leaves
accepted writes running within seconds, each exactly once and in order.

An idle django-q2 worker waits for its next task holding the task queue's reader lock;
killed there, it took the lock with it and every write of the node stayed ``queued``
until a restart. Each kind of queue process is killed here for real, then writes are
posted and must all be done, once each, in acceptance order."""

from __future__ import annotations

import json
import time
import urllib.request
import uuid

import psutil
import pytest

from tests.support.model_server import ModelServer, pipeline_responder
from tests.support.serve import serve_with_account, stop_serve

pytestmark = pytest.mark.slow

RECOVERY_SECONDS = 20  # the writes after a kill are all done within this


@pytest.fixture(scope="module")
def model():
    with ModelServer() as server:
        server.responder = pipeline_responder
        yield server


@pytest.fixture(scope="module")
def service(django_db_setup, django_db_blocker, tmp_path_factory, model):
    with django_db_blocker.unblock():
        running = serve_with_account(
            tmp_path_factory.mktemp("queue-kills"),
            "killjoy",
            mcp=False,
            GITLOOM_LLM_BASE_URL=model.base_url,
            GITLOOM_LLM_API_KEY="test",
            GITLOOM_LLM_MODEL="scripted-model",
            GITLOOM_LLM_BACKOFF_SCALE="0",
            # A task lost with its worker is redelivered only after this: the recovery
            # below must not depend on it.
            GITLOOM_JOB_RETRY="600",
        )
        try:
            yield running
        finally:
            stop_serve(running, "killjoy")


def _call(service, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{service.port}{path}",
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {service.key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
        return json.loads(response.read())


def _queue_processes(service) -> dict[str, list[psutil.Process]]:
    """The queue's processes by kind; the jobs' cluster is the one started last."""
    serve = psutil.Process(service.process.pid)
    main = next(p for p in serve.children() if "qcluster" in " ".join(p.cmdline()))
    sentinels = sorted(main.children(), key=lambda p: p.create_time())
    jobs_sentinel = sentinels[-1]
    kinds: dict[str, list[psutil.Process]] = {
        "cluster": [main],
        "sentinel": [jobs_sentinel],
        "idle": [],
        "busy": [],
        "pusher": [],
        "monitor": [],
    }
    for child in jobs_sentinel.children():
        title = " ".join(child.cmdline())
        for kind, word in (("idle", " idle"), ("busy", "processing"), ("pusher", "pusher")):
            if word in title:
                kinds[kind].append(child)
        if "monitor" in title:
            kinds["monitor"].append(child)
    return kinds


def _write(service, namespace: str, text: str) -> str:
    body = {"namespace": namespace, "messages": [{"role": "user", "content": text}]}
    return _call(service, "POST", "/v1/memories", body)["job"]["id"]


def _wait_done(service, job_ids: list[str], timeout: float) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        jobs = [_call(service, "GET", f"/v1/jobs/{job_id}")["job"] for job_id in job_ids]
        if all(job["status"] in ("done", "failed") for job in jobs):
            return jobs
        assert time.monotonic() < deadline, f"not done {timeout} s after the kill: {jobs}"
        time.sleep(0.2)


def _assert_once_in_order(service, namespace: str, jobs: list[dict]) -> None:
    from namespaces import repository
    from namespaces.models import Namespace
    from namespaces.storage import LocalObjectStore, using_object_store

    assert [job["status"] for job in jobs] == ["done"] * len(jobs), jobs
    finished = [job["finished"] for job in jobs]
    assert finished == sorted(finished), "run in acceptance order"
    prefix = Namespace.objects.get(account_id="killjoy", name=namespace).storage_prefix
    store = LocalObjectStore(service.tmp_path / "objects", cache_dir=service.tmp_path / "cache")
    with using_object_store(store):
        by_job = [e.trailers.get("Gitloom-Job") for e in repository.repository_log(prefix=prefix)]
    for job in jobs:
        assert by_job.count(job["id"]) == 1, f"{job['id']} committed {by_job.count(job['id'])}x"


@pytest.mark.parametrize(
    "kind", ["idle", "just_finished", "pusher", "monitor", "sentinel", "cluster", "busy"]
)
def test_killing_a_queue_process_leaves_writes_running_once_and_in_order(
    service, model, django_db_blocker, kind
):
    namespace = f"k-{uuid.uuid4().hex[:8]}"
    _call(service, "POST", "/v1/namespaces", {"name": namespace})
    model.delay = 0.1
    if kind == "just_finished":
        _wait_done(service, [_write(service, namespace, "Ada owns a red kayak.")], 30)
        kind = "idle"
    jobs = []
    if kind == "busy":
        model.delay = 3.0
        jobs.append(_write(service, namespace, "Cleo keeps her passport in the drawer."))
        deadline = time.monotonic() + 20
        while not _queue_processes(service)["busy"]:
            assert time.monotonic() < deadline, "the job never started"
            time.sleep(0.1)
    victims = _queue_processes(service)[kind]
    assert victims, kind
    for victim in victims:
        victim.kill()
    psutil.wait_procs(victims, timeout=5)
    model.delay = 0.1
    killed_at = time.monotonic()
    jobs += [_write(service, namespace, f"Bo planted tree number {n} today.") for n in range(3)]
    done = _wait_done(service, jobs, RECOVERY_SECONDS + (12 if kind == "busy" else 0))
    recovered = time.monotonic() - killed_at
    with django_db_blocker.unblock():
        _assert_once_in_order(service, namespace, done)
    assert recovered < RECOVERY_SECONDS + (12 if kind == "busy" else 0)
    # The log says what happened.
    assert "died" in service.log() or "queue process exited" in service.log()
