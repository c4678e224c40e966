"""/v1/webhooks: dashboard-only, the secret shown once, outbound rules at registration."""

from __future__ import annotations

import pytest

from accounts.webhooks.models import Endpoint
from accounts.webhooks.scope import account_scope
from accounts.webhooks.signing import secret_open
from tests.accounts.helpers_webhooks import register, session_post
from tests.conftest import csrf_token


@pytest.fixture(autouse=True)
def local_receivers_allowed(settings):
    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = True


def test_api_keys_cannot_register_list_change_or_delete_webhooks(api, dashboard):
    created = register(dashboard, "http://127.0.0.1:9/hooks")
    calls = [
        api.get("/v1/webhooks"),
        api.post(
            "/v1/webhooks", {"url": "https://example.com/", "events": ["job.done"]}, format="json"
        ),
        api.get(f"/v1/webhooks/{created['id']}"),
        api.patch(f"/v1/webhooks/{created['id']}", {"enabled": False}, format="json"),
        api.delete(f"/v1/webhooks/{created['id']}"),
        api.get(f"/v1/webhooks/{created['id']}/deliveries"),
    ]
    assert [c.status_code for c in calls] == [403] * 6
    assert {c.json()["error"]["code"] for c in calls} == {"dashboard_only"}
    assert "Webhook endpoints need a dashboard session" in calls[0].json()["error"]["message"]


def test_the_secret_is_shown_once_and_kept_only_sealed(dashboard):
    created = register(dashboard, "http://127.0.0.1:9/hooks", events=["job.done"])
    secret = created["secret"]
    assert secret.startswith("whsec_") and created["secret_prefix"] == secret[:12]
    listed = dashboard.get("/v1/webhooks").json()["webhooks"]
    assert [w["id"] for w in listed] == [created["id"]] and "secret" not in listed[0]
    assert "secret" not in dashboard.get(f"/v1/webhooks/{created['id']}").json()
    with account_scope("dash"):
        row = Endpoint.objects.get(public_id=created["id"])
    stored = {str(getattr(row, f.attname)) for f in Endpoint._meta.fields}
    assert not any(secret[6:] in value for value in stored)  # not in the clear anywhere
    assert secret_open(row.secret_encrypted) == secret  # but readable to sign with


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/hooks",  # not https
        "https://127.0.0.1/hooks",  # loopback
        "https://localhost/hooks",  # a name for loopback
        "https://10.1.2.3/hooks",  # private
        "https://169.254.169.254/latest/meta-data",  # cloud metadata
        "https://[::1]/hooks",
        # IPv6 forms that carry a loopback or private IPv4 address
        "https://[64:ff9b::7f00:1]/hooks",  # NAT64 of 127.0.0.1
        "https://[64:ff9b:1::a01:203]/hooks",  # local-use NAT64 of 10.1.2.3
        "https://[2002:7f00:1::]/hooks",  # 6to4 of 127.0.0.1
        "https://[::127.0.0.1]/hooks",  # IPv4-compatible
        "https://[::ffff:10.1.2.3]/hooks",  # IPv4-mapped
        "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hooks",  # Teredo, client 127.0.0.1
        "https://user:pw@example.com/hooks",
        "ftp://example.com/",
        "not a url",
    ],
)
def test_a_webhook_url_must_be_https_and_public(dashboard, settings, url):
    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = False
    response = session_post(dashboard, "/v1/webhooks", {"url": url, "events": ["job.done"]})
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == "invalid_webhook_url"
    assert dashboard.get("/v1/webhooks").json()["webhooks"] == []


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data",
        "http://169.254.10.1/hooks",
        "http://[::ffff:169.254.169.254]/latest",
        "http://[64:ff9b::a9fe:a9fe]/latest",  # NAT64 of 169.254.169.254
        "http://[fd00:ec2::254]/latest",  # AWS's IPv6 metadata address
    ],
)
def test_the_metadata_range_is_refused_even_when_local_addresses_are_allowed(
    dashboard, settings, url
):
    settings.GITLOOM_WEBHOOK_ALLOW_LOCAL = True
    response = session_post(dashboard, "/v1/webhooks", {"url": url, "events": ["job.done"]})
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == "invalid_webhook_url"
    # Loopback itself stays allowed for local development.
    allowed = session_post(
        dashboard, "/v1/webhooks", {"url": "http://127.0.0.1:9/hooks", "events": ["job.done"]}
    )
    assert allowed.status_code == 201


def test_unknown_events_and_bad_namespace_names_are_refused(dashboard):
    bad_event = session_post(
        dashboard, "/v1/webhooks", {"url": "http://127.0.0.1:9/", "events": ["job.exploded"]}
    )
    assert bad_event.status_code == 400
    assert bad_event.json()["error"]["code"] == "invalid_webhook_events"
    bad_ns = session_post(
        dashboard,
        "/v1/webhooks",
        {"url": "http://127.0.0.1:9/", "events": ["job.done"], "namespaces": ["../x"]},
    )
    assert bad_ns.status_code == 400 and bad_ns.json()["error"]["code"] == "invalid_name"
    assert dashboard.get("/v1/webhooks").json()["webhooks"] == []


def test_changing_and_deleting_an_endpoint(dashboard):
    created = register(dashboard, "http://127.0.0.1:9/hooks", events=["job.done"])
    token = csrf_token(dashboard)
    changed = dashboard.patch(
        f"/v1/webhooks/{created['id']}",
        {"events": ["memory.created", "job.done"], "namespaces": ["user-1"], "enabled": False},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    ).json()
    assert changed["events"] == ["job.done", "memory.created"]
    assert changed["namespaces"] == ["user-1"]
    assert changed["enabled"] is False and changed["disabled_reason"] == "Disabled by the account."
    gone = dashboard.delete(f"/v1/webhooks/{created['id']}", HTTP_X_CSRFTOKEN=token)
    assert gone.status_code == 204
    missing = dashboard.get(f"/v1/webhooks/{created['id']}")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "webhook_not_found"


def test_another_accounts_endpoint_is_not_found(dashboard, db):
    from rest_framework.test import APIClient

    from accounts.services import account_signup

    other = APIClient(enforce_csrf_checks=True)
    other.force_login(
        account_signup(account_id="rival", username="rick", password="correct-horse-42")
    )
    theirs = register(other, "http://127.0.0.1:9/theirs")
    assert dashboard.get(f"/v1/webhooks/{theirs['id']}").status_code == 404
    assert dashboard.get("/v1/webhooks").json()["webhooks"] == []
    assert dashboard.get(f"/v1/webhooks/{theirs['id']}/deliveries").status_code == 404


@pytest.mark.parametrize("bad", ["1", "not-a-uuid", "%C3%A9"])
def test_an_id_that_is_not_a_uuid_is_not_found_on_the_api_and_the_dashboard(dashboard, bad):
    created = register(dashboard, "http://127.0.0.1:9/hooks", events=["job.done"])
    for path, code in (
        (f"/v1/webhooks/{bad}", "webhook_not_found"),
        (f"/v1/webhooks/{bad}/deliveries", "webhook_not_found"),
        (f"/v1/webhooks/{created['id']}/deliveries/{bad}/resend", "delivery_not_found"),
    ):
        method = dashboard.post if path.endswith("resend") else dashboard.get
        kwargs = {"HTTP_X_CSRFTOKEN": csrf_token(dashboard)} if method == dashboard.post else {}
        answer = method(path, **kwargs)
        assert answer.status_code == 404 and answer.json()["error"]["code"] == code, path
    assert dashboard.get(f"/webhooks/{bad}/").status_code == 404
    resend = f"/webhooks/{created['id']}/deliveries/{bad}/resend/"
    assert dashboard.post(resend, HTTP_X_CSRFTOKEN=csrf_token(dashboard)).status_code == 404
