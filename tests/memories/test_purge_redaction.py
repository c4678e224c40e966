"""A match purge takes the string out of everything the API shows of a finished job:
its session id and the keys of its metadata too, not only its transcript's values."""

from __future__ import annotations

import pytest


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    return "default"


def test_a_match_purge_redacts_a_jobs_session_id_and_metadata_keys(
    api, ns, settings, django_capture_on_commit_callbacks
):
    from memories.models import Job

    settings.GITLOOM_QUEUE_SYNC = True
    body = {
        "session_id": "chat-about-Zorblax-trip",
        "metadata": {"zorblax-note": "kept?", "channel": "web"},
        "messages": [
            {"id": "m1", "role": "user", "content": "I visited Zorblax Castle with Tom in May."}
        ],
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/v1/memories", body, format="json")
    job_id = response.json()["job"]["id"]
    assert api.get(f"/v1/jobs/{job_id}").json()["job"]["status"] == "done"
    untouched = {"session_id": "chat-2", "messages": [{"role": "user", "content": "Hi there."}]}
    with django_capture_on_commit_callbacks(execute=True):
        other = api.post("/v1/memories", untouched, format="json").json()["job"]["id"]

    purge = api.post("/v1/namespaces/default/purge", {"match": "zorblax"}, format="json")
    assert purge.status_code == 200, purge.json()

    for url in (f"/v1/jobs/{job_id}", "/v1/jobs?namespace=default"):
        text = api.get(url).content.decode().lower()
        assert "zorblax" not in text, url
    assert api.get(f"/v1/jobs/{job_id}").json()["job"]["session_id"] == "chat-about-[purged]-trip"
    job = Job.objects.get(public_id=job_id)
    assert "zorblax" not in str(job.payload).lower() and "zorblax" not in job.session_id.lower()
    assert job.payload["metadata"] == {"[purged]-note": "kept?", "channel": "web"}
    assert api.get(f"/v1/jobs/{other}").json()["job"]["session_id"] == "chat-2"
