"""Webhooks through the real queue: ``manage.py qcluster`` in another process (the jobs'
cluster and the webhook lane beside it) against the test database, and real receivers
on loopback. A receiver outage and a restart of the queue mid-retry lose nothing; a
hanging receiver does not hold up jobs. Each test prints its figures (run with -s)."""

from __future__ import annotations

import contextlib
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from django.conf import settings
from gitloom_client import verify_webhook

from accounts.webhooks.models import Attempt, Event
from accounts.webhooks.scope import account_scope
from tests.accounts.helpers_webhooks import register
from tests.conftest import csrf_token
from tests.support.webhook_receiver import Receiver

pytestmark = pytest.mark.slow

READ_TIMEOUT = 3  # seconds the lane waits for each read of a receiver's answer
ATTEMPT_TIMEOUT = 5  # seconds one attempt may take in all


def _start_cluster(cluster_dir: Path, log) -> subprocess.Popen:
    from django.db import connection

    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"]["host"]
    env = dict(
        os.environ,
        DATABASE_URL=f"postgresql://{db['USER']}@/{db['NAME']}?host={host}",
        GITLOOM_DATA_DIR=str(cluster_dir),
        GITLOOM_WORKERS="2",
        GITLOOM_WEBHOOK_WORKERS="2",
        GITLOOM_WEBHOOK_ATTEMPT_TIMEOUT=str(ATTEMPT_TIMEOUT),
        GITLOOM_WEBHOOK_ALLOW_LOCAL="1",
        GITLOOM_WEBHOOK_BACKOFF_BASE="0.5",
        GITLOOM_WEBHOOK_BACKOFF_CAP="3",
        GITLOOM_WEBHOOK_MAX_ATTEMPTS="12",
        GITLOOM_WEBHOOK_READ_TIMEOUT=str(READ_TIMEOUT),
        GITLOOM_WEBHOOK_CONNECT_TIMEOUT="2",
        GITLOOM_LOG_LEVEL="INFO",
    )
    return subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def _stop(process: subprocess.Popen, sig=signal.SIGTERM) -> None:
    children = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(sig)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=20)
    if process.poll() is None:
        process.kill()
        process.wait(timeout=10)
    for child in children:  # never leave a worker behind
        with contextlib.suppress(psutil.Error):
            child.kill()


class Cluster:
    """The one qcluster of this module; ``restart`` kills it (SIGKILL, as a crashed
    node) and starts another on the same database."""

    def __init__(self, cluster_dir: Path):
        self.dir = cluster_dir
        self.log = open(cluster_dir / "qcluster.log", "ab")  # noqa: SIM115
        self.starts = 0
        self._start()

    def _start(self) -> None:
        self.process = _start_cluster(self.dir, self.log)
        self.starts += 1
        # Both clusters say "running" once their workers are up (slow on a loaded
        # machine: the embedder and spaCy load first).
        log = self.dir / "qcluster.log"
        _until(
            lambda: log.read_text(errors="replace").count("] running.") >= 2 * self.starts,
            240,
            "qcluster did not start",
        )
        assert self.process.poll() is None, "qcluster exited"

    def restart(self) -> None:
        _stop(self.process, signal.SIGKILL)
        self._start()

    def ensure_running(self) -> None:
        if self.process.poll() is not None:
            self._start()

    def halt(self) -> None:
        """Kill it before the test's tables are flushed: a flush beside a busy cluster
        can deadlock with its queries."""
        if self.process.poll() is None:
            _stop(self.process, signal.SIGKILL)

    def close(self) -> None:
        if self.process.poll() is None:
            _stop(self.process)
        self.log.close()


@pytest.fixture(scope="module")
def cluster(django_db_setup, django_db_blocker, tmp_path_factory):
    running = Cluster(tmp_path_factory.mktemp("hooks-cluster"))
    yield running
    running.close()


@pytest.fixture
def shared_store(cluster, tmp_path):
    from namespaces.storage import LocalObjectStore, using_object_store

    with using_object_store(LocalObjectStore(cluster.dir / "objects", cache_dir=tmp_path)):
        yield


@pytest.fixture
def app(cluster, transactional_db, shared_store, dashboard, settings):
    """An API key of the dashboard's account ``dash``, with the cluster running."""
    from rest_framework.test import APIClient

    from accounts.models import Account
    from accounts.services import api_key_create
    from server.management.commands.serve import _ensure_schedules

    cluster.ensure_running()
    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = True  # to register the loopback receivers
    _ensure_schedules()  # as serve does: the minute sweep of due deliveries among them
    _, secret = api_key_create(account=Account.objects.get(id="dash"), name="app")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    yield client
    cluster.halt()


def _until(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, what
        time.sleep(0.1)
    return result


def _events() -> set[str]:
    with account_scope("dash"):
        return {event.message_id for event in Event.objects.all()}


def _failed_attempts() -> int:
    with account_scope("dash"):
        return Attempt.objects.exclude(status_code=204).count()


def _post(app, namespace: str, text: str) -> str:
    body = {"namespace": namespace, "messages": [{"role": "user", "content": text}]}
    response = app.post("/v1/memories", body, format="json")
    assert response.status_code == 202, response.json()
    return response.json()["job"]["id"]


def _jobs_done(app, job_ids: list[str], timeout: float = 90) -> list[dict]:
    def done():
        jobs = [app.get(f"/v1/jobs/{job_id}").json()["job"] for job_id in job_ids]
        return jobs if all(job["status"] in ("done", "failed") for job in jobs) else None

    return _until(done, timeout, "jobs did not finish")


def test_nothing_is_lost_across_a_receiver_outage_and_a_queue_restart(app, dashboard, cluster):
    with Receiver() as receiver:
        secret = register(dashboard, receiver.url)["secret"]
        # 1. Up: namespaces and a job, delivered by the lane.
        for i in range(5):
            assert app.post("/v1/namespaces", {"name": f"up-{i}"}, format="json").status_code == 201
        _jobs_done(app, [_post(app, "up-0", "Ada keeps her kayak at the Lakeside club.")])
        _until(lambda: set(receiver.ids()) >= _events(), 90, "first deliveries never came")
        # 2. Down: more events; their first attempts fail and they wait to be retried.
        receiver.stop()
        for i in range(5):
            assert (
                app.post("/v1/namespaces", {"name": f"down-{i}"}, format="json").status_code == 201
            )
        down_job = _post(app, "down-0", "Bo moved to Lisbon in March.")
        _jobs_done(app, [down_job])
        _until(lambda: _failed_attempts() >= 8, 60, "no failed attempts while down")
        # 3. The queue dies mid-retry (SIGKILL) and a new one starts, the receiver still down.
        cluster.restart()
        for i in range(3):
            assert (
                app.post("/v1/namespaces", {"name": f"restart-{i}"}, format="json").status_code
                == 201
            )
        time.sleep(4)
        # 4. The receiver comes back: everything arrives.
        receiver.start()
        sent = _events()
        # A delivery the killed worker had claimed waits out its lease, then the minute
        # sweep (or a later sender) picks it up.
        _until(lambda: set(receiver.ids()) >= sent, 180, "deliveries lost")
        time.sleep(1)  # anything still in flight lands
        ids = receiver.ids()
        for got in receiver.received:
            verify_webhook(got.body, got.headers, secret=secret)
    delivered, duplicated, lost = len(set(ids)), len(ids) - len(set(ids)), len(sent - set(ids))
    print(
        f"\nwebhook figures: events sent {len(sent)}, delivered {delivered}, "
        f"duplicated {duplicated}, lost {lost}; failed attempts {_failed_attempts()} "
        "(receiver down ~10 s, queue SIGKILLed and restarted mid-retry)"
    )
    assert (
        lost == 0 and delivered == len(sent) >= 13 + 2 * 2
    )  # namespaces; job.done + memory.created


def test_a_hanging_receiver_does_not_hold_up_jobs(app, dashboard):
    from django.utils.dateparse import parse_datetime

    def durations(jobs):
        run = [
            (parse_datetime(j["finished"]) - parse_datetime(j["started"])).total_seconds()
            for j in jobs
        ]
        whole = [
            (parse_datetime(j["finished"]) - parse_datetime(j["created"])).total_seconds()
            for j in jobs
        ]
        return run, whole

    def burst(name: str) -> list[dict]:
        assert app.post("/v1/namespaces", {"name": name}, format="json").status_code == 201
        ids = [_post(app, name, f"Fact {i}: locker {1000 + i} is in hall {i}.") for i in range(4)]
        return _jobs_done(app, ids)

    # Warm: the cluster's first job pays for worker start-up.
    burst("warm")
    rounds = {"without": [], "hanging": []}
    with Receiver("hang") as hanging:
        hanging.hang_for = 60
        for turn in range(2):  # alternated, so both sides see the same machine
            rounds["without"] += burst(f"plain-{turn}")
            endpoint = register(dashboard, hanging.url)
            rounds["hanging"] += burst(f"hung-{turn}")
            in_flight = len(hanging.received)
            token = csrf_token(dashboard)
            dashboard.delete(f"/v1/webhooks/{endpoint['id']}", HTTP_X_CSRFTOKEN=token)
        assert in_flight >= 1  # deliveries were hanging while those jobs ran
        with account_scope("dash"):
            timeouts = Attempt.objects.filter(error="timeout (read)").count()
    figures = {}
    for side, jobs in rounds.items():
        assert all(job["status"] == "done" for job in jobs), jobs
        run, whole = durations(jobs)
        figures[side] = (statistics.median(run), max(run), statistics.median(whole), max(whole))
    print("\njob durations, 8 jobs each (run = started->finished; accepted = created->finished):")
    for side, (run_p50, run_max, whole_p50, whole_max) in figures.items():
        print(
            f"  {side:8s} receiver: run p50 {run_p50:.3f} s max {run_max:.3f} s; "
            f"accepted->done p50 {whole_p50:.3f} s max {whole_max:.3f} s"
        )
    print(f"  read timeouts recorded against the hanging receiver: {timeouts}")
    # Were deliveries on the job's path, each job would wait out a read timeout (3 s)
    # per event it emits (job.done, memory.created), and the jobs queued behind it too.
    assert figures["hanging"][0] < figures["without"][0] + READ_TIMEOUT
    assert figures["hanging"][2] < figures["without"][2] + READ_TIMEOUT


def test_one_accounts_trickling_receiver_does_not_delay_another_accounts_delivery(
    app, dashboard, cluster
):
    from rest_framework.test import APIClient

    from accounts.services import account_signup
    from tests.accounts.helpers_webhooks import session_post

    rival = APIClient(enforce_csrf_checks=True)
    rival.force_login(
        account_signup(account_id="rival", username="rick", password="correct-horse-42")
    )
    with Receiver("trickle") as slow, Receiver() as prompt:
        slow.hang_for = 60  # one byte a second, under every read timeout
        register(rival, slow.url, events=["namespace.created"])
        register(dashboard, prompt.url, events=["namespace.created"])
        assert session_post(rival, "/v1/namespaces", {"name": "slow"}).status_code == 201
        _until(lambda: slow.received, 30, "the trickling receiver was never called")
        sent = time.monotonic()
        assert app.post("/v1/namespaces", {"name": "prompt"}, format="json").status_code == 201
        _until(lambda: prompt.received, 15, "the other account's delivery waited")
        waited = time.monotonic() - sent
        # The slow receiver's attempt ended at its deadline, not after its 60 s.
        with account_scope("rival"):
            first = _until(
                lambda: Attempt.objects.filter(error="timeout (attempt)").first(),
                ATTEMPT_TIMEOUT + 15,
                "the trickling attempt never ended",
            )
        print(f"\nanother account's delivery went out {waited:.2f} s after its event")
    assert waited < 5
    assert first.latency_ms < (ATTEMPT_TIMEOUT + 2) * 1000
