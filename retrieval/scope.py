"""The namespace boundary in Postgres.

Every index table has row-level security forced on (``migrations/0002_index_tables``):
a row is visible, insertable or deletable only when its ``namespace_id`` equals the
transaction-local setting ``gitloom.namespace_id``. This module is the one place that
sets it::

    with namespace_scope(namespace):
        ...  # every index query here sees this namespace's rows and no other's

A query that forgets its ``WHERE namespace_id = ...`` still sees one namespace; outside
any scope it sees nothing. The service connects as a role that is neither superuser
nor BYPASSRLS, and the tables' owner is bound too because the policies are FORCED.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import psycopg
from django.db import connections, transaction
from pgvector import Vector
from pgvector.psycopg.vector import VectorBinaryDumper

SETTING = "gitloom.namespace_id"


@contextmanager
def namespace_scope(namespace, *, using: str = "default") -> Iterator[None]:
    """Run the block in a transaction whose index reads and writes see ``namespace`` only.

    ``namespace`` is a ``Namespace`` (or anything with an integer ``pk``). The setting is
    transaction-local (``set_config(..., true)``); when the scope is nested in an outer
    transaction, the previous value is put back on the way out so the rest of that
    transaction does not keep this namespace's view. Nesting a scope for a different
    namespace is a bug and raises.
    """
    namespace_id = int(namespace.pk)
    connection = connections[using]
    # A fresh transaction cannot have a transaction-local value yet, so the common case
    # (the request's only scope) is one statement; nesting needs the read and restore.
    nested = connection.in_atomic_block
    with transaction.atomic(using=using):
        with connection.cursor() as cursor:
            previous = ""
            if nested:
                cursor.execute("SELECT current_setting(%s, true)", [SETTING])
                previous = cursor.fetchone()[0] or ""
                if previous and previous != str(namespace_id):
                    raise RuntimeError(
                        f"namespace_scope({namespace_id}) nested inside the scope of {previous}"
                    )
            cursor.execute("SELECT set_config(%s, %s, true)", [SETTING, str(namespace_id)])
        yield
        # Only on a clean exit: on an error atomic() rolls back the transaction or the
        # savepoint taken before set_config, which undoes the setting with it.
        if nested and not previous:
            with connection.cursor() as cursor:
                cursor.execute("SELECT set_config(%s, '', true)", [SETTING])


def scoped_query(
    *,
    namespace,
    sql: str,
    params: Mapping[str, Any],
    settings: Mapping[str, str] | None = None,
    setup: Sequence[str] = (),
    prepare: bool = False,
    using: str = "default",
) -> tuple[list[str], list[tuple]]:
    """Run one read statement (named ``%(...)s`` parameters) in ``namespace``'s scope;
    return its column names and rows. ``settings`` are more transaction-local settings
    (``hnsw.ef_search`` and the like) for the statement; ``setup`` are statements run
    in the scope before it (same parameters), e.g. to derive a setting from the index.

    Outside a transaction this is one round trip: the ``set_config`` calls and the
    statement go to Postgres together and run as one implicit transaction, so the
    scope ends with the statement. On a busy machine every round trip waits for both
    processes to be scheduled, and the retrieval hot path would otherwise make five.
    Inside a caller's transaction it uses ``namespace_scope``.

    ``prepare=True`` binds parameters on the server and keeps the statements prepared
    on the connection (psycopg's per-connection cache), so a repeated statement is
    neither parsed nor planned again: how it is planned is then up to the
    ``plan_cache_mode`` among ``settings``. The round trip is a pipeline.
    """
    connection = connections[using]
    prefix, bound = _scope_prefix(namespace, params, settings)
    if connection.in_atomic_block:
        with namespace_scope(namespace, using=using), connection.cursor() as cursor:
            if prepare:
                return _fetch(_execute_prepared(connection, [prefix, *setup, sql], bound))
            for statement in [prefix, *setup, sql]:
                cursor.execute(statement, bound)
            return _fetch(cursor)
    if prepare:
        connection.ensure_connection()
        with connection.wrap_database_errors:
            with connection.connection.pipeline():
                cursor = _execute_prepared(connection, [prefix, *setup, sql], bound)
            return _fetch(cursor)
    with connection.cursor() as cursor:
        cursor.execute(";\n".join([prefix, *setup, sql]), bound)
        for _ in range(1 + len(setup)):  # skip to the statement's own result
            cursor.nextset()
        return _fetch(cursor)


def scoped_overlapped(
    *,
    namespace,
    first: str,
    second: str,
    params: Mapping[str, Any],
    meanwhile: Callable[[], Any],
    carry: Callable[[Any], Mapping[str, Any]],
    settings: Mapping[str, str] | None = None,
    setup: Sequence[str] = (),
    using: str = "default",
) -> tuple[list[str], list[tuple]]:
    """Two read statements in ``namespace``'s scope, the client working while the server
    runs the first; return the second's column names and rows.

    ``first`` is sent, ``meanwhile()`` runs here while Postgres executes it, then
    ``carry(meanwhile's result)`` gives the parameters the second adds to ``params``;
    ``setup`` runs before the second. The client never reads what ``first`` returns:
    ``first`` hands its result to ``second`` on the server (in transaction-local
    settings). Both are prepared (as in ``scoped_query(prepare=True)``) and travel in
    one pipeline, so the only wait is for the second's rows, which the server runs as
    soon as the first is done. Outside a transaction both read one snapshot
    (a REPEATABLE READ, READ ONLY transaction that ends with the second): an index
    commit between them cannot give the second statement rows of the first that no
    longer exist, or miss ones that replaced them. Inside a caller's transaction they
    run in ``namespace_scope`` and see what that transaction sees.
    """
    connection = connections[using]
    prefix, bound = _scope_prefix(namespace, params, settings)
    if connection.in_atomic_block:
        with namespace_scope(namespace, using=using):
            connection.ensure_connection()
            with connection.wrap_database_errors:
                with connection.connection.pipeline():
                    cursor = _overlap(connection, [prefix, first], [*setup, second], bound,
                                      meanwhile, carry)  # fmt: skip
                return _fetch(cursor)
    connection.ensure_connection()
    raw = connection.connection
    with connection.wrap_database_errors:
        try:
            with raw.pipeline():
                raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                cursor = _overlap(connection, [prefix, first], [*setup, second], bound,
                                  meanwhile, carry)  # fmt: skip
                raw.execute("COMMIT")
            # Leaving the pipeline sent the second statement with the COMMIT and read
            # both: one wait for the two, where fetching first and then committing
            # were two.
            return _fetch(cursor)
        finally:
            # A statement or ``meanwhile`` that failed leaves the transaction open.
            if raw.info.transaction_status in _OPEN:
                raw.rollback()


_OPEN = (psycopg.pq.TransactionStatus.INTRANS, psycopg.pq.TransactionStatus.INERROR)


def _overlap(connection, firsts, seconds, bound, meanwhile, carry):
    """The second statement's cursor, sent (in a pipeline, perhaps not yet answered)."""
    _execute_prepared(connection, firsts, bound)
    bound = {**bound, **carry(meanwhile())}
    return _execute_prepared(connection, seconds, bound)


def _scope_prefix(
    namespace, params: Mapping[str, Any], settings: Mapping[str, str] | None
) -> tuple[str, dict[str, Any]]:
    """The statement that sets the scope and ``settings`` (transaction-local), and
    ``params`` with its parameters added."""
    wanted = {SETTING: str(int(namespace.pk)), **(settings or {})}
    prefix = "SELECT " + ", ".join(
        f"set_config(%(_setting_{i})s, %(_value_{i})s, true)" for i in range(len(wanted))
    )
    bound = dict(params)
    for i, (name, value) in enumerate(wanted.items()):
        bound[f"_setting_{i}"], bound[f"_value_{i}"] = name, value
    return prefix, bound


def _execute_prepared(connection, statements: Sequence[str], params: Mapping[str, Any]):
    """Execute ``statements`` with server-side binding, prepared; return the last one's
    cursor. (Django's cursors bind on the client, which psycopg cannot prepare.)

    Results come back in binary: the fused statement's rows (scores, timestamps, text
    arrays, jsonb) cost the client less to read than their text forms (0.68-0.74 ms of
    client CPU per retrieval at 10,000 memories against 0.86-1.07) and the server less
    to print; the values are the same, except that jsonb arrives parsed."""
    raw = connection.connection
    if raw not in _vector_ready:
        # pgvector's binary form for Vector parameters (30 microseconds to pack, the
        # text form 300); its oid is 0, so the statement's ::vector cast types it.
        raw.adapters.register_dumper(Vector, VectorBinaryDumper)
        _vector_ready.add(raw)
    with connection.wrap_database_errors:
        for statement in statements:
            text, names = _numbered(statement)
            cursor = psycopg.RawCursor(raw)
            cursor.execute(text, [params[name] for name in names], prepare=True, binary=True)
    return cursor


_vector_ready: weakref.WeakSet = weakref.WeakSet()
_NAMED = re.compile(r"%\((\w+)\)s")


@lru_cache(maxsize=1024)
def _numbered(statement: str) -> tuple[str, tuple[str, ...]]:
    """``%(name)s`` placeholders as Postgres's ``$n``, and the names in ``$n`` order.

    psycopg re-parses a long statement's placeholders on every execution (it caches
    only short ones); converted once here, the fused statement is sent as it is.
    """
    names: list[str] = []

    def number(match: re.Match) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    text = _NAMED.sub(number, statement)
    if "%" in text:
        raise ValueError("a prepared statement takes only %(name)s placeholders")
    return text, tuple(names)


def _fetch(cursor) -> tuple[list[str], list[tuple]]:
    return [col.name for col in cursor.description], cursor.fetchall()
