"""Verifying a GitLoom webhook in your receiver.

GitLoom signs every delivery per the Standard Webhooks spec (``webhook-id``,
``webhook-timestamp``, ``webhook-signature``: HMAC-SHA256 of ``id.timestamp.body``
under the endpoint's ``whsec_...`` secret). ``verify_webhook`` checks it with the
spec's reference implementation (``standardwebhooks``), refuses a timestamp more than
five minutes off, and returns the parsed event::

    event = verify_webhook(request.body, request.headers, secret=os.environ["GITLOOM_WEBHOOK_SECRET"])
    if event.type == "job.done": ...

Pass the body exactly as received (bytes, before any JSON parsing). The same event
may arrive more than once (delivery is at least once): ``event.id`` (the
``webhook-id``) is the same each time, so keep the ids you have handled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from standardwebhooks import Webhook
from standardwebhooks import WebhookVerificationError as _SpecError

__all__ = ["WebhookEvent", "WebhookVerificationError", "verify_webhook"]


class WebhookVerificationError(Exception):
    """The request is not a delivery signed with this secret (or is too old/new)."""


@dataclass(frozen=True)
class WebhookEvent:
    id: str  # the webhook-id header; the same on every retry and resend
    type: str  # job.done, memory.created, ...
    timestamp: str  # when the event happened (ISO 8601)
    data: dict[str, Any]  # account, namespace, job, commit, paths, ...


def verify_webhook(body: bytes | str, headers: Mapping[str, str], *, secret: str) -> WebhookEvent:
    """The delivery's event once its signature checks out; ``WebhookVerificationError``
    otherwise."""
    plain = {str(k).lower(): str(v) for k, v in headers.items()}
    try:
        payload = Webhook(secret).verify(body, plain)
    except (_SpecError, ValueError, TypeError) as exc:
        raise WebhookVerificationError(str(exc) or "invalid signature") from None
    if not isinstance(payload, dict) or "type" not in payload:
        raise WebhookVerificationError("not a GitLoom event")
    return WebhookEvent(
        id=plain["webhook-id"],
        type=payload["type"],
        timestamp=payload.get("timestamp", ""),
        data=payload.get("data") or {},
    )
