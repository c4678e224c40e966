"""Deliveries to a real HTTP receiver on loopback, sent the way a webhook worker sends
them (``delivery.send_due``, in this process): signatures, outages, hangs, endless
500s, redirects, DNS rebinding, tenants. The queue itself is tests/accounts/
test_webhooks_queue.py."""

from __future__ import annotations

import json
import time

import pytest
from django.db import connection
from gitloom_client import WebhookVerificationError, verify_webhook

from accounts.services import api_key_create
from accounts.webhooks.delivery import send_due
from accounts.webhooks.models import Attempt, Delivery, Endpoint, Event
from accounts.webhooks.scope import account_scope
from tests.accounts.helpers_webhooks import pending, register, send_until_settled, session_post
from tests.conftest import csrf_token
from tests.support.webhook_receiver import Receiver


@pytest.fixture(autouse=True)
def quick(settings):
    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = True
    settings.GITLOOM_WEBHOOK_BACKOFF_BASE = 0.05
    settings.GITLOOM_WEBHOOK_MAX_ATTEMPTS = 3
    settings.GITLOOM_WEBHOOK_DISABLE_AFTER = 2
    settings.GITLOOM_WEBHOOK_CONNECT_TIMEOUT = 1.0
    settings.GITLOOM_WEBHOOK_READ_TIMEOUT = 0.5


@pytest.fixture
def receiver():
    with Receiver() as r:
        yield r


@pytest.fixture
def key_api(dashboard):
    """An API key of the dashboard's account (``dash``), as the application would hold."""
    from rest_framework.test import APIClient

    from accounts.models import Account

    _, secret = api_key_create(account=Account.objects.get(id="dash"), name="app")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    return client


def _namespace(api, name: str) -> None:
    assert api.post("/v1/namespaces", {"name": name}, format="json").status_code == 201


def _attempts(account_id: str) -> list[Attempt]:
    with account_scope(account_id):
        return list(Attempt.objects.order_by("delivery_id", "number"))


def test_a_delivery_is_signed_per_standard_webhooks_and_verifies_with_the_client(
    dashboard, key_api, receiver
):
    secret = register(dashboard, receiver.url, events=["namespace.created"])["secret"]
    _namespace(key_api, "user-1")
    assert send_due("dash", horizon=0) == 1
    [got] = receiver.received
    event = verify_webhook(got.body, got.headers, secret=secret)
    assert event.type == "namespace.created"
    assert event.data == {
        "account": "dash",
        "namespace": "user-1",
        "job": None,
        "commit": None,
        "paths": [],
    }
    assert event.id == got.headers["webhook-id"] and event.id.startswith("msg_")
    assert got.headers["webhook-signature"].startswith("v1,")
    with pytest.raises(WebhookVerificationError):
        verify_webhook(got.body.replace(b"user-1", b"user-2"), got.headers, secret=secret)
    with pytest.raises(WebhookVerificationError):
        verify_webhook(got.body, got.headers, secret="whsec_" + "A" * 43 + "=")
    [attempt] = _attempts("dash")
    assert attempt.status_code == 204 and attempt.latency_ms >= 0 and attempt.next_attempt is None


def test_a_receiver_that_is_down_gets_every_event_once_it_is_back(dashboard, key_api, receiver):
    register(dashboard, receiver.url, events=["namespace.created"])
    receiver.stop()
    for i in range(3):
        _namespace(key_api, f"user-{i}")
    send_due("dash", horizon=0)  # every first attempt: connection refused
    assert receiver.received == [] and pending("dash") == 3
    failed = _attempts("dash")
    assert [a.error for a in failed] == ["connection failed: ConnectError"] * 3
    assert all(a.next_attempt is not None and a.status_code is None for a in failed)
    receiver.start()
    send_until_settled("dash")
    with account_scope("dash"):
        sent = {e.message_id for e in Event.objects.all()}
        statuses = set(Delivery.objects.values_list("status", flat=True))
    assert set(receiver.ids()) == sent and len(sent) == 3  # nothing lost
    assert statuses == {"delivered"}


def test_a_hanging_receiver_times_out_and_the_delivery_is_retried(dashboard, key_api, receiver):
    register(dashboard, receiver.url, events=["namespace.created"])
    receiver.mode = "hang"
    _namespace(key_api, "user-1")
    send_due("dash", horizon=0)
    first = _attempts("dash")[0]
    assert first.error == "timeout (read)" and first.status_code is None
    assert 400 <= first.latency_ms < 3000  # the read timeout (0.5 s), not the receiver's 30 s
    receiver.mode = "ok"
    send_until_settled("dash")
    attempts = _attempts("dash")
    assert [a.status_code for a in attempts][-1] == 204 and len(attempts) >= 2
    assert len(set(receiver.ids())) == 1  # the same message each time


def test_a_receiver_trickling_its_answer_is_cut_off_at_the_attempts_deadline(
    dashboard, key_api, receiver, settings
):
    # One byte a second: a read timeout (1.5 s here) never fires; the attempt's does.
    settings.GITLOOM_WEBHOOK_READ_TIMEOUT = 1.5
    settings.GITLOOM_WEBHOOK_ATTEMPT_TIMEOUT = 2.5
    register(dashboard, receiver.url, events=["namespace.created"])
    receiver.mode = "trickle"
    _namespace(key_api, "user-1")
    started = time.monotonic()
    send_due("dash", horizon=0)
    first = _attempts("dash")[0]
    assert first.error == "timeout (attempt)" and first.status_code is None
    assert 2400 <= first.latency_ms < 4000
    assert time.monotonic() - started < 6


def test_an_endpoint_answering_500_forever_is_disabled_and_the_account_told(
    dashboard, key_api, receiver
):
    created = register(dashboard, receiver.url, events=["namespace.created"])
    receiver.mode = "error"
    _namespace(key_api, "user-1")
    _namespace(key_api, "user-2")
    send_until_settled("dash")
    attempts = _attempts("dash")
    assert len(attempts) == 2 * 3  # GITLOOM_WEBHOOK_MAX_ATTEMPTS each
    assert {a.status_code for a in attempts} == {500}
    assert all(len(a.response) <= 500 for a in attempts)  # a 100 KB answer, read to a limit
    endpoint = dashboard.get(f"/v1/webhooks/{created['id']}").json()
    assert endpoint["enabled"] is False
    assert endpoint["disabled_reason"].startswith("Disabled after 2 deliveries in a row failed")
    home = dashboard.get("/")
    assert "A webhook endpoint was disabled" in home.content.decode()
    assert receiver.url in dashboard.get("/webhooks/").content.decode()
    before = len(receiver.received)
    _namespace(key_api, "user-3")  # a disabled endpoint gets nothing more
    send_due("dash", horizon=0)
    assert len(receiver.received) == before
    listed = dashboard.get(f"/v1/webhooks/{created['id']}/deliveries").json()["deliveries"]
    resend = session_post(
        dashboard, f"/v1/webhooks/{created['id']}/deliveries/{listed[0]['id']}/resend"
    )
    assert resend.status_code == 409 and resend.json()["error"]["code"] == "webhook_disabled"


def test_send_again_delivers_the_same_event_with_the_same_webhook_id(dashboard, key_api, receiver):
    created = register(dashboard, receiver.url, events=["namespace.created"])
    _namespace(key_api, "user-1")
    send_due("dash", horizon=0)
    [delivery] = dashboard.get(f"/v1/webhooks/{created['id']}/deliveries").json()["deliveries"]
    assert delivery["status"] == "delivered" and delivery["attempts"][0]["status_code"] == 204
    again = session_post(
        dashboard, f"/v1/webhooks/{created['id']}/deliveries/{delivery['id']}/resend"
    )
    assert again.status_code == 202 and again.json()["status"] == "pending"
    send_due("dash", horizon=0)
    assert receiver.ids() == [delivery["message_id"]] * 2
    # Deleting the endpoint takes its deliveries and their attempts with it (the
    # database cascades them, under row-level security).
    token = csrf_token(dashboard)
    assert (
        dashboard.delete(f"/v1/webhooks/{created['id']}", HTTP_X_CSRFTOKEN=token).status_code == 204
    )
    with account_scope("dash"):
        assert (Delivery.objects.count(), Attempt.objects.count(), Event.objects.count()) == (
            0,
            0,
            1,
        )


def test_a_redirect_is_not_followed(dashboard, key_api, receiver):
    with Receiver() as target:
        receiver.mode, receiver.redirect_to = "redirect", target.url
        register(dashboard, receiver.url, events=["namespace.created"])
        _namespace(key_api, "user-1")
        send_due("dash", horizon=0)
        assert target.received == []
    first = _attempts("dash")[0]
    assert first.status_code == 307 and first.error == "redirect not followed (307)"


def test_the_address_is_checked_again_at_delivery_time(dashboard, key_api, receiver, settings):
    # Registered while local addresses were allowed; a name that now resolves to loopback
    # (DNS rebinding looks the same) is refused when the delivery is made.
    register(dashboard, f"http://localhost:{receiver.port}/hooks", events=["namespace.created"])
    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = False
    _namespace(key_api, "user-1")
    send_due("dash", horizon=0)
    assert receiver.received == []
    first = _attempts("dash")[0]
    assert first.error.startswith("refused: A webhook URL must start with https://")
    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = True
    with account_scope("dash"):
        Endpoint.objects.update(url=f"https://localhost:{receiver.port}/hooks")
    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = False
    send_until_settled("dash")
    assert receiver.received == []
    assert "non-public address" in _attempts("dash")[-1].error


def test_one_tenants_events_never_reach_another_tenants_endpoint(dashboard, key_api, receiver, db):
    from rest_framework.test import APIClient

    from accounts.models import Account
    from accounts.services import account_signup

    rival = APIClient(enforce_csrf_checks=True)
    rival.force_login(
        account_signup(account_id="rival", username="rick", password="correct-horse-42")
    )
    with Receiver() as theirs:
        register(dashboard, receiver.url, events=["namespace.created"])
        register(rival, theirs.url, events=["namespace.created"])
        _, rival_secret = api_key_create(account=Account.objects.get(id="rival"), name="app")
        rival_api = APIClient()
        rival_api.credentials(HTTP_AUTHORIZATION=f"Bearer {rival_secret}")
        _namespace(key_api, "mine")
        _namespace(rival_api, "theirs")
        send_due("dash", horizon=0)
        send_due("rival", horizon=0)
        assert [r.json["data"]["namespace"] for r in receiver.received] == ["mine"]
        assert [r.json["data"]["namespace"] for r in theirs.received] == ["theirs"]
    # Row-level security: a query without any account filter sees one account, or none.
    with account_scope("dash"), connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), min(account_id), max(account_id) FROM accounts_webhook_endpoint"
        )
        assert cursor.fetchone() == (1, "dash", "dash")
        cursor.execute("SELECT count(DISTINCT account_id) FROM accounts_webhook_delivery")
        assert cursor.fetchone() == (1,)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM accounts_webhook_event")
        assert cursor.fetchone() == (0,)


def test_job_and_memory_events_name_paths_and_never_a_memorys_text(
    dashboard, key_api, receiver, settings, django_capture_on_commit_callbacks
):
    settings.GITLOOM_QUEUE_SYNC = True
    secret = register(dashboard, receiver.url)["secret"]
    _namespace(key_api, "default")
    text = "I just bought a Sony A7III camera from Fotocentre in Bengaluru."
    with django_capture_on_commit_callbacks(execute=True):
        job = key_api.post(
            "/v1/memories", {"messages": [{"role": "user", "content": text}]}, format="json"
        ).json()["job"]
    job = key_api.get(f"/v1/jobs/{job['id']}").json()["job"]
    assert job["status"] == "done" and job["result"]["created"]
    path = job["result"]["created"][0]
    assert key_api.delete(f"/v1/memories/{path}").status_code == 200
    send_until_settled("dash")
    events = [verify_webhook(r.body, r.headers, secret=secret) for r in receiver.received]
    by_type = {e.type: e.data for e in events}
    assert set(by_type) == {"namespace.created", "job.done", "memory.created", "memory.forgotten"}
    assert (
        by_type["job.done"]["job"] == job["id"] and by_type["job.done"]["commit"] == job["commit"]
    )
    assert by_type["memory.created"]["paths"] == job["result"]["created"]
    assert by_type["memory.forgotten"]["paths"] == [path]
    for r in receiver.received:
        assert b"Fotocentre" not in r.body and b"Sony" not in r.body


def test_a_namespace_filter_sends_only_that_namespaces_events(dashboard, key_api, receiver):
    register(dashboard, receiver.url, events=["namespace.created"], namespaces=["wanted"])
    _namespace(key_api, "wanted")
    _namespace(key_api, "other")
    send_due("dash", horizon=0)
    assert [json.loads(r.body)["data"]["namespace"] for r in receiver.received] == ["wanted"]


def test_an_account_with_webhooks_can_be_deleted_and_takes_them_along(dashboard, key_api, receiver):
    from accounts.models import Account
    from namespaces.services import account_delete

    register(dashboard, receiver.url, events=["namespace.created"])
    _namespace(key_api, "user-1")
    send_due("dash", horizon=0)
    account_delete(account=Account.objects.get(id="dash"))
    with account_scope("dash"), connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT count(*) FROM accounts_webhook_endpoint),"
            " (SELECT count(*) FROM accounts_webhook_event),"
            " (SELECT count(*) FROM accounts_webhook_delivery),"
            " (SELECT count(*) FROM accounts_webhook_attempt),"
            " (SELECT count(*) FROM accounts_webhook_wakeup)"
        )
        assert cursor.fetchone() == (0, 0, 0, 0, 0)
