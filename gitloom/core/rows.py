"""Model instances from one written-out statement: the lookups every request makes.

Building a query through the ORM costs more CPU than Postgres spends running it (the
API-key lookup: 2.9-3.5 ms through the ORM, 2.3 ms of it building and compiling, against
0.3-0.6 ms written out; in-process on this project's machine under load 4.4), so the two statements on every API request's path (the key,
the namespace) are written out in SQL. Their column lists come from the models, so a
new field is read too, and the rows become ordinary model instances (``from_db``).
They are bound on the server, so each connection prepares them: planning the key with
its namespace (a three-table join) cost Postgres more than running it (0.55 ms a lookup
against 0.11-0.16 ms prepared, in-process at 10,000 memories).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache

from django.db import connection
from django.db.models import Model


@cache
def columns(model: type[Model], alias: str) -> str:
    """``alias."col", ...`` for every concrete field of ``model``, in field order."""
    return ", ".join(f'{alias}."{field.column}"' for field in model._meta.concrete_fields)


def fetch_instances(
    sql: str, params: Sequence, models: Sequence[type[Model]]
) -> tuple[Model, ...] | None:
    """The first row of ``sql`` (whose columns are ``columns(model, ...)`` of each of
    ``models`` in turn) as one instance of each model, or None without a row."""
    with connection.server_bound_cursor() as cursor:
        cursor.execute(_numbered(sql), params)
        row = cursor.fetchone()
    if row is None:
        return None
    found, start = [], 0
    for model in models:
        fields = model._meta.concrete_fields
        values = row[start : start + len(fields)]
        found.append(model.from_db(connection.alias, [f.attname for f in fields], values))
        start += len(fields)
    return tuple(found)


@lru_cache(maxsize=64)
def _numbered(sql: str) -> str:
    """``%s`` placeholders as the server's ``$1, $2, ...``, in order."""
    parts = sql.split("%s")
    if any("%" in part for part in parts):
        raise ValueError("a server-bound statement takes only %s placeholders")
    return "".join(f"{part}${i}" for i, part in enumerate(parts[:-1], 1)) + parts[-1]
