"""``webhook_emit``: the outbox. Called by the service that makes a change, inside the
transaction that makes it, it writes the event and one pending delivery per endpoint
that wants it; the queue is asked to send them once that transaction commits. A change
rolled back announces nothing; a committed one is in Postgres with its deliveries, so a
worker that dies before sending loses nothing (the sweep finds them).
"""

from __future__ import annotations

from django.db import connection, transaction
from django.utils import timezone

from accounts.webhooks.lane import enqueue_send
from accounts.webhooks.models import Delivery, Endpoint, Event, Wakeup
from accounts.webhooks.scope import account_scope

EVENT_TYPES = (
    "job.done",
    "job.failed",
    "memory.created",
    "memory.rewritten",
    "memory.forgotten",
    "memory.purged",
    "namespace.created",
    "namespace.deleted",
)


def webhook_emit(
    *,
    account_id: str,
    type: str,  # noqa: A002 - the event's own word
    namespace: str,
    job: str | None = None,
    commit: str | None = None,
    paths: list[str] | None = None,
    **extra,
) -> Event | None:
    """Record one event for ``account_id`` and queue its deliveries. Must run inside the
    caller's transaction. Returns None (and writes nothing) when no endpoint wants it."""
    if type not in EVENT_TYPES:
        raise ValueError(type)
    if not connection.in_atomic_block:
        raise RuntimeError("webhook_emit must run in the transaction of the change it announces")
    with account_scope(account_id):
        wanted = [
            endpoint
            for endpoint in Endpoint.objects.filter(account_id=account_id, enabled=True)
            if type in endpoint.events
            and (not endpoint.namespaces or namespace in endpoint.namespaces)
        ]
        if not wanted:
            return None
        now = timezone.now()
        data = {
            "account": account_id,
            "namespace": namespace,
            "job": job,
            "commit": commit or None,
            "paths": list(paths or []),
            **extra,
        }
        event = Event.objects.create(
            account_id=account_id, type=type, namespace=namespace, data=data
        )
        Delivery.objects.bulk_create(
            [
                Delivery(account_id=account_id, endpoint=endpoint, event=event, next_attempt=now)
                for endpoint in wanted
            ]
        )
    wake_at(account_id=account_id, due=now)
    return event


def wake_at(*, account_id: str, due) -> None:
    """Make sure the queue looks at ``account_id``'s deliveries by ``due``: the sweep's
    marker, and, once the transaction commits, a sender task at once."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Wakeup._meta.db_table} (account_id, due) VALUES (%s, %s)"  # noqa: S608 - our table name
            " ON CONFLICT (account_id) DO UPDATE SET due = LEAST(EXCLUDED.due,"
            f" {Wakeup._meta.db_table}.due)",
            [account_id, due],
        )
    if due <= timezone.now():
        transaction.on_commit(lambda: enqueue_send(account_id=account_id))
