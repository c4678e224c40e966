"""Run GitLoom: migrations, then gunicorn, the django-q2 workers and the MCP server,
until interrupted.

The serve process prepares the embedder's fork-safe parts (the ONNX graph of the model,
written once per data dir, its tokenizer and onnxruntime; with the torch runtime only
the libraries) in a thread while it checks and migrates the database, then forks the
gunicorn master, the queue cluster and the MCP server from itself, so none of them
imports those again. ``serve`` says it listens only once every worker is warm (its
database connection open, its own model session run once), and on the way out it stops
the embedded Postgres, after its workers have exited, unless another live process
still uses it.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from gitloom.core.checks import rls_role_check, vector_problem_message, vector_self_check
from gitloom.core.metrics import metrics_reset_dir
from gitloom.core.warm import report_ready_to
from server.embedded_postgres import embedded_revive, embedded_stop
from server.lifetime import end_with_parent

# A worker that is not warm by then is broken (the model loads in seconds).
READY_TIMEOUT_SECONDS = 180
# How long a child may take to stop after SIGTERM before serve kills it.
STOP_TIMEOUT_SECONDS = 15.0
# How often serve checks that the embedded Postgres is still running.
POSTGRES_CHECK_SECONDS = 2.0
# How often serve looks at the queue's oldest waiting job, and the age past which it
# says in the log that the queue looks stuck.
QUEUE_CHECK_SECONDS = 30.0


class Child:
    """A forked service process (the gunicorn master or the queue cluster)."""

    def __init__(self, name: str, run) -> None:
        self.name = name
        self.returncode: int | None = None
        self.pid = os.fork()
        if self.pid == 0:  # the child: run, and never return into serve's own code
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                # Its own process group: a terminal's Ctrl-C (SIGINT to the foreground
                # group) reaches serve alone, which stops each child with one SIGTERM.
                # Signalled by the terminal too, gunicorn's workers and the queue's
                # processes each began their own stop at once, under their parents'
                # feet: the queue hung until serve killed it and gunicorn's workers
                # could be killed as "Perhaps out of memory?".
                os.setpgid(0, 0)
                # A serve killed with SIGKILL takes its children with it.
                end_with_parent()
                run()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException as exc:  # noqa: BLE001  (report it, then leave)
                sys.stderr.write(f"{name} failed: {exc!r}\n")
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)

    def poll(self) -> int | None:
        if self.returncode is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True


def _run_gunicorn(host: str, port: int, web_workers: int, web_threads: int) -> None:
    from gunicorn.app.wsgiapp import WSGIApplication

    sys.argv = [
        "gunicorn",
        "server.wsgi:application",
        "--bind",
        f"{host}:{port}",
        "--workers",
        str(web_workers),
        # Threads let a worker take the next request while one waits on Postgres; the
        # embedder and psycopg release the GIL, so threads overlap real work.
        "--worker-class",
        "server.web_worker.ThreadWorker" if web_threads > 1 else "sync",
        "--threads",
        str(web_threads),
        "--access-logfile",
        "-",
        "--config",
        "python:server.gunicorn_conf",
        "--graceful-timeout",
        "10",
        # gunicorn's control socket (gunicornc) defaults to one fixed path under $HOME
        # or $XDG_RUNTIME_DIR, so two instances on one host took each other's: each
        # instance keeps its own with its data.
        "--control-socket",
        str(Path(settings.GITLOOM_DATA_DIR) / "gunicorn.ctl"),
    ]
    WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]").run()


def _run_mcp(host: str, port: int, api_url: str, ready_dir: Path) -> None:
    from server.mcp_server.http import run_http

    run_http(
        host=host,
        port=port,
        api_url=api_url,
        allowed_hosts=settings.ALLOWED_HOSTS,
        on_started=lambda: (ready_dir / f"mcp-{os.getpid()}").touch(),
    )


def _check_port_free(host: str, port: int, flag: str) -> None:
    """Refuse to start on a port something already listens on, naming it, before
    anything starts: gunicorn would retry for seconds and the MCP process, started
    beside it, would be the one reported as failing."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # As gunicorn binds: a port whose last connections are in TIME_WAIT is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise CommandError(
                f"Port {port} on {host} is already in use ({exc.strerror}): another "
                f"`manage.py serve` may be running. Stop it, or start this one on "
                f"free ports with --port N --mcp-port M ({flag} is the one in use)."
            ) from None


def _api_url(host: str, port: int) -> str:
    """Where a process on this machine reaches the web server that serve starts."""
    if host in ("0.0.0.0", "::", ""):  # noqa: S104  (listening everywhere; we call loopback)
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _run_queue() -> None:
    import multiprocessing
    from multiprocessing.connection import wait

    call_command("qcluster")
    # qcluster returns once its sentinels (the jobs' and the webhooks' clusters) run,
    # leaving the interpreter's exit to wait for them; a forked child leaves through
    # os._exit, so it waits here instead (the cluster's SIGTERM handler stops the
    # sentinels, which ends this wait). A sentinel that died (killed) leaves the other
    # cluster running alone: this process ends too, and serve starts the queue afresh.
    sentinels = multiprocessing.active_children()
    while sentinels:
        wait([process.sentinel for process in sentinels])
        if any(process.exitcode not in (None, 0) for process in sentinels):
            raise SystemExit(1)
        sentinels = [process for process in sentinels if process.is_alive()]


class Command(BaseCommand):
    help = "Run the GitLoom service (gunicorn + queue workers) on embedded defaults."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--web-workers", type=int, default=2)
        parser.add_argument(
            "--web-threads", type=int, default=4, help="request threads per web worker"
        )
        parser.add_argument("--no-queue", action="store_true", help="do not start queue workers")
        parser.add_argument(
            "--no-web", action="store_true", help="only queue workers (a queue node of a fleet)"
        )
        parser.add_argument(
            "--mcp-port",
            type=int,
            default=8001,
            help="port of the MCP server (Streamable HTTP at /mcp); 0 turns it off",
        )

    def handle(
        self,
        *args,
        host: str,
        port: int,
        web_workers: int,
        web_threads: int,
        no_queue: bool,
        no_web: bool,
        mcp_port: int,
        **options,
    ):
        if no_web and no_queue:
            raise CommandError("--no-web and --no-queue together would run nothing.")
        if not no_web:
            _check_port_free(host, port, "--port")
            if mcp_port:
                _check_port_free(host, mcp_port, "--mcp-port")
        from retrieval.embeddings import embedder_load

        started = time.monotonic()
        loading = _Loader(lambda: (embedder_load(), _import_pipeline()))
        problem = vector_self_check()
        if problem is not None:
            raise CommandError(vector_problem_message(problem))
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        _ensure_schedules()
        problems = rls_role_check()
        if problems:
            raise CommandError(problems[0].msg)
        loading.result()

        metrics_reset_dir()  # counters start at zero with the service, as Prometheus expects
        ready_dir = Path(tempfile.mkdtemp(prefix="gitloom-ready-"))
        report_ready_to(ready_dir)
        expected = {
            "web": 0 if no_web else web_workers,
            # The webhook lane's workers warm up and report as queue workers too.
            "queue": 0 if no_queue else settings.GITLOOM_WORKERS + settings.GITLOOM_WEBHOOK_WORKERS,
            # The MCP server calls this node's API, so it runs beside a web server only.
            "mcp": 1 if mcp_port and not no_web else 0,
        }
        # A forked child must open its own database connections.
        connections.close_all()
        sys.stdout.flush()
        sys.stderr.flush()
        children = []
        if not no_web:
            children.append(
                Child("web", lambda: _run_gunicorn(host, port, web_workers, web_threads))
            )
        if not no_queue:
            children.append(Child("queue", _run_queue))
        if expected["mcp"]:
            api_url = _api_url(host, port)
            children.append(Child("mcp", lambda: _run_mcp(host, mcp_port, api_url, ready_dir)))

        stopping = False

        stop_started = 0.0

        def stop(signum, frame):
            nonlocal stopping, stop_started
            if not stopping:
                stop_started = time.monotonic()
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            if _wait_until_ready(ready_dir, expected, children, lambda: stopping):
                elapsed = time.monotonic() - started
                if no_web:
                    self.stdout.write(
                        f"GitLoom queue node running: {expected['queue']} queue workers, "
                        f"no web server  [ready in {elapsed:.1f} s]\n"
                        f"Data:      {settings.GITLOOM_DATA_DIR}\n"
                        f"Extractor: {_extractor_description()}\n"
                        f"Embedder:  {_embedder_description()}\n"
                    )
                else:
                    self.stdout.write(self._banner(host, port, elapsed, mcp_port=mcp_port))
                self.stdout.flush()
            next_check = next_queue_check = 0.0
            while not stopping:
                if not self._restart_queue(children):
                    break
                time.sleep(0.5)
                if not no_queue and time.monotonic() >= next_queue_check:
                    next_queue_check = time.monotonic() + QUEUE_CHECK_SECONDS
                    self._report_stuck_queue()
                if settings.EMBEDDED_POSTGRES and time.monotonic() >= next_check:
                    next_check = time.monotonic() + POSTGRES_CHECK_SECONDS
                    self._supervise_postgres()
        finally:
            if stopping:
                self.stdout.write("Stopping GitLoom ...")
                self.stdout.flush()
            for child in children:
                child.send_signal(signal.SIGTERM)
            for child in children:
                if not child.wait(timeout=STOP_TIMEOUT_SECONDS):
                    # Only a stuck process gets here: say which, so it is never a mystery.
                    self.stderr.write(
                        f"The {child.name} process did not stop within "
                        f"{STOP_TIMEOUT_SECONDS:.0f} s of SIGTERM; killed it."
                    )
                    child.send_signal(signal.SIGKILL)
                    child.wait(timeout=15)
            shutil.rmtree(ready_dir, ignore_errors=True)
            if settings.EMBEDDED_POSTGRES and embedded_stop(settings.GITLOOM_DATA_DIR):
                self.stdout.write("Stopped the embedded Postgres.")
        failed = [child.name for child in children if child.returncode]
        if failed and not stopping:
            raise CommandError(f"A service process exited unexpectedly: {failed}")
        if stopping:
            self.stdout.write(f"Stopped in {time.monotonic() - stop_started:.1f} s.")
        # The interpreter's last collection walks the whole heap (models, spaCy, the
        # app): 10-13 s on a busy 2-core machine after everything had stopped. Frozen
        # objects are left to the process's end, which frees them at once.
        gc.freeze()

    def _restart_queue(self, children: list[Child]) -> bool:
        """False if a service process exited; a queue process that did (killed, or its
        cluster lost a sentinel) is started again at once, and the log says so."""
        for index, child in enumerate(children):
            if child.poll() is None:
                continue
            if child.name != "queue":
                return False
            # Whatever of its process group is left (a sentinel's workers) goes with it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)
            self.stderr.write(
                f"The queue process exited (code {child.returncode}); started it again."
            )
            connections.close_all()
            children[index] = Child("queue", _run_queue)
        return True

    def _report_stuck_queue(self) -> None:
        """Say in the log when jobs have waited unstarted longer than
        ``GITLOOM_QUEUE_STUCK_SECONDS`` (their age is in /v1/jobs, the dashboard and
        the admin too)."""
        from memories.selectors import jobs_waiting_summary

        try:
            waiting, oldest = jobs_waiting_summary()
        except Exception:  # noqa: BLE001 - the database is down: _supervise_postgres says so
            return
        finally:
            connections.close_all()
        if oldest is not None and oldest > settings.GITLOOM_QUEUE_STUCK_SECONDS:
            logging.getLogger("gitloom.queue").warning(
                "The queue looks stuck: %d job(s) waiting, the oldest for %.0f s.",
                waiting,
                oldest,
            )

    def _supervise_postgres(self) -> None:
        """Restart the embedded Postgres if it died, and say so in the log."""
        try:
            if embedded_revive(settings.GITLOOM_DATA_DIR):
                self.stderr.write("The embedded Postgres had stopped; restarted it.")
        except Exception as exc:  # noqa: BLE001 - told, and tried again shortly
            self.stderr.write(f"The embedded Postgres is down and did not start yet: {exc}")

    def _banner(self, host: str, port: int, seconds: float, *, mcp_port: int) -> str:
        where = f"http://{host}:{port}"
        database = "embedded Postgres" if settings.EMBEDDED_POSTGRES else "DATABASE_URL"
        manage = _command_prefix()
        lines = [
            "",
            f"GitLoom is listening on {where}/  (API under {where}/v1/, docs {where}/v1/docs)"
            f"  [ready in {seconds:.1f} s]",
            f"Data:      {settings.GITLOOM_DATA_DIR} ({database}, "
            f"{settings.GITLOOM_STORAGE} object storage)",
            f"Extractor: {_extractor_description()}",
            f"Embedder:  {_embedder_description()}",
            (
                f"MCP:       http://{host}:{mcp_port}/mcp  (Streamable HTTP; "
                "Authorization: Bearer <API key>)"
                if mcp_port
                else "MCP:       off (--mcp-port 0)"
            ),
            f"Get started:  sign up at {where}/signup/  or, from another shell:",
            f"  {manage} create_account acme",
            f"  {manage} create_api_key acme --name first-key   # prints the secret",
            f"  curl -H 'Authorization: Bearer <secret>' {where}/v1/whoami",
            "Press Ctrl-C to stop.",
        ]
        if settings.USING_DEV_SECRET_KEY:
            lines.append("Note: using the built-in development secret key (local use only).")
        return "\n".join(lines) + "\n"


class _Loader:
    """Run ``load`` in a thread while the caller does other work; ``result()`` joins it
    and re-raises what it raised."""

    def __init__(self, load) -> None:
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(load,), daemon=True)
        self.thread.start()

    def _run(self, load) -> None:
        try:
            load()
        except BaseException as exc:  # noqa: BLE001  (handed to result())
            self.error = exc

    def result(self) -> None:
        self.thread.join()
        if self.error is not None:
            raise self.error


def _import_pipeline() -> None:
    """Import the extraction pipeline and its engines (spaCy and what it brings) before
    the workers are forked, so they share them; a process otherwise imports them when its
    first job runs, so that commands which run no job do not pay for them."""
    from memories.extraction import import_engines

    import_engines()


def _wait_until_ready(ready_dir: Path, expected: dict[str, int], children, stopping) -> bool:
    """Wait until every worker has reported ready; False if stopped first."""
    deadline = time.monotonic() + READY_TIMEOUT_SECONDS
    while not stopping():
        reported = [path.name.split("-", 1)[0] for path in ready_dir.iterdir()]
        if all(reported.count(role) >= count for role, count in expected.items()):
            return True
        for child in children:
            if child.poll() is not None:
                raise CommandError(f"The {child.name} process exited while starting.")
        if time.monotonic() > deadline:
            raise CommandError(
                f"The workers were not ready after {READY_TIMEOUT_SECONDS} s "
                f"(ready: {sorted(reported)}; expected {expected})."
            )
        time.sleep(0.1)
    return False


def _command_prefix() -> str:
    """How to run manage.py from the directory serve was started in, as typed."""

    def shown(path: Path) -> str:
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)

    python = Path(sys.executable)
    python_shown = shown(python) if python.is_relative_to(Path.cwd()) else str(python)
    return f"{python_shown} {shown(settings.BASE_DIR / 'manage.py')}"


def _extractor_description() -> str:
    if settings.GITLOOM_LLM_BASE_URL or settings.GITLOOM_LLM_MODEL:
        endpoint = settings.GITLOOM_LLM_BASE_URL or "the OpenAI API"
        return f"model {settings.GITLOOM_LLM_MODEL or '?'} at {endpoint}"
    return "offline (no model configured; set GITLOOM_LLM_BASE_URL and GITLOOM_LLM_MODEL)"


def _embedder_description() -> str:
    if settings.GITLOOM_EMBEDDING_BACKEND == "openai":
        endpoint = settings.GITLOOM_EMBEDDING_BASE_URL or "the OpenAI API"
        return (
            f"{settings.GITLOOM_EMBEDDING_MODEL} at {endpoint} "
            f"({settings.GITLOOM_EMBEDDING_DIMENSIONS} dimensions)"
        )
    return (
        f"local {settings.GITLOOM_EMBEDDING_MODEL} ({settings.GITLOOM_EMBEDDING_RUNTIME}, offline, "
        f"{settings.GITLOOM_EMBEDDING_DIMENSIONS} dimensions, "
        f"{settings.GITLOOM_EMBEDDING_THREADS} thread(s) per process)"
    )


# Advisory lock key under which nodes starting at once write the queue's schedules.
_SCHEDULES_LOCK = 0x6C6F6F6D  # "loom"


def _ensure_schedules() -> None:
    """The queue's periodic work: re-queue stranded jobs, queue due webhook deliveries
    (the sweep runs on the jobs' cluster and hands the sending to the webhook lane), keep
    repositories compact.

    Exactly one row per schedule however many nodes of a fleet start at once:
    django-q2's ``Schedule.name`` is not unique, so the check-then-insert runs under a
    transaction-scoped advisory lock, and duplicates an older version left are removed.
    django-q2's scheduler then claims each due schedule with a row lock, so the work
    runs once per fleet, not once per node."""
    from django.db import connection, transaction
    from django_q.models import Schedule

    wanted = {
        "gitloom-requeue-pending": {
            "func": "memories.jobs.requeue_pending",
            "schedule_type": Schedule.MINUTES,
            "minutes": 1,
            "repeats": -1,
        },
        "gitloom-webhooks-sweep": {
            "func": "accounts.webhooks.delivery.sweep",
            "schedule_type": Schedule.MINUTES,
            "minutes": 1,
            "repeats": -1,
        },
        "gitloom-repository-upkeep": {
            "func": "namespaces.services.namespace_upkeep_all",
            "schedule_type": Schedule.HOURLY,
            "repeats": -1,
        },
    }
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEDULES_LOCK])
        for name, fields in wanted.items():
            rows = list(Schedule.objects.filter(name=name).order_by("id"))
            if rows:
                Schedule.objects.filter(pk__in=[row.pk for row in rows[1:]]).delete()
                Schedule.objects.filter(pk=rows[0].pk).update(**fields)
            else:
                Schedule.objects.create(name=name, **fields)
