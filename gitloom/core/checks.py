"""The database checks the service starts behind (Django system checks).

- ``rls_role_check`` (deploy): the role must not bypass row-level security, the
  tenants' boundary.
- ``vector_check``: the database's pgvector works here, on every server the service uses.

A pgvector compiled for AVX-512 kills its backend with SIGILL on CPUs without it: the
server restarts and unrelated requests fail meanwhile. ``serve``, ``migrate`` and the
queue workers therefore run the operations the service relies on (384-d casts, norms,
an HNSW cosine index build and scan) in a throwaway transaction first, and refuse to
start with one clear message if the backend dies or errors.
"""

from __future__ import annotations

from django.core.checks import Error, register
from django.db import DatabaseError, connection, transaction
from django.db.utils import OperationalError

PROBE_STATEMENTS = (
    "CREATE EXTENSION IF NOT EXISTS vector",
    "CREATE TEMPORARY TABLE gitloom_vector_probe (id int, v vector(384)) ON COMMIT DROP",
    # 200 rows: the HNSW build runs its distance kernels many times; a few ms in all.
    """INSERT INTO gitloom_vector_probe
        SELECT i, (SELECT array_agg(sin(i * j)::real) FROM generate_series(1, 384) j)::vector
        FROM generate_series(1, 200) i""",
    "SELECT sum(vector_norm(v)) FROM gitloom_vector_probe",
    "CREATE INDEX ON gitloom_vector_probe USING hnsw (v vector_cosine_ops)",
    "SET LOCAL enable_seqscan = off",
    """SELECT id FROM gitloom_vector_probe
        ORDER BY v <=> (SELECT v FROM gitloom_vector_probe WHERE id = 7) LIMIT 1""",
)


@register("database", deploy=True)
def rls_role_check(app_configs=None, **kwargs):
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user"
            )
            (bypasses,) = cursor.fetchone()
    except OperationalError as exc:
        return [Error(f"Cannot reach the database: {exc}", id="gitloom.E002")]
    if bypasses:
        return [
            Error(
                "DATABASE_URL connects as a role that bypasses row-level security "
                "(SUPERUSER or BYPASSRLS); namespace isolation needs a role without either.",
                id="gitloom.E001",
            )
        ]
    return []


class _RollBack(Exception):
    pass


def vector_self_check() -> str | None:
    """Run the probe; return what failed, or None when pgvector works here."""
    statement = ""
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                for statement in PROBE_STATEMENTS:
                    cursor.execute(statement)
                nearest = cursor.fetchone()
            raise _RollBack  # leave nothing behind, not even the extension
    except _RollBack:
        pass
    except DatabaseError as exc:
        if connection.connection is not None and connection.connection.closed:
            connection.close()  # the backend died; let the next query reconnect
        first_line = " ".join(statement.split())[:80]
        return f"`{first_line}` failed: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}"
    if nearest is None or nearest[0] != 7:
        return f"an HNSW cosine scan returned {nearest!r} instead of the probe's own row 7"
    return None


def vector_problem_message(problem: str) -> str:
    db = connection.settings_dict
    where = db.get("NAME") or "?"
    return (
        f"The database's pgvector failed GitLoom's start-up self-check ({problem}). "
        f"Its backend errored or died running vector operations on database {where!r}: "
        "a pgvector built for AVX-512 crashes on CPUs without it, and a missing or "
        "broken extension fails the same way. Point DATABASE_URL at another Postgres "
        "with a working pgvector (0.7 or newer), or unset it to use the embedded server."
    )


@register("database")
def vector_check(app_configs=None, databases=None, **kwargs):
    if not databases or "default" not in databases:
        return []
    problem = vector_self_check()
    if problem is None:
        return []
    return [Error(vector_problem_message(problem), id="gitloom.E003")]
