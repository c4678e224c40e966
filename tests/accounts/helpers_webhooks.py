"""Shared by the webhook tests: register an endpoint from a dashboard session, send
what is due the way a webhook worker does, and wait for it."""

from __future__ import annotations

import time

from accounts.webhooks.delivery import send_due
from accounts.webhooks.models import Delivery
from accounts.webhooks.scope import account_scope
from tests.conftest import csrf_token

ALL_EVENTS = [
    "job.done",
    "job.failed",
    "memory.created",
    "memory.rewritten",
    "memory.forgotten",
    "memory.purged",
    "namespace.created",
    "namespace.deleted",
]


def register(session, url: str, events=None, **fields) -> dict:
    body = {"url": url, "events": events or ALL_EVENTS, **fields}
    response = session.post(
        "/v1/webhooks", body, format="json", HTTP_X_CSRFTOKEN=csrf_token(session)
    )
    assert response.status_code == 201, response.json()
    return response.json()


def session_post(session, path: str, body: dict | None = None):
    return session.post(path, body or {}, format="json", HTTP_X_CSRFTOKEN=csrf_token(session))


def pending(account_id: str) -> int:
    with account_scope(account_id):
        return Delivery.objects.filter(status=Delivery.Status.PENDING).count()


def send_until_settled(account_id: str, timeout: float = 20) -> None:
    """Run the webhook worker's task until nothing of the account is pending."""
    deadline = time.monotonic() + timeout
    while pending(account_id):
        assert time.monotonic() < deadline, "deliveries still pending"
        send_due(account_id, horizon=0)
        time.sleep(0.02)
