"""The account boundary of the webhook tables in Postgres.

Every webhook table has row-level security forced on (migration ``0002_webhooks``): a
row is visible or writable only inside ``account_scope(account_id)``, which sets the
transaction-local ``gitloom.account_id``. A query that forgets ``WHERE account = ...``
still sees one account's rows, and outside a scope it sees none, so one tenant's
events can never be matched to another tenant's endpoint.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction

SETTING = "gitloom.account_id"


@contextmanager
def account_scope(account_id: str) -> Iterator[None]:
    """Run the block in a transaction (or savepoint) that sees ``account_id``'s webhook
    rows only. Nesting the same account is fine; nesting another is a bug and raises."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting(%s, true)", [SETTING])
            previous = cursor.fetchone()[0] or ""
            if previous and previous != account_id:
                raise RuntimeError(f"account_scope({account_id}) inside that of {previous}")
            cursor.execute("SELECT set_config(%s, %s, true)", [SETTING, account_id])
        yield
        if not previous:
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config(%s, '', true)", [SETTING])
