"""GET /metrics: Prometheus's text, guarded by GITLOOM_METRICS_TOKEN, with request
latency by URL pattern, jobs, stages, model calls and retrieval; never an account, a
namespace or memory text. In one process here (jobs inline); the multi-process case,
under ``serve``, is in tests/server/test_health.py."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.model_server import ModelServer, Reply, pipeline_responder

TOKEN = "metrics-token-for-tests"
SAID = "I bought a Sony A7III camera from Fotocentre in Bengaluru."


class Scrape(dict):
    """(sample name, sorted labels) -> value, and the exposition text as ``.text``."""

    text = ""


def scrape(client) -> Scrape:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    samples = Scrape()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    samples.text = text
    return samples


def value(samples, name, **labels) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def metrics_on(settings):
    settings.GITLOOM_METRICS_TOKEN = TOKEN


@pytest.fixture
def run_inline(settings, django_capture_on_commit_callbacks):
    settings.GITLOOM_QUEUE_SYNC = True

    def post(api, body):
        with django_capture_on_commit_callbacks(execute=True):
            return api.post("/v1/memories", body, format="json")

    return post


def test_metrics_are_404_when_off_and_need_the_token_when_on(anon, settings):
    settings.GITLOOM_METRICS_TOKEN = ""
    off = anon.get("/metrics")
    assert off.status_code == 404 and off.json()["error"]["code"] == "not_found"
    settings.GITLOOM_METRICS_TOKEN = TOKEN
    bare = anon.get("/metrics")
    assert bare.status_code == 401 and bare.json()["error"]["code"] == "not_authenticated"
    assert bare["WWW-Authenticate"].startswith("Bearer")
    wrong = anon.get("/metrics", HTTP_AUTHORIZATION="Bearer not-the-token")
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "authentication_failed"
    # An API key is not the metrics token either.
    assert anon.get("/metrics", HTTP_AUTHORIZATION="Bearer glk_" + "x" * 43).status_code == 401


def test_requests_are_timed_by_url_pattern_and_status_never_by_path(api, anon, metrics_on):
    before = scrape(anon)
    assert api.post("/v1/namespaces", {"name": "user-8213"}, format="json").status_code == 201
    api.get("/v1/memories/facts/secret-topic/x-00000000.md", {"namespace": "user-8213"})
    api.get("/v1/no-such-thing")
    after = scrape(anon)
    name = "gitloom_http_request_duration_seconds_count"
    grew = {
        labels: count - before.get((metric, labels), 0)
        for (metric, labels), count in after.items()
        if metric == name and count != before.get((metric, labels), 0)
    }
    grew = {dict(labels)["route"] + " " + dict(labels)["status"]: n for labels, n in grew.items()}
    assert grew["v1/namespaces 201"] == 1
    assert grew["v1/memories/<memory_path:path> 404"] == 1
    assert grew["(unmatched) 404"] == 1
    # The scrape itself was timed as it ended, after its own text was made.
    assert grew["metrics 200"] == 1
    text = after.text
    for private in ("user-8213", "secret-topic", "acme", "no-such-thing"):
        assert private not in text


def test_a_job_and_a_retrieval_show_stages_model_calls_and_arms(
    api, anon, metrics_on, run_inline, settings
):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    with ModelServer() as model:
        settings.GITLOOM_LLM_BASE_URL = model.base_url
        settings.GITLOOM_LLM_API_KEY = "test"
        settings.GITLOOM_LLM_MODEL = "scripted-model"
        settings.GITLOOM_LLM_BACKOFF_SCALE = 0
        model.enqueue(Reply.error(503))
        model.responder = pipeline_responder
        before = scrape(anon)
        transcript = {"messages": [{"id": "m1", "role": "user", "content": SAID}]}
        job = run_inline(api, transcript).json()["job"]
    assert api.get(f"/v1/jobs/{job['id']}").json()["job"]["status"] == "done"
    found = api.get("/v1/retrieve", {"query": "which camera did I buy"}).json()["results"]
    assert found
    after = scrape(anon)

    def grew(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert grew("gitloom_jobs_finished_total", status="done", error_code="") == 1
    assert grew("gitloom_job_duration_seconds_count", status="done") == 1
    for stage in ("pipeline", "commit", "index"):
        assert grew("gitloom_job_stage_duration_seconds_count", stage=stage) == 1, stage
    assert grew("gitloom_model_errors_total", kind="503") == 1
    calls = sum(
        v - before.get(k, 0)
        for k, v in after.items()
        if k[0] == "gitloom_model_calls_total" and ("outcome", "ok") in k[1]
    )
    assert calls >= 1
    tokens = sum(
        v - before.get(k, 0) for k, v in after.items() if k[0] == "gitloom_model_tokens_total"
    )
    assert tokens > 0
    arms = "lexical+semantic+graph"
    assert grew("gitloom_retrieval_duration_seconds_count", arms=arms) == 1
    found_by = {arm for hit in found for arm in hit["arms"]}
    for arm in found_by:
        assert grew("gitloom_retrieval_hits_total", arm=arm) >= 1
    assert "Sony" not in after.text and "camera" not in after.text


def test_queued_jobs_and_the_oldest_ones_age_are_read_at_scrape_time(api, anon, metrics_on):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    before = scrape(anon)
    transcript = {"messages": [{"role": "user", "content": SAID}]}
    # No worker runs in this test process: the job stays queued.
    assert api.post("/v1/memories", transcript, format="json").status_code == 202
    after = scrape(anon)
    assert (
        value(after, "gitloom_jobs", state="queued")
        == value(before, "gitloom_jobs", state="queued") + 1
    )
    assert value(after, "gitloom_job_oldest_queued_age_seconds") >= 0
    assert ("gitloom_job_oldest_queued_age_seconds", ()) in after


def test_webhook_attempts_are_counted_by_outcome(dashboard, anon, metrics_on, settings):
    from rest_framework.test import APIClient

    from accounts.models import Account
    from accounts.services import api_key_create
    from accounts.webhooks.delivery import send_due
    from tests.accounts.helpers_webhooks import register
    from tests.support.webhook_receiver import Receiver

    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = True
    settings.GITLOOM_WEBHOOK_MAX_ATTEMPTS = 2
    settings.GITLOOM_WEBHOOK_BACKOFF_BASE = 0.0
    _, secret = api_key_create(account=Account.objects.get(id="dash"), name="app")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    with Receiver() as ok, Receiver(mode="500") as failing:
        register(dashboard, ok.url, events=["namespace.created"])
        register(dashboard, failing.url, events=["namespace.created"])
        before = scrape(anon)
        assert api.post("/v1/namespaces", {"name": "hooked"}, format="json").status_code == 201
        send_due("dash", horizon=0)  # the first attempt of each: one delivered, one retry
        send_due("dash", horizon=0)  # the failing one's last attempt: failed for good
    after = scrape(anon)
    name = "gitloom_webhook_delivery_attempts_total"
    grew = {
        o: value(after, name, outcome=o) - value(before, name, outcome=o)
        for o in ("delivered", "retry", "failed")
    }
    assert grew == {"delivered": 1, "retry": 1, "failed": 1}
    assert "hooked" not in after.text and "dash" not in after.text
