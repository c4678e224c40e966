"""Reads of one account's webhook rows, each inside that account's scope, with what
the caller will read loaded (related rows fetched later, outside it, are invisible)."""

from __future__ import annotations

import uuid

from django.db.models import Count, Q

from accounts.errors import DeliveryNotFound, WebhookNotFound
from accounts.models import Account
from accounts.webhooks.models import Delivery, Endpoint
from accounts.webhooks.scope import account_scope

DELIVERIES_SHOWN = 50


def endpoint_list(*, account: Account) -> list[Endpoint]:
    with account_scope(account.id):
        return list(
            Endpoint.objects.filter(account=account).annotate(
                pending=Count("deliveries", filter=Q(deliveries__status=Delivery.Status.PENDING))
            )
        )


def _uuid(value, missing: type[Exception]) -> uuid.UUID:
    """An id as the UUID it must be; anything else is the same 404 as a missing one
    (Django's lookup raised ValidationError on ``1``: a 500)."""
    try:
        return value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        raise missing() from None


def endpoint_get(*, account: Account, endpoint_id) -> Endpoint:
    """By public id; the same 404 for "missing" and "not yours"."""
    endpoint_id = _uuid(endpoint_id, WebhookNotFound)
    with account_scope(account.id):
        try:
            return Endpoint.objects.get(account=account, public_id=endpoint_id)
        except (Endpoint.DoesNotExist, ValueError):
            raise WebhookNotFound() from None


def endpoint_disabled_list(*, account: Account) -> list[Endpoint]:
    """The account's endpoints that were disabled for failing (the dashboard's notice)."""
    with account_scope(account.id):
        return list(
            Endpoint.objects.filter(account=account, enabled=False).exclude(disabled_reason="")
        )


def delivery_list(*, endpoint: Endpoint, limit: int = DELIVERIES_SHOWN) -> list[Delivery]:
    """The endpoint's latest deliveries, newest first, each with its attempts."""
    with account_scope(endpoint.account_id):
        return list(
            Delivery.objects.filter(endpoint=endpoint)
            .select_related("event")
            .prefetch_related("log")
            .order_by("-created", "-id")[:limit]
        )


def delivery_get(*, endpoint: Endpoint, delivery_id) -> Delivery:
    delivery_id = _uuid(delivery_id, DeliveryNotFound)
    with account_scope(endpoint.account_id):
        try:
            # Everything a caller reads is loaded here, in the scope: a lazy load
            # outside it would find nothing (row-level security).
            return (
                Delivery.objects.select_related("event")
                .prefetch_related("log")
                .get(endpoint=endpoint, public_id=delivery_id)
            )
        except (Delivery.DoesNotExist, ValueError):
            raise DeliveryNotFound() from None
