"""serve, migrate and the queue workers refuse a database whose pgvector fails."""

from __future__ import annotations

import os
import subprocess
import sys

import psycopg
import pytest
from django.conf import settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def vectorless_database_url(django_db_setup, django_db_blocker):
    """A database on the embedded server without pgvector, which the app role cannot
    add (the extension is untrusted): every vector operation errors there."""
    from server.embedded_postgres import superuser_database_url

    if not settings.EMBEDDED_POSTGRES:
        pytest.skip("needs the embedded server's superuser")
    admin = superuser_database_url(settings.GITLOOM_DATA_DIR, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS gitloom_novector")
        conn.execute("CREATE DATABASE gitloom_novector OWNER gitloom TEMPLATE template0")
    from django.db import connection

    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"]["host"]
    yield f"postgresql://{db['USER']}@/gitloom_novector?host={host}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS gitloom_novector WITH (FORCE)")


@pytest.mark.parametrize("command", [["migrate"], ["serve", "--port", "0"], ["qcluster"]])
def test_a_database_whose_pgvector_fails_stops_the_service_with_one_clear_message(
    vectorless_database_url, tmp_path, command
):
    run = subprocess.run(
        [sys.executable, "manage.py", *command],
        cwd=settings.BASE_DIR,
        env=dict(os.environ, DATABASE_URL=vectorless_database_url, GITLOOM_DATA_DIR=str(tmp_path)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    printed = run.stdout + run.stderr
    assert run.returncode != 0, printed
    assert "pgvector failed GitLoom's start-up self-check" in printed
    assert "DATABASE_URL" in printed
    assert "Traceback" not in printed
    assert "Listening" not in printed and "listening on" not in printed


def test_the_test_database_passes_the_self_check(db):
    from gitloom.core.checks import vector_self_check

    assert vector_self_check() is None
