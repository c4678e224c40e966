"""Django's PostgreSQL backend, its per-request connection health check made free.

With ``CONN_HEALTH_CHECKS`` Django checks a persistent connection before a request
first uses it: a ``SELECT 1`` round trip on every request, the most common statement
the service ran (one in three of ``/v1/retrieve``'s, one in two of ``/v1/whoami``'s).
A connection the server has ended (a restart, ``pg_terminate_backend``, a backend
that died) has something to read while it sits idle: the server's last message or
the end of the stream. So the check first asks the socket, without waiting; only a
connection with something unasked to read (or in an unexpected state) gets the
``SELECT 1``, which closes it when it fails, as before: the request then opens a new one
instead of failing with ``503``.

``server_bound_cursor()`` is Django's cursor (that health check, query logging, error
wrapping) over a psycopg cursor that binds parameters on the server, for the few
statements every request runs (``gitloom.core.rows``): psycopg prepares such a statement
once it has run ``prepare_threshold`` times on a connection (settings: with
``GITLOOM_PREPARED_STATEMENTS``), so Postgres no longer plans it per request.
"""

from __future__ import annotations

import select

import psycopg
from django.db.backends.postgresql.base import DatabaseWrapper as PostgresDatabaseWrapper
from psycopg.pq import ConnStatus


class DatabaseWrapper(PostgresDatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        if (
            self.connection is not None
            and self.health_check_enabled
            and not self.health_check_done
            and self._quiet()
        ):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quiet(self) -> bool:
        """Open, idle on our side, and nothing to read: as alive as a ``SELECT 1`` would
        find it, without asking the server."""
        raw = self.connection
        if raw.closed or raw.broken or raw.pgconn.status != ConnStatus.OK:
            return False
        try:
            poller = select.poll()
            poller.register(raw.fileno(), select.POLLIN | select.POLLPRI)
            return not poller.poll(0)
        except (OSError, ValueError):
            return False

    def server_bound_cursor(self):
        """A cursor whose statements take ``$1, $2, ...`` placeholders, bound on the server.
        Django's own cursors bind on the client, which psycopg cannot prepare; the rest is
        ``connection.cursor()``'s own path (``BaseDatabaseWrapper._cursor``)."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        with self.wrap_database_errors:
            return self._prepare_cursor(psycopg.RawCursor(self.connection))
