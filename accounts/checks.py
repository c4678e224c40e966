"""System check: the service's database role must not bypass row-level security."""

from django.core.checks import Error, register
from django.db import connection
from django.db.utils import OperationalError


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
