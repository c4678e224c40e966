"""Run GitLoom: migrations, then gunicorn and the django-q2 workers, until interrupted."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from accounts.checks import rls_role_check
from gitloom.checks import vector_problem_message, vector_self_check


class Command(BaseCommand):
    help = "Run the GitLoom service (gunicorn + queue workers) on embedded defaults."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--web-workers", type=int, default=2)
        parser.add_argument("--no-queue", action="store_true", help="do not start queue workers")

    def handle(self, *args, host: str, port: int, web_workers: int, no_queue: bool, **options):
        problem = vector_self_check()
        if problem is not None:
            raise CommandError(vector_problem_message(problem))
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        _ensure_schedules()
        problems = rls_role_check()
        if problems:
            raise CommandError(problems[0].msg)

        children = [
            subprocess.Popen(  # noqa: S603  (argument list, no shell)
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "gitloom.wsgi:application",
                    "--bind",
                    f"{host}:{port}",
                    "--workers",
                    str(web_workers),
                    "--access-logfile",
                    "-",
                    "--config",
                    "python:gitloom.gunicorn_conf",
                    "--graceful-timeout",
                    "10",
                ]
            )
        ]
        if not no_queue:
            children.append(
                subprocess.Popen([sys.executable, "manage.py", "qcluster"], cwd=settings.BASE_DIR)  # noqa: S603
            )

        where = f"http://{host}:{port}"
        database = "embedded Postgres" if settings.EMBEDDED_POSTGRES else "DATABASE_URL"
        self.stdout.write(
            f"\nGitLoom is listening on {where}/  (API under {where}/v1/, docs {where}/v1/docs)\n"
            f"Data: {settings.GITLOOM_DATA_DIR} ({database}, {settings.GITLOOM_STORAGE} storage)\n"
            f"Get started:  sign up at {where}/signup/  or, from another shell:\n"
            f"  python manage.py create_account acme\n"
            f"  python manage.py create_api_key acme --name first-key   # prints the secret\n"
            f"  curl -H 'Authorization: Bearer <secret>' {where}/v1/whoami\n"
            f"Press Ctrl-C to stop.\n"
        )
        if settings.USING_DEV_SECRET_KEY:
            self.stdout.write("Note: using the built-in development secret key (local use only).")

        stopping = False

        def stop(signum, frame):
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping and all(child.poll() is None for child in children):
                time.sleep(0.5)
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()
        failed = [c.args[2] if len(c.args) > 2 else c.args for c in children if c.returncode]
        if failed and not stopping:
            raise CommandError(f"A service process exited unexpectedly: {failed}")


def _ensure_schedules() -> None:
    """The queue's periodic work: re-queue stranded jobs, keep repositories compact."""
    from django_q.models import Schedule

    Schedule.objects.update_or_create(
        name="gitloom-requeue-pending",
        defaults={
            "func": "memories.jobs.requeue_pending",
            "schedule_type": Schedule.MINUTES,
            "minutes": 1,
            "repeats": -1,
        },
    )
    Schedule.objects.update_or_create(
        name="gitloom-repository-upkeep",
        defaults={
            "func": "namespaces.services.namespace_upkeep_all",
            "schedule_type": Schedule.HOURLY,
            "repeats": -1,
        },
    )
