"""Writes an account makes to its webhooks: register, change, delete an endpoint;
send a delivery again. Events themselves are written by ``events.webhook_emit``."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.errors import InvalidWebhookEvents, InvalidWebhookUrl, WebhookDisabled
from accounts.models import Account
from accounts.webhooks import outbound
from accounts.webhooks.events import EVENT_TYPES, wake_at
from accounts.webhooks.models import Delivery, Endpoint
from accounts.webhooks.scope import account_scope
from accounts.webhooks.signing import secret_new, secret_seal
from gitloom.core.slugs import validate_slug

MAX_ENDPOINTS = 20


def _check_url(url: str) -> str:
    url = url.strip()
    if len(url) > 2000:
        raise InvalidWebhookUrl("A webhook URL is at most 2000 characters.")
    try:
        _, host, port = outbound.url_check(url)
        outbound.resolve_checked(host, port)
    except outbound.Refused as exc:
        raise InvalidWebhookUrl(str(exc)) from None
    return url


def _check_events(events: list[str]) -> list[str]:
    unknown = sorted(set(events) - set(EVENT_TYPES))
    if not events or unknown:
        raise InvalidWebhookEvents(
            f"Unknown event type {unknown[0]!r}." if unknown else "Name at least one event type."
        )
    return [event for event in EVENT_TYPES if event in events]


def _check_namespaces(namespaces: list[str]) -> list[str]:
    for name in namespaces:
        validate_slug(name, what="namespace name")
    return sorted(set(namespaces))


def endpoint_create(
    *,
    account: Account,
    url: str,
    events: list[str],
    namespaces: list[str] | None = None,
    description: str = "",
) -> tuple[Endpoint, str]:
    """Register an endpoint; returns it and its signing secret, which is never shown
    again (it is kept encrypted, to sign with)."""
    url = _check_url(url)
    events = _check_events(events)
    namespaces = _check_namespaces(namespaces or [])
    secret = secret_new()
    with account_scope(account.id):
        if Endpoint.objects.filter(account=account).count() >= MAX_ENDPOINTS:
            raise InvalidWebhookUrl(f"An account has at most {MAX_ENDPOINTS} endpoints.")
        endpoint = Endpoint.objects.create(
            account=account,
            url=url,
            description=description.strip()[:200],
            events=events,
            namespaces=namespaces,
            secret_encrypted=secret_seal(secret),
            secret_prefix=secret[:12],
        )
    return endpoint, secret


def endpoint_update(
    *,
    endpoint: Endpoint,
    url: str | None = None,
    events: list[str] | None = None,
    namespaces: list[str] | None = None,
    description: str | None = None,
    enabled: bool | None = None,
) -> Endpoint:
    """Change what was given. Enabling a disabled endpoint clears its failure count;
    what ended failed while it was disabled stays failed (send it again if wanted)."""
    if url is not None:
        endpoint.url = _check_url(url)
    if events is not None:
        endpoint.events = _check_events(events)
    if namespaces is not None:
        endpoint.namespaces = _check_namespaces(namespaces)
    if description is not None:
        endpoint.description = description.strip()[:200]
    if enabled is not None and enabled != endpoint.enabled:
        endpoint.enabled = enabled
        endpoint.failed_in_a_row = 0
        endpoint.disabled_at = None if enabled else timezone.now()
        endpoint.disabled_reason = "" if enabled else "Disabled by the account."
    with account_scope(endpoint.account_id):
        endpoint.save()
        if enabled is False:
            Delivery.objects.filter(endpoint=endpoint, status=Delivery.Status.PENDING).update(
                status=Delivery.Status.FAILED,
                next_attempt=None,
                finished=timezone.now(),
                last_error="endpoint disabled",
            )
    return endpoint


def endpoint_delete(*, endpoint: Endpoint) -> None:
    """The endpoint and its deliveries go (the database cascades them)."""
    with account_scope(endpoint.account_id):
        Endpoint.objects.filter(pk=endpoint.pk).delete()


def delivery_resend(*, delivery: Delivery) -> Delivery:
    """Send a delivery's event to its endpoint again, as a new delivery with the same
    ``webhook-id`` (so a receiver that saw it can tell), queued now."""
    with account_scope(delivery.account_id), transaction.atomic():
        endpoint = Endpoint.objects.get(pk=delivery.endpoint_id)
        if not endpoint.enabled:
            raise WebhookDisabled()
        again = Delivery.objects.create(
            account_id=delivery.account_id,
            endpoint=endpoint,
            event_id=delivery.event_id,
            next_attempt=timezone.now(),
        )
        wake_at(account_id=delivery.account_id, due=again.next_attempt)
    return again
