"""POST /v1/memories end to end in one process: jobs run inline (GITLOOM_QUEUE_SYNC)."""

import pytest

from tests.support.model_server import ModelServer, Reply, pipeline_responder

TRANSCRIPT = {
    "session_id": "sess-1",
    "messages": [
        {
            "id": "msg-1",
            "role": "user",
            "name": "Priya",
            "content": "I bought a Sony A7III camera yesterday from Fotocentre in Bengaluru.",
            "timestamp": "2026-07-31T10:00:00Z",
        },
        {"id": "msg-2", "role": "assistant", "content": "Nice! Enjoy the new camera."},
    ],
}


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201


@pytest.fixture
def run_inline(settings, django_capture_on_commit_callbacks):
    settings.GITLOOM_QUEUE_SYNC = True

    def post(api, body, **headers):
        with django_capture_on_commit_callbacks(execute=True):
            return api.post("/v1/memories", body, format="json", **headers)

    return post


def test_offline_write_becomes_a_commit_visible_to_retrieval(api, ns, run_inline):
    response = run_inline(api, TRANSCRIPT)
    assert response.status_code == 202
    job_id = response.json()["job"]["id"]
    job = api.get(f"/v1/jobs/{job_id}").json()["job"]
    assert job["status"] == "done", job
    assert job["extractor"] == "offline"
    assert job["result"]["created"], job
    path = job["result"]["created"][0]
    memory = api.get(f"/v1/memories/{path}").json()
    assert memory["sources"] == ["msg-1"]
    assert "2026-07-30" in memory["body"]  # "yesterday" resolved against the message time
    assert memory["commit"] == job["commit"]
    history = api.get(f"/v1/memories/{path}/history").json()["versions"]
    assert history[0]["trailers"]["Gitloom-Job"] == job_id
    assert history[0]["trailers"]["Gitloom-Extractor"] == "offline"
    assert history[0]["trailers"]["Gitloom-Session"] == "sess-1"
    found = api.get("/v1/retrieve?query=which camera did Priya buy").json()["results"]
    assert found and found[0]["path"] == path
    listed = api.get("/v1/jobs?namespace=default").json()["jobs"]
    assert [j["id"] for j in listed] == [job_id]


def test_idempotency_key_returns_the_same_job(api, ns, run_inline):
    first = run_inline(api, TRANSCRIPT, HTTP_IDEMPOTENCY_KEY="retry-1").json()["job"]
    again = run_inline(api, TRANSCRIPT, HTTP_IDEMPOTENCY_KEY="retry-1").json()["job"]
    assert again["id"] == first["id"]
    assert len(api.get("/v1/jobs").json()["jobs"]) == 1
    changed = dict(TRANSCRIPT, session_id="other")
    conflict = run_inline(api, changed, HTTP_IDEMPOTENCY_KEY="retry-1")
    assert conflict.status_code == 409
    assert conflict.json()["error"]["code"] == "idempotency_key_reused"


@pytest.mark.parametrize("key", ["", "   "])
def test_an_empty_idempotency_key_is_refused_not_ignored(api, ns, run_inline, key):
    response = run_inline(api, TRANSCRIPT, HTTP_IDEMPOTENCY_KEY=key)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "invalid_idempotency_key"
    assert api.get("/v1/jobs").json()["jobs"] == []


@pytest.mark.parametrize(
    "body,status,code",
    [
        ({}, 400, "invalid"),
        ({"messages": []}, 400, "invalid_transcript"),
        ({"messages": "hello"}, 400, "invalid_transcript"),
        ({"messages": [{"role": "user"}]}, 400, "invalid_transcript"),
        ({"messages": [{"role": "wizard", "content": "x"}]}, 400, "invalid_transcript"),
        # not strings: were a TypeError (unhashable) and a 500 (issue 28, item 5)
        ({"messages": [{"role": {}, "content": "x"}]}, 400, "invalid_transcript"),
        ({"messages": [{"role": ["user"], "content": "x"}]}, 400, "invalid_transcript"),
        ({"messages": [{"role": "user", "content": "x", "extra": 1}]}, 400, "invalid_transcript"),
        (
            {"messages": [{"role": "user", "content": "x", "timestamp": "yesterday"}]},
            400,
            "invalid_transcript",
        ),
        (
            {
                "messages": [
                    {"role": "user", "content": "a", "id": "1"},
                    {"role": "user", "content": "b", "id": "1"},
                ]
            },
            400,
            "invalid_transcript",
        ),
        # ids cite sources and the session id goes into a commit trailer: one line each
        (
            {"messages": [{"role": "user", "content": "x", "id": "msg\t1"}]},
            400,
            "invalid_transcript",
        ),
        (
            {"messages": [{"role": "user", "content": "x"}], "session_id": "s\nGitloom-Job: 1"},
            400,
            "invalid_transcript",
        ),
        ({"messages": [{"role": "user", "content": "x" * 40_000}]}, 413, "payload_too_large"),
        # nothing left once its control characters are removed
        ({"messages": [{"role": "user", "content": "\x1b\x07 \x01"}]}, 400, "invalid_transcript"),
        # relative dates counted from these would overflow the calendar
        (
            {"messages": [{"role": "user", "content": "x", "timestamp": "9999-12-31T23:00:00Z"}]},
            400,
            "invalid_transcript",
        ),
        (
            {"messages": [{"role": "user", "content": "x", "timestamp": "0001-01-01T00:00:00Z"}]},
            400,
            "invalid_transcript",
        ),
        ({"messages": [{"role": "user", "content": "x"}], "surprise": 1}, 400, "invalid"),
        (
            {"namespace": "nope", "messages": [{"role": "user", "content": "x"}]},
            404,
            "namespace_not_found",
        ),
    ],
)
def test_bad_transcripts_are_refused_before_anything_is_queued(
    api, ns, run_inline, body, status, code
):
    response = run_inline(api, body)
    assert response.status_code == status, response.json()
    assert response.json()["error"]["code"] == code
    assert api.get("/v1/jobs").json()["jobs"] == []


def test_a_write_or_search_in_a_namespace_never_created_says_how_to_create_it(api, run_inline):
    """Namespaces are created explicitly: the 404 names the call that makes one, as the
    MCP tool names create_namespace; nothing is written."""
    write = run_inline(api, {"namespace": "later", "messages": [{"role": "user", "content": "x"}]})
    search = api.get("/v1/retrieve", {"namespace": "later", "query": "anything"})
    for response in (write, search):
        assert response.status_code == 404
        error = response.json()["error"]
        assert error["code"] == "namespace_not_found"
        assert 'POST /v1/namespaces {"name": ' in error["message"], error
    assert api.get("/v1/namespaces").json()["namespaces"] == []


@pytest.mark.parametrize("control", ["\x1b", "\x07", "\x01", "\x9b", "\x85", "\x7f"])
def test_control_characters_are_removed_and_every_fact_is_kept(api, ns, run_inline, control):
    body = {
        "messages": [
            {
                "role": "user",
                "content": f"I bought a Nikon{control} Z6 camera in Pune.",
                "id": "m1",
            },
            {"role": "user", "content": "My sister Asha teaches chemistry in Lyon.", "id": "m2"},
        ]
    }
    response = run_inline(api, body)
    assert response.status_code == 202, response.json()
    job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
    assert job["status"] == "done", job
    bodies = [api.get(f"/v1/memories/{path}").json()["body"] for path in job["result"]["created"]]
    assert any("Nikon Z6" in text for text in bodies), bodies
    assert any("chemistry" in text for text in bodies), bodies
    assert not any(control in text for text in bodies)


def test_another_account_cannot_see_a_job(api, other_api, ns, run_inline):
    job_id = run_inline(api, TRANSCRIPT).json()["job"]["id"]
    response = other_api.get(f"/v1/jobs/{job_id}")
    assert response.status_code == 404 and response.json()["error"]["code"] == "job_not_found"
    assert other_api.get("/v1/jobs/not-a-uuid").status_code == 404


@pytest.fixture
def model(settings):
    with ModelServer() as server:
        settings.GITLOOM_LLM_BASE_URL = server.base_url
        settings.GITLOOM_LLM_API_KEY = "test"
        settings.GITLOOM_LLM_MODEL = "scripted-model"
        settings.GITLOOM_LLM_BACKOFF_SCALE = 0
        yield server


def test_model_write_names_the_model_and_records_usage(api, ns, run_inline, model):
    model.responder = pipeline_responder
    job = run_inline(api, TRANSCRIPT).json()["job"]
    job = api.get(f"/v1/jobs/{job['id']}").json()["job"]
    assert job["status"] == "done", job
    assert job["extractor"] == "scripted-model"
    assert job["usage"]["prompt_tokens"] > 0
    paths = job["result"]["created"]
    assert len(paths) == 2  # pipeline_responder: one memory per message
    sources = sorted(api.get(f"/v1/memories/{p}").json()["sources"][0] for p in paths)
    assert sources == ["msg-1", "msg-2"]
    trailers = api.get(f"/v1/memories/{paths[0]}/history").json()["versions"][0]["trailers"]
    assert trailers["Gitloom-Extractor"] == "scripted-model"
    assert trailers["Gitloom-Prompt-Version"]


def test_model_garbage_fails_the_job_and_writes_nothing(api, ns, run_inline, model):
    model.responder = lambda request: Reply.chat("this is not json")
    before = api.get("/v1/memories").json()["commit"]
    job = run_inline(api, TRANSCRIPT).json()["job"]
    job = api.get(f"/v1/jobs/{job['id']}").json()["job"]
    assert job["status"] == "failed"
    assert job["error"]["code"] == "model_output_invalid"
    assert job["commit"] == ""
    assert api.get("/v1/memories").json() == {"commit": before, "memories": [], "next_cursor": None}


def test_rate_limited_model_is_retried_then_succeeds(api, ns, run_inline, model):
    model.enqueue(Reply.error(429, retry_after=0))
    model.responder = pipeline_responder
    job = run_inline(api, TRANSCRIPT).json()["job"]
    job = api.get(f"/v1/jobs/{job['id']}").json()["job"]
    assert job["status"] == "done", job
    assert model.requests[0].path.endswith("/chat/completions")
    assert len(model.chat_requests()) >= 2


def test_rerun_after_a_crash_finds_its_commit_and_does_not_apply_twice(api, ns, settings):
    """A worker died after committing but before recording it: the re-run adopts it."""
    from accounts.models import Account
    from memories.jobs import job_run
    from memories.models import Job
    from memories.services import job_accept
    from namespaces import repository
    from namespaces.selectors import namespace_get_for_account

    account = Account.objects.get(id="acme")
    job, _ = job_accept(
        namespace=namespace_get_for_account(account=account, name="default"),
        messages=TRANSCRIPT["messages"],
    )
    done = job_run(job=job)
    assert done.status == "done" and done.commit
    # Simulate the crash: the commit landed but the job row still says running.
    Job.objects.filter(pk=job.pk).update(status="running", commit="", result={})
    rerun = job_run(job=Job.objects.get(pk=job.pk))
    assert rerun.status == "done" and rerun.commit == done.commit
    assert rerun.result["created"] == done.result["created"]
    prefix = job.namespace.storage_prefix
    mine = [
        e
        for e in repository.repository_log(prefix=prefix)
        if e.trailers.get("Gitloom-Job") == str(job.public_id)
    ]
    assert len(mine) == 1


def test_no_session_is_null_everywhere_a_session_is_shown(api, ns, run_inline):
    """One spelling of "no session": null in the job, in blame (and blame's job), and no
    Gitloom-Session trailer in the commit, rather than "", null and "-" in turn."""
    body = {"messages": [{"role": "user", "content": "I rent a flat in Tucson."}]}
    job = api.get(f"/v1/jobs/{run_inline(api, body).json()['job']['id']}").json()["job"]
    assert job["status"] == "done" and job["session_id"] is None
    path = job["result"]["created"][0]
    version = api.get(f"/v1/memories/{path}/history").json()["versions"][0]
    assert "Gitloom-Session" not in version["trailers"]
    origin = api.get(f"/v1/memories/{path}/blame").json()["commits"][0]
    assert origin["session_id"] is None and origin["job"]["session_id"] is None
    listed = api.get("/v1/jobs?namespace=default").json()["jobs"][0]
    assert listed["session_id"] is None


@pytest.mark.parametrize("stamp", ["9899-12-31T23:59:59Z", "0100-01-01T00:00:00Z"])
def test_relative_dates_at_the_edges_of_the_accepted_range_never_fail_the_job(
    api, ns, run_inline, stamp
):
    text = "I bought a kayak on Friday and I sell it next year, in ten years at the latest."
    body = {"messages": [{"role": "user", "content": text, "timestamp": stamp}]}
    response = run_inline(api, body)
    assert response.status_code == 202, response.json()
    job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
    assert job["status"] == "done", job
    assert job["result"]["created"]


def test_one_fact_the_format_refuses_never_fails_the_others(api, ns, run_inline, model):
    import json

    from memories.extraction.model import EXTRACT_SYSTEM

    def responder(request):
        reply = pipeline_responder(request)
        if request.system == EXTRACT_SYSTEM:
            payload = json.loads(reply.body)
            content = json.loads(payload["choices"][0]["message"]["content"])
            # The model's first memory carries a cue no memory file can hold.
            content["memories"][0]["cues"] = ["what camera\x07 did Priya buy"]
            payload["choices"][0]["message"]["content"] = json.dumps(content)
            reply = Reply.json(payload)
        return reply

    model.responder = responder
    job = run_inline(api, TRANSCRIPT).json()["job"]
    job = api.get(f"/v1/jobs/{job['id']}").json()["job"]
    assert job["status"] == "done", job
    assert len(job["result"]["created"]) == 1  # the other fact is kept
    kept = api.get(f"/v1/memories/{job['result']['created'][0]}").json()
    assert kept["sources"] == ["msg-2"]
