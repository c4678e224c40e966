"""The test suite never touches the data directory a running service uses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

pytestmark = pytest.mark.slow

# A served data directory: migrated, with an account and a namespace, its embedded
# Postgres started and kept running by this process until stdin closes (as `serve`
# keeps it), and stopped as it exits.
HOLD = """
import sys, django
django.setup()
from django.core.management import call_command
from django.db import connection
call_command("migrate", verbosity=0)
from accounts.services import account_create
from namespaces.services import namespace_create
namespace_create(account=account_create(account_id="kept"), name="default")
db = connection.settings_dict
print(f"postgresql://{db['USER']}@/{db['NAME']}?host={db['HOST'] or db['OPTIONS']['host']}", flush=True)
sys.stdin.read()
"""

JOIN = """
import django
django.setup()
from django.db import connection
connection.ensure_connection()
"""


def _files(root: Path) -> dict[str, tuple[int, int]]:
    # Postgres's own files change as it runs (stats, WAL); what it holds is compared
    # through a connection instead.
    return {
        str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in root.rglob("*")
        if path.is_file() and "postgres" not in path.relative_to(root).parts[:1]
    }


def _server_state(url: str) -> tuple:
    with psycopg.connect(url) as conn:
        databases = sorted(r[0] for r in conn.execute("SELECT datname FROM pg_database"))
        accounts = sorted(r[0] for r in conn.execute("SELECT id FROM accounts_account"))
        started = conn.execute("SELECT pg_postmaster_start_time()").fetchone()[0]
    return databases, accounts, started


def test_running_the_suite_leaves_a_served_data_dir_and_its_server_alone(tmp_path):
    served = tmp_path / "served"
    env = {k: v for k, v in os.environ.items() if k != "GITLOOM_TEST_DATA_DIR"}
    env.update(GITLOOM_DATA_DIR=str(served), DJANGO_SETTINGS_MODULE="server.settings")
    env.pop("DATABASE_URL", None)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD],
        cwd=settings.BASE_DIR,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = holder.stdout.readline().strip()
        assert url.startswith("postgresql://"), "the served data dir did not come up"
        state_before = _server_state(url)
        assert state_before[1] == ["kept"]

        # A process that joins the running server leaves it running as it exits.
        joined = subprocess.run(
            [sys.executable, "-c", JOIN],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert joined.returncode == 0, joined.stderr[-3000:]
        assert _server_state(url) == state_before
        files_before = _files(served)  # (joining takes the data dir's start-up lock)

        # Another suite run, in a shell where GITLOOM_DATA_DIR names the served dir.
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "tests/server/test_embedded_postgres.py",
                "tests/accounts/test_whoami_api.py",
            ],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]

        assert _server_state(url) == state_before  # same server, no test database left
        assert _files(served) == files_before
        assert str(served) not in run.stdout + run.stderr
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    # The holder started the served dir's server, so it stopped it as it exited.
    assert not (served / "postgres" / "postmaster.pid").exists()
