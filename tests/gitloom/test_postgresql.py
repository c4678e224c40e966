"""The database backend's per-request health check (gitloom/postgresql): free for a live
connection, and still replacing one the server has ended before a request uses it.

Each test opens its own connection of the ``default`` database (the backend Django
uses for every request) and does what Django does at a request's start
(``close_if_unusable_or_obsolete``, then the first cursor)."""

from __future__ import annotations

import select
import time

from django.db import connection, connections

from tests.support.wire import wire


def _own_connection():
    own = connections.create_connection("default")
    own.ensure_connection()
    return own


def _request_starts(own) -> None:
    own.close_if_unusable_or_obsolete()  # Django's request_started handler
    assert own.health_check_done is False


def test_a_live_connection_passes_the_health_check_without_a_round_trip(transactional_db):
    own = _own_connection()
    try:
        pid = own.connection.info.backend_pid
        _request_starts(own)
        with wire(own) as sent, own.cursor() as cursor:  # the health check runs here
            cursor.execute("SELECT pg_backend_pid()")
            assert cursor.fetchone()[0] == pid
        assert sent.statements == ["SELECT pg_backend_pid()"], sent.statements
    finally:
        own.close()


def test_a_connection_the_server_ended_is_replaced_before_the_request_uses_it(
    transactional_db,
):
    own = _own_connection()
    try:
        pid = own.connection.info.backend_pid
        with connection.cursor() as cursor:  # what a restart does to every backend
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
            assert cursor.fetchone()[0] is True
        poller = select.poll()
        poller.register(own.connection.fileno(), select.POLLIN)
        deadline = time.monotonic() + 10
        while not poller.poll(100):
            assert time.monotonic() < deadline, "the ended connection never became readable"
        _request_starts(own)
        with own.cursor() as cursor:  # without the check: OperationalError, a 503
            cursor.execute("SELECT pg_backend_pid()")
            assert cursor.fetchone()[0] != pid
    finally:
        own.close()
