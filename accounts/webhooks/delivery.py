"""The sender: what a webhook worker does with "send account A's due deliveries".

``send_due`` claims the account's due deliveries (a lease, ``FOR UPDATE SKIP LOCKED``,
so two senders never send one delivery at once, and a sender that dies mid-request
frees it when the lease ends: at least once, never lost), posts them in parallel
(``outbound.post``), records every attempt, and schedules the next one with
exponential back-off and jitter. While a retry falls due within ``HORIZON`` seconds it
waits and goes on, up to ``BUDGET`` seconds a task; later ones are the sweep's.

An endpoint whose deliveries keep failing for good (``GITLOOM_WEBHOOK_DISABLE_AFTER``
in a row, each after every attempt) is disabled, its pending deliveries end failed, and
the account sees why on its dashboard.
"""

from __future__ import annotations

import json
import logging
import random
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Min
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from accounts.webhooks import outbound
from accounts.webhooks.lane import enqueue_send
from accounts.webhooks.models import Attempt, Delivery, Endpoint, Wakeup
from accounts.webhooks.scope import account_scope
from accounts.webhooks.signing import SecretUnreadable, secret_open, signed_headers
from gitloom.core.metrics import WEBHOOK_DELIVERIES

logger = logging.getLogger("gitloom.webhooks")

BATCH = 16  # deliveries claimed and sent at once (in threads) by one task
HORIZON = 10.0  # seconds: a retry due sooner is waited for by the task that made it
BUDGET = 30.0  # seconds one task may keep sending before it leaves the rest to another


def backoff(attempt: int) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based): 4x per attempt
    from the base, capped, with +-20% jitter so retries of a burst spread out."""
    base = settings.GITLOOM_WEBHOOK_BACKOFF_BASE * 4 ** (attempt - 1)
    return min(base, settings.GITLOOM_WEBHOOK_BACKOFF_CAP) * random.uniform(0.8, 1.2)


def _lease() -> timedelta:
    # Longer than one batch can take (its requests run at once, each bounded by the
    # attempt's deadline), so a live sender never loses its claim; a dead one's ends soon
    # after.
    return timedelta(seconds=2 * settings.GITLOOM_WEBHOOK_ATTEMPT_TIMEOUT + 5)


def _claim(account_id: str) -> list[Delivery]:
    # clock_timestamp(), not now(): the time of the statement, whatever transaction
    # this runs in.
    table = Delivery._meta.db_table
    with account_scope(account_id), connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET lease_until = clock_timestamp() + %s WHERE id IN ("  # noqa: S608 - our table
            f" SELECT id FROM {table} WHERE account_id = %s AND status = 'pending'"
            " AND next_attempt <= clock_timestamp()"
            " AND (lease_until IS NULL OR lease_until < clock_timestamp())"
            " ORDER BY next_attempt, id LIMIT %s FOR UPDATE SKIP LOCKED) RETURNING id",
            [_lease(), account_id, BATCH],
        )
        ids = [row[0] for row in cursor.fetchall()]
        return list(
            Delivery.objects.filter(pk__in=ids)
            .select_related("endpoint", "event")
            .order_by("next_attempt", "id")
        )


def _request(delivery: Delivery) -> tuple[bytes, dict[str, str]] | str:
    event = delivery.event
    body = json.dumps(
        {"type": event.type, "timestamp": event.created.isoformat(), "data": event.data},
        separators=(",", ":"),
    )
    try:
        secret = secret_open(delivery.endpoint.secret_encrypted)
    except SecretUnreadable:
        return "secret unreadable (SECRET_KEY changed?); register the endpoint again"
    headers = signed_headers(
        secret=secret, message_id=event.message_id, at=timezone.now(), body=body
    )
    return body.encode(), headers


def _send(delivery: Delivery) -> outbound.Outcome:
    if not delivery.endpoint.enabled:
        return outbound.Outcome(status_code=None, latency_ms=0, error="endpoint disabled")
    prepared = _request(delivery)
    if isinstance(prepared, str):
        return outbound.Outcome(status_code=None, latency_ms=0, error=prepared)
    body, headers = prepared
    return outbound.post(url=delivery.endpoint.url, body=body, headers=headers)


def _record(delivery: Delivery, outcome: outbound.Outcome) -> None:
    """One attempt's row and the delivery's new state, in one transaction."""
    now = timezone.now()
    number = delivery.attempts + 1
    final = outcome.ok or number >= settings.GITLOOM_WEBHOOK_MAX_ATTEMPTS
    final = final or outcome.error == "endpoint disabled"
    next_attempt = None if final else now + timedelta(seconds=backoff(number))
    with account_scope(delivery.account_id):
        Attempt.objects.create(
            account_id=delivery.account_id,
            delivery=delivery,
            number=number,
            at=now,
            status_code=outcome.status_code,
            latency_ms=outcome.latency_ms,
            error=outcome.error[:300],
            response=outcome.response[:500],
            next_attempt=next_attempt,
        )
        status = (
            Delivery.Status.DELIVERED
            if outcome.ok
            else Delivery.Status.FAILED
            if final
            else Delivery.Status.PENDING
        )
        Delivery.objects.filter(pk=delivery.pk).update(
            status=status,
            attempts=number,
            next_attempt=next_attempt,
            lease_until=None,
            last_status_code=outcome.status_code,
            last_latency_ms=outcome.latency_ms,
            last_error=outcome.error[:300],
            finished=now if final else None,
        )
        WEBHOOK_DELIVERIES.labels(
            "retry" if status == Delivery.Status.PENDING else status.value
        ).inc()
        if outcome.ok:
            Endpoint.objects.filter(pk=delivery.endpoint_id).update(failed_in_a_row=0)
        elif final and delivery.endpoint.enabled:
            _failed_for_good(delivery.endpoint_id)


def _failed_for_good(endpoint_id: int) -> None:
    Endpoint.objects.filter(pk=endpoint_id).update(failed_in_a_row=F("failed_in_a_row") + 1)
    endpoint = Endpoint.objects.select_for_update().get(pk=endpoint_id)
    limit = settings.GITLOOM_WEBHOOK_DISABLE_AFTER
    if endpoint.enabled and endpoint.failed_in_a_row >= limit:
        endpoint_disable(
            endpoint=endpoint,
            reason=f"Disabled after {endpoint.failed_in_a_row} deliveries in a row failed "
            f"every attempt ({settings.GITLOOM_WEBHOOK_MAX_ATTEMPTS} each).",
        )


def endpoint_disable(*, endpoint: Endpoint, reason: str) -> None:
    """Stop sending to ``endpoint``: it is marked disabled with the reason (which its
    account's dashboard shows), and its pending deliveries end failed."""
    now = timezone.now()
    Endpoint.objects.filter(pk=endpoint.pk).update(
        enabled=False, disabled_at=now, disabled_reason=reason[:300]
    )
    Delivery.objects.filter(endpoint_id=endpoint.pk, status=Delivery.Status.PENDING).update(
        status=Delivery.Status.FAILED,
        next_attempt=None,
        finished=now,
        last_error="endpoint disabled",
    )
    logger.warning(
        "webhook endpoint disabled account=%s url=%s: %s", endpoint.account_id, endpoint.url, reason
    )


def _next_due(account_id: str):
    """When the account's next delivery can be sent (one another sender holds: once
    its lease ends)."""
    with account_scope(account_id):
        return Delivery.objects.filter(
            account_id=account_id, status=Delivery.Status.PENDING
        ).aggregate(due=Min(Greatest("next_attempt", Coalesce("lease_until", "next_attempt"))))[
            "due"
        ]


def _rewake(account_id: str) -> None:
    """Leave the sweep's marker at the account's next due delivery, or none."""
    with transaction.atomic():
        Wakeup.objects.select_for_update().filter(account_id=account_id).first()
        due = _next_due(account_id)
        if due is None:
            Wakeup.objects.filter(account_id=account_id).delete()
        else:
            Wakeup.objects.update_or_create(account_id=account_id, defaults={"due": due})


def _send_batch(pool: ThreadPoolExecutor, batch: list[Delivery]) -> int:
    # Only the HTTP runs in the threads; the rows are written from here.
    for delivery, outcome in zip(batch, pool.map(_send, batch), strict=True):
        _record(delivery, outcome)
    return len(batch)


def send_due(account_id: str, *, horizon: float = HORIZON) -> int:
    """Send what is due for ``account_id`` (the webhook queue's task); returns the
    number of attempts made. ``horizon=0``: one pass over what is due now, no waiting
    for retries."""
    deadline = time.monotonic() + BUDGET
    made = 0
    with ThreadPoolExecutor(max_workers=BATCH, thread_name_prefix="webhook") as pool:
        while time.monotonic() < deadline:
            batch = _claim(account_id)
            if batch:
                made += _send_batch(pool, batch)
                if horizon:
                    continue
                break
            due = _next_due(account_id)
            if due is None:
                break
            wait = (due - timezone.now()).total_seconds()
            if wait > horizon:
                break
            time.sleep(max(0.0, min(wait, deadline - time.monotonic())) + 0.01)
        else:
            enqueue_send(account_id=account_id)  # more to do: another task goes on
    _rewake(account_id)
    return made


def sweep() -> int:
    """Queue a sender for every account with a delivery due (every minute, and when
    the webhook cluster starts): retries beyond a task's horizon, and anything a lost
    task or a restart left."""
    accounts = list(
        Wakeup.objects.filter(due__lte=timezone.now() + timedelta(seconds=HORIZON)).values_list(
            "account_id", flat=True
        )
    )
    for account_id in accounts:
        enqueue_send(account_id=account_id)
    return len(accounts)
