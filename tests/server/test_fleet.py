"""A fleet on one machine: two `manage.py serve` nodes, each its own process group with
its own GITLOOM_DATA_DIR (so no shared cache), on one Postgres (the test database) and
one S3 server (moto over HTTP). Writes to the same and to different namespaces through
different nodes, repository upkeep from two more processes at the same time, a
namespace deleted through one node, and a node SIGKILLed mid-job."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import psutil
import pytest
from django.conf import settings

from tests.support.model_server import ModelServer, pipeline_responder
from tests.support.serve import free_port

pytestmark = pytest.mark.slow

JOB_RETRY = 10  # an unacknowledged drain is redelivered after this many seconds

# Two processes run this at once, over and over, while the nodes write: geometric and
# full consolidation and gc (default grace) of every namespace's repository. They stop
# when the test has seen every write finish (it creates the stop file), not after a
# fixed time, so they overlap all the writes however long those take.
UPKEEP = """
import os, time
from pathlib import Path
from namespaces.models import Namespace
from namespaces import repository
stop = Path(os.environ["FLEET_UPKEEP_STOP"])
deadline = time.monotonic() + 300  # the test failed to stop it: end anyway
rounds = 0
while not (rounds and stop.exists()) and time.monotonic() < deadline:
    for namespace in Namespace.objects.all():
        prefix = namespace.storage_prefix
        repository.repository_consolidate(prefix=prefix)
        repository.repository_consolidate(prefix=prefix, full=True)
        repository.repository_gc(prefix=prefix)
    rounds += 1
print("UPKEEP ROUNDS", rounds)
"""


class Node:
    def __init__(self, name: str, root: Path, env: dict[str, str]) -> None:
        self.name = name
        self.dir = root / name
        self.dir.mkdir()
        # The ONNX embedder is a cache under the data dir: seed it rather than write it
        # and its int8 copy once per node (~3 s each).
        models = Path(settings.GITLOOM_DATA_DIR) / "models"
        if models.exists():
            shutil.copytree(models, self.dir / "models")
        self.port = free_port()
        self.log = self.dir / "serve.log"
        self.process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "serve",
                "--port",
                str(self.port),
                "--web-workers",
                "1",
                "--web-threads",
                "2",
                "--mcp-port",
                "0",
            ],
            cwd=settings.BASE_DIR,
            env=dict(env, GITLOOM_DATA_DIR=str(self.dir)),
            stdout=open(self.log, "w"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, killed as one
        )

    def wait_ready(self, timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while "is listening on" not in self.log.read_text():
            assert self.process.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.3)

    def call(self, secret: str, method: str, path: str, body=None) -> tuple[int, dict]:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
                raw = response.read()
                return response.status, json.loads(raw) if raw else {}
        except urllib.error.HTTPError as error:
            raw = error.read()
            return error.code, json.loads(raw) if raw else {}

    def runs_drain_of(self, namespace_id: int) -> bool:
        task = f"processing drain-namespace-{namespace_id} '"
        for child in psutil.Process(self.process.pid).children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if task in " ".join(child.cmdline()):
                    return True
        return False

    def kill(self) -> None:
        # A node dying whole: serve and every process under it (each child of serve runs
        # in its own process group, so one killpg no longer reaches them all).
        serve = psutil.Process(self.process.pid)
        for process in [serve, *serve.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess):
                process.kill()
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=60)
        # Nothing of the group outlives the test.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)


@pytest.fixture
def fleet_env(transactional_db, moto_server, fake_aws_env):
    from django.db import connection

    from namespaces.storage import S3ObjectStore, using_object_store
    from retrieval.embeddings import embed_texts

    embed_texts(["warm"])  # makes the ONNX copy the nodes are seeded with
    bucket = f"gitloom-fleet-{uuid.uuid4().hex[:10]}"
    store = S3ObjectStore(
        bucket=bucket,
        endpoint_url=moto_server,
        region_name="us-east-1",
        cache_dir=Path(settings.GITLOOM_DATA_DIR) / f"fleet-cache-{bucket}",
    )
    store.ensure_bucket()
    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"]["host"]
    with ModelServer() as model, using_object_store(store):
        model.responder = pipeline_responder
        yield (
            model,
            dict(
                os.environ,
                **fake_aws_env,
                DATABASE_URL=f"postgresql://{db['USER']}@/{db['NAME']}?host={host}",
                GITLOOM_STORAGE="s3",
                GITLOOM_S3_BUCKET=bucket,
                GITLOOM_S3_ENDPOINT_URL=moto_server,
                GITLOOM_LLM_BASE_URL=model.base_url,
                GITLOOM_LLM_API_KEY="test",
                GITLOOM_LLM_MODEL="scripted-model",
                GITLOOM_LLM_BACKOFF_SCALE="0",
                GITLOOM_WORKERS="1",
                GITLOOM_JOB_TIMEOUT="90",
                GITLOOM_JOB_RETRY=str(JOB_RETRY),
                GITLOOM_JOB_MAX_ATTEMPTS="3",
            ),
        )


def _job_commits(name: str) -> list[str]:
    """The Gitloom-Job trailers of the namespace's commits, oldest first."""
    from namespaces import repository
    from namespaces.models import Namespace

    prefix = Namespace.objects.get(name=name).storage_prefix
    log = [e.trailers.get("Gitloom-Job") for e in repository.repository_log(prefix=prefix)]
    return [job for job in reversed(log) if job]


def _wait_jobs(node: Node, secret: str, ids: list[str], timeout: float) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        jobs = [node.call(secret, "GET", f"/v1/jobs/{i}")[1]["job"] for i in ids]
        if all(job["status"] in ("done", "failed") for job in jobs):
            return jobs
        assert time.monotonic() < deadline, jobs
        time.sleep(0.2)


def test_a_fleet_of_two_nodes_on_one_postgres_and_one_s3(fleet_env, api, tmp_path):
    model, env = fleet_env
    secret = api.secret
    a = Node("a", tmp_path, env)
    b = Node("b", tmp_path, env)
    upkeep: list[subprocess.Popen] = []
    try:
        a.wait_ready()
        b.wait_ready()
        nodes = {"a": a, "b": b}

        # -- concurrent writes through both nodes, with upkeep from two more processes
        for name in ("shared", "only-a", "only-b"):
            status, _ = a.call(secret, "POST", "/v1/namespaces", {"name": name})
            assert status == 201
        model.delay = 0.2
        upkeep_stop = tmp_path / "upkeep-stop"
        upkeep = [
            subprocess.Popen(
                [sys.executable, "manage.py", "shell", "-c", UPKEEP],
                cwd=settings.BASE_DIR,
                env=dict(
                    env,
                    GITLOOM_DATA_DIR=str(tmp_path / f"upkeep-{i}"),
                    FLEET_UPKEEP_STOP=str(upkeep_stop),
                ),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for i in range(2)
        ]

        def post(node: Node, name: str, text: str) -> str:
            body = {"namespace": name, "messages": [{"role": "user", "content": text}]}
            status, answer = node.call(secret, "POST", "/v1/memories", body)
            assert status == 202, answer
            return answer["job"]["id"]

        accepted: dict[str, list[str]] = {"shared": [], "only-a": [], "only-b": []}
        for i in range(6):
            # Same namespace, alternating nodes; other namespaces, each through its node.
            node = a if i % 2 == 0 else b
            accepted["shared"].append(post(node, "shared", f"Shared fact {i}: locker {100 + i}."))
            if i < 3:
                accepted["only-a"].append(post(a, "only-a", f"Ana's fact {i}: bike {200 + i}."))
                accepted["only-b"].append(post(b, "only-b", f"Ben's fact {i}: desk {300 + i}."))
        every = [job for ids in accepted.values() for job in ids]
        jobs = dict(zip(every, _wait_jobs(a, secret, every, timeout=180), strict=True))
        assert all(job["status"] == "done" and job["commit"] for job in jobs.values()), jobs
        upkeep_stop.touch()
        for process in upkeep:
            out, _ = process.communicate(timeout=120)
            assert process.returncode == 0 and "UPKEEP ROUNDS" in out, out

        # No lost or duplicated commit; per-namespace order kept (acceptance order).
        for name, ids in accepted.items():
            assert _job_commits(name) == ids, name
        shared = [jobs[i] for i in accepted["shared"]]
        for earlier, later in zip(shared, shared[1:], strict=False):
            assert later["started"] >= earlier["finished"]

        # Every node's retrieval sees every finished job's memories, at the last commit.
        for name, ids in accepted.items():
            last = jobs[ids[-1]]["commit"]
            for node in nodes.values():
                query = urllib.parse.urlencode({"query": "fact", "namespace": name, "limit": 20})
                status, answer = node.call(secret, "GET", f"/v1/retrieve?{query}")
                assert status == 200 and answer["commit"] == last, (node.name, answer)
                status, listed = node.call(secret, "GET", f"/v1/memories?namespace={name}")
                assert status == 200 and len(listed["memories"]) == len(ids), listed

        # -- a namespace deleted through one node is gone for all
        status, listed = b.call(secret, "GET", "/v1/memories?namespace=only-b")
        path = listed["memories"][0]["path"]
        assert b.call(secret, "GET", f"/v1/memories/{path}?namespace=only-b")[0] == 200
        assert a.call(secret, "DELETE", "/v1/namespaces/only-b")[0] == 204
        for node in nodes.values():
            assert node.call(secret, "GET", "/v1/namespaces/only-b")[0] == 404
            assert node.call(secret, "GET", "/v1/memories?namespace=only-b")[0] == 404
            assert node.call(secret, "GET", f"/v1/memories/{path}?namespace=only-b")[0] == 404
            assert node.call(secret, "GET", "/v1/retrieve?query=desk&namespace=only-b")[0] == 404
        # Created again (same storage prefix) through the other node: empty on both, no
        # stale file from b's cache of the deleted repository.
        assert b.call(secret, "POST", "/v1/namespaces", {"name": "only-b"})[0] == 201
        for node in nodes.values():
            status, listed = node.call(secret, "GET", "/v1/memories?namespace=only-b")
            assert status == 200 and listed["memories"] == [], listed
            assert node.call(secret, "GET", f"/v1/memories/{path}?namespace=only-b")[0] == 404

        # -- a node SIGKILLed mid-job: its job is finished exactly once by the other node
        from namespaces.models import Namespace

        model.delay = 4.0
        job_id = post(a, "only-a", "Ana keeps her passport in the blue drawer.")
        namespace_id = Namespace.objects.get(name="only-a").pk
        deadline = time.monotonic() + 60
        while not (running := [n for n in nodes.values() if n.runs_drain_of(namespace_id)]):
            assert time.monotonic() < deadline, "the job never started"
            time.sleep(0.05)
        (victim,) = running
        # The task's process title is set before the drain claims the job; kill only once
        # the claim (its first attempt) is committed, so the kill really is mid-job.
        from memories.models import Job

        while not Job.objects.filter(public_id=job_id, attempts__gte=1).exists():
            assert time.monotonic() < deadline, "the job was never claimed"
            time.sleep(0.05)
        survivor = b if victim is a else a
        victim.kill()
        model.delay = 0.2
        (job,) = _wait_jobs(survivor, secret, [job_id], timeout=JOB_RETRY + 90)
        assert job["status"] == "done" and job["attempts"] >= 2, job
        assert _job_commits("only-a") == [*accepted["only-a"], job_id]
        status, listed = survivor.call(secret, "GET", "/v1/memories?namespace=only-a")
        assert len(listed["memories"]) == len(accepted["only-a"]) + 1
    finally:
        for process in upkeep:
            if process.poll() is None:
                process.kill()
                process.wait()
        a.stop()
        b.stop()
