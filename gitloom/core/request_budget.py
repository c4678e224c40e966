"""A web request's time budget: no database statement in it runs past
``GITLOOM_REQUEST_STATEMENT_TIMEOUT``.

Postgres enforces it (``statement_timeout``, set once per connection when the web
worker opens it), so a request stuck on a lock or a runaway query ends with a JSON
``503 request_timeout`` and ``Retry-After`` (``gitloom.core.envelope``) instead of holding
its thread until a client or gunicorn gives up. Only ``serve``'s web workers apply it
(``server/gunicorn_conf.py``): jobs and commands such as ``reindex`` legitimately run
longer statements.
"""

from __future__ import annotations

from django.db.backends.signals import connection_created


def limit_request_statements(seconds: float) -> None:
    """Every database connection this process, and the workers it forks, opens from
    now on stops any statement after ``seconds`` (0 or less: no limit)."""
    if seconds <= 0:
        return
    budget = f"{max(1, round(seconds * 1000))}ms"

    def apply(sender, connection, **kwargs) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, false)", [budget])

    connection_created.connect(apply, weak=False, dispatch_uid="gitloom-request-budget")
