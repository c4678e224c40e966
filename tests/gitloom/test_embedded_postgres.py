"""The embedded Postgres the project starts when DATABASE_URL is unset."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection


@pytest.mark.skipif(not settings.EMBEDDED_POSTGRES, reason="DATABASE_URL names a server")
def test_the_embedded_server_runs_with_the_configured_shared_buffers(db):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_size_bytes(current_setting('shared_buffers')) = pg_size_bytes(%s)",
            [settings.GITLOOM_POSTGRES_SHARED_BUFFERS],
        )
        assert cursor.fetchone()[0]
