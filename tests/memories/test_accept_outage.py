"""A write's answer reflects whether its job row committed when the database connection
dies mid-request (issue 28, item 3): committed, the write is accepted (202) and runs;
not, the answer is 503 and nothing was stored.

The request runs in a thread on its own real database connection; the test holds a
table lock that the request's next statement waits on, then terminates that
request's Postgres backend (``pg_terminate_backend``), as a killed or restarted
database does to its clients.
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from django.db import connection

BODY = {"messages": [{"role": "user", "content": "I moved to Lisbon in March 2026."}]}


def _connect() -> psycopg.Connection:
    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"]["host"]
    return psycopg.connect(host=host, dbname=db["NAME"], user=db["USER"], autocommit=True)


def _post_while_killing(api, table: str, **headers):
    """POST /v1/memories while ``table`` is locked against writes; kill the request's
    backend once its INSERT waits on that lock; return the response."""
    answer = {}

    def post():
        try:
            answer["response"] = api.post("/v1/memories", BODY, format="json", **headers)
        finally:
            connection.close()  # this thread's own connection

    with _connect() as locker, _connect() as killer:
        locker.execute("BEGIN")
        # SHARE: reads go on, the request's INSERT waits.
        locker.execute(f"LOCK TABLE {table} IN SHARE MODE")
        thread = threading.Thread(target=post)
        thread.start()
        deadline = time.monotonic() + 20
        while True:
            row = killer.execute(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND query ILIKE %s AND pid <> pg_backend_pid()",
                [f"INSERT INTO %{table}%"],
            ).fetchone()
            if row:
                break
            assert time.monotonic() < deadline, "the request never waited on the lock"
            time.sleep(0.05)
        killer.execute("SELECT pg_terminate_backend(%s)", [row[0]])
        locker.execute("ROLLBACK")
        thread.join(timeout=30)
    return answer["response"]


@pytest.fixture
def ns(transactional_db, api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201


def test_a_job_that_committed_is_202_though_the_database_died_before_its_enqueue(api, ns, settings):
    settings.GITLOOM_QUEUE_SYNC = False
    # The job row commits; the drain task's insert (django-q's broker table) is killed.
    response = _post_while_killing(api, "django_q_ormq")
    assert response.status_code == 202, response.json()  # was 503 for an accepted write
    job_id = response.json()["job"]["id"]
    job = api.get(f"/v1/jobs/{job_id}").json()["job"]
    assert job["status"] == "queued"
    # Not lost: the periodic safety net queues its drain, which runs it once.
    from django_q.models import OrmQ

    from memories.jobs import drain_namespace, requeue_pending

    assert not OrmQ.objects.exists()
    assert requeue_pending() == 1
    assert OrmQ.objects.count() == 1
    drain_namespace(_namespace_pk())
    done = api.get(f"/v1/jobs/{job_id}").json()["job"]
    assert done["status"] == "done" and done["commit"], done
    assert [j["id"] for j in api.get("/v1/jobs").json()["jobs"]] == [job_id]


def _namespace_pk() -> int:
    from namespaces.models import Namespace

    return Namespace.objects.get(name="default").pk


def test_a_job_that_did_not_commit_is_503_and_nothing_is_stored(api, ns):
    # The job row's insert is killed: the transaction never committed.
    response = _post_while_killing(api, "memories_job", HTTP_IDEMPOTENCY_KEY="k-1")
    assert response.status_code == 503, response.json()
    assert response.json()["error"]["code"] == "service_unavailable"
    assert response["Retry-After"]
    assert "nothing was stored" in response.json()["error"]["message"]
    assert api.get("/v1/jobs").json()["jobs"] == []
    # The retry the answer asks for is accepted, once.
    retried = api.post("/v1/memories", BODY, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert retried.status_code == 202
    assert len(api.get("/v1/jobs").json()["jobs"]) == 1
