"""A job whose attempts never finish ends `failed`, and the namespace's queue moves on.

A worker that dies mid-job (killed, out of memory, its database backend crashed) leaves
its job `running` with one more start counted in `attempts`; that is the state these
tests start from. tests/memories/test_queue.py kills real workers for the same end.
"""

from __future__ import annotations

import logging

import pytest


@pytest.fixture
def namespace(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    from namespaces.models import Namespace

    return Namespace.objects.get(name="default")


def _post(api, text: str) -> str:
    body = {"messages": [{"role": "user", "content": text}]}
    response = api.post("/v1/memories", body, format="json")
    assert response.status_code == 202, response.json()
    return response.json()["job"]["id"]


def _left_running(job_id: str, *, attempts: int) -> None:
    """What `attempts` starts whose workers all died leave behind."""
    from memories.models import Job

    Job.objects.filter(public_id=job_id).update(status="running", attempts=attempts)


def _drain(settings, namespace) -> None:
    from memories.jobs import drain_namespace

    settings.GITLOOM_QUEUE_SYNC = True  # the drain's follow-up drains run inline
    drain_namespace(namespace.pk)


def test_a_job_started_max_attempts_times_fails_and_the_next_job_runs(
    api, namespace, settings, caplog
):
    settings.GITLOOM_JOB_MAX_ATTEMPTS = 3
    stuck = _post(api, "Ines keeps her bike in the courtyard shed.")
    later = _post(api, "Ines's bike lock code is 4417.")
    _left_running(stuck, attempts=3)
    with caplog.at_level(logging.INFO, logger="gitloom.jobs"):
        _drain(settings, namespace)

    job = api.get(f"/v1/jobs/{stuck}").json()["job"]
    assert job["status"] == "failed"
    assert job["attempts"] == 3  # failed without being started a fourth time
    assert job["error"]["code"] == "job_attempts_exhausted"
    assert "3 times" in job["error"]["message"]
    assert job["commit"] == ""

    after = api.get(f"/v1/jobs/{later}").json()["job"]
    assert after["status"] == "done", after
    assert after["attempts"] == 1 and after["commit"]
    assert api.get("/v1/memories").json()["memories"]

    lines = [r.getMessage() for r in caplog.records if r.name == "gitloom.jobs"]
    assert any(
        line.startswith(f"job failed namespace=acme/default job={stuck} attempt=3")
        and "error=job_attempts_exhausted" in line
        for line in lines
    ), lines
    assert f"job started namespace=acme/default job={later} attempt=1" in lines
    (done,) = [
        line for line in lines if line.startswith(f"job done namespace=acme/default job={later}")
    ]
    assert "created=1" in done and "rewritten=0" in done and "extractor=offline" in done
    assert "duration_ms=" in done


def test_a_job_with_attempts_left_is_run_again(api, namespace, settings):
    settings.GITLOOM_JOB_MAX_ATTEMPTS = 3
    job_id = _post(api, "Juno waters the ferns on Sundays.")
    _left_running(job_id, attempts=2)
    _drain(settings, namespace)
    job = api.get(f"/v1/jobs/{job_id}").json()["job"]
    assert job["status"] == "done", job
    assert job["attempts"] == 3 and job["error"] is None


def test_the_bound_is_the_setting(api, namespace, settings):
    settings.GITLOOM_JOB_MAX_ATTEMPTS = 1
    job_id = _post(api, "Kai parks on level two.")
    _left_running(job_id, attempts=1)
    _drain(settings, namespace)
    job = api.get(f"/v1/jobs/{job_id}").json()["job"]
    assert (job["status"], job["error"]["code"]) == ("failed", "job_attempts_exhausted")
