"""Fixtures the offline extractor's tests share: a default namespace, and ``say`` to
post one session through POST /v1/memories with its job run inline."""

import pytest


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201


@pytest.fixture
def say(api, ns, settings, django_capture_on_commit_callbacks):
    """Post one session (user/assistant turns, alternating from ``first``) and return
    the finished job."""
    settings.GITLOOM_QUEUE_SYNC = True
    counter = iter(range(1, 1000))

    def post(*turns, when="2026-03-10T18:00:00Z", first="user"):
        roles = ["user", "assistant"] if first == "user" else ["assistant", "user"]
        messages = [
            {"id": f"m{next(counter)}", "role": roles[i % 2], "content": text, "timestamp": when}
            for i, text in enumerate(turns)
        ]
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post("/v1/memories", {"messages": messages}, format="json")
        assert response.status_code == 202, response.json()
        job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
        assert job["status"] == "done", job
        return job

    return post
