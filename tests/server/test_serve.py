"""`manage.py serve` runs the real service: gunicorn and the queue workers."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from django.conf import settings

from tests.support.serve import free_port, start_serve, wait_for_banner

pytestmark = pytest.mark.slow


def _raw_request(
    port: int, line: str, *headers: str, body: bytes = b"", hang_up: bool = False
) -> tuple:
    """One HTTP/1.1 request over a socket, as written (urllib would refuse some);
    ``hang_up`` closes the sending side after the body, as a client cut off does."""
    head = "\r\n".join([line, "Host: 127.0.0.1", "Connection: close", *headers, "", ""])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head.encode() + body)
        if hang_up:
            sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    top, _, rest = received.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    fields = {k.lower(): v for k, v in (line.split(": ", 1) for line in lines[1:])}
    if fields.get("transfer-encoding") == "chunked":
        rest = _dechunk(rest)
    return int(lines[0].split()[1]), fields, rest


def _dechunk(data: bytes) -> bytes:
    body = b""
    while True:
        size, _, data = data.partition(b"\r\n")
        if not int(size, 16):
            return body
        body, data = body + data[: int(size, 16)], data[int(size, 16) + 2 :]


def test_serve_answers_the_api_once_it_says_it_listens_and_stops_cleanly(
    transactional_db, tmp_path, api
):
    from django.db import connection

    db = connection.settings_dict
    host = db["HOST"] or db["OPTIONS"]["host"]
    port, mcp_port = free_port(), free_port()
    process = start_serve(
        tmp_path,
        port,
        mcp_port,
        DATABASE_URL=f"postgresql://{db['USER']}@/{db['NAME']}?host={host}",
        GITLOOM_REQUEST_STATEMENT_TIMEOUT="3",
    )
    try:
        printed = wait_for_banner(process, tmp_path)
        # Every worker is up before the banner: the first request is answered at once.
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/whoami",
            headers={"Authorization": f"Bearer {api.secret}"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310
            assert json.loads(response.read())["account"] == "acme"
        with urllib.request.urlopen(  # noqa: S310
            f"http://127.0.0.1:{port}/static/admin/css/base.css", timeout=5
        ) as response:
            assert response.status == 200
        # Every answer is JSON, gunicorn's own included (a request line over its limit).
        status, headers, body = _raw_request(port, f"GET /v1/whoami?{'q' * 9000} HTTP/1.1")
        assert status == 414 and headers["content-type"] == "application/json", body
        assert json.loads(body)["error"]["code"] == "uri_too_long"
        # A chunked body is read, not taken for an empty one.
        payload = json.dumps({"name": "chunked-ns"}).encode()
        status, _, body = _raw_request(
            port,
            "POST /v1/namespaces HTTP/1.1",
            f"Authorization: Bearer {api.secret}",
            "Content-Type: application/json",
            "Transfer-Encoding: chunked",
            body=b"%x\r\n%s\r\n0\r\n\r\n" % (len(payload), payload),
        )
        assert status == 201, body
        # A malformed chunk size, and a chunked body cut off before its last chunk, are
        # JSON 400s (gunicorn's InvalidChunkSize and NoMoreData were 500s).
        for broken, hang_up in (
            (b"zz\r\n{}\r\n0\r\n\r\n", False),
            (b'100\r\n{"name": "cut', True),
        ):
            status, headers, body = _raw_request(
                port,
                "POST /v1/namespaces HTTP/1.1",
                f"Authorization: Bearer {api.secret}",
                "Content-Type: application/json",
                "Transfer-Encoding: chunked",
                body=broken,
                hang_up=hang_up,
            )
            assert status == 400 and headers["content-type"] == "application/json", body
            assert json.loads(body)["error"]["code"] == "bad_request", body
        # A request stuck on the database ends within its time budget, as JSON.
        import psycopg

        with psycopg.connect(host=host, dbname=db["NAME"], user=db["USER"]) as other:
            other.execute("LOCK TABLE namespaces_namespace IN ACCESS EXCLUSIVE MODE")
            started = time.monotonic()
            status, headers, body = _raw_request(
                port, "GET /v1/namespaces HTTP/1.1", f"Authorization: Bearer {api.secret}"
            )
            waited = time.monotonic() - started
        assert status == 503 and json.loads(body)["error"]["code"] == "request_timeout", body
        assert headers["retry-after"] == "1" and 2.5 < waited < 30, waited
        status, _, body = _raw_request(
            port, "GET /v1/namespaces HTTP/1.1", f"Authorization: Bearer {api.secret}"
        )
        assert status == 200, body  # the lock gone, the same worker answers again
        assert f"http://127.0.0.1:{port}/" in printed
        # serve runs the MCP server too, and says where.
        assert f"http://127.0.0.1:{mcp_port}/mcp" in printed
        with urllib.request.urlopen(  # noqa: S310
            f"http://127.0.0.1:{mcp_port}/healthz", timeout=5
        ) as response:
            assert response.status == 200
        initialize = urllib.request.Request(
            f"http://127.0.0.1:{mcp_port}/mcp",
            data=json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "test", "version": "1"},
                    },
                }
            ).encode(),
            headers={
                "Authorization": f"Bearer {api.secret}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            },
        )
        with urllib.request.urlopen(initialize, timeout=10) as response:  # noqa: S310
            assert response.status == 200
        assert "Extractor: offline" in printed
        assert "Embedder:  local all-MiniLM-L6-v2" in printed
        assert "Loading weights" not in printed  # no progress bars in service logs
        # The commands it suggests run as printed, from the project directory.
        suggested = next(line for line in printed.splitlines() if "create_account" in line)
        words = suggested.split()
        assert Path(settings.BASE_DIR, words[0]).exists() or Path(words[0]).exists()
        assert words[1].endswith("manage.py")
        # The queue workers came up with the service.
        from django_q.models import Schedule

        assert Schedule.objects.filter(func="memories.jobs.requeue_pending").exists()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0, (tmp_path / "serve.log").read_text()


def _postgres_processes(data_dir: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(attrs=["cmdline"]):
        if str(data_dir / "postgres") in " ".join(proc.info["cmdline"] or []):
            found.append(proc)
    return found


def test_serve_on_embedded_defaults_stops_the_postgres_it_started(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    port = free_port()
    log = open(tmp_path / "serve.log", "w+")  # noqa: SIM115
    process = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "serve",
            "--port",
            str(port),
            "--web-workers",
            "1",
            "--mcp-port",
            "0",
        ],
        cwd=settings.BASE_DIR,
        env=dict(env, GITLOOM_DATA_DIR=str(tmp_path), GITLOOM_WORKERS="1"),
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
        # Its own session and process group, as a shell runs it in the foreground: the
        # Ctrl-C below goes to the whole group, as a terminal's does.
        start_new_session=True,
    )
    try:
        wait_for_banner(process, tmp_path)
        assert _postgres_processes(tmp_path), "serve runs an embedded Postgres"
        assert (tmp_path / "postgres" / "log").exists()  # its log is under the data dir
        # serve supervises it: killed, it is started again and says so.
        pidfile = tmp_path / "postgres" / "postmaster.pid"
        killed = int(pidfile.read_text().split("\n", 1)[0])
        psutil.Process(killed).kill()
        deadline = time.monotonic() + 90
        while "restarted it" not in (tmp_path / "serve.log").read_text():
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.5)
        assert int(pidfile.read_text().split("\n", 1)[0]) != killed
        status = None
        while time.monotonic() < deadline and status != 401:
            # The app answers from the database again (an unknown key is looked up: 401
            # once it is back, 503 with Retry-After while it is not).
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/v1/whoami",
                headers={"Authorization": "Bearer glk_not-a-key"},
            )
            try:
                urllib.request.urlopen(request, timeout=5)  # noqa: S310
            except urllib.error.HTTPError as error:
                status = error.code
                assert status in (401, 503), status
            time.sleep(0.5)
        assert status == 401
    finally:
        # The first Ctrl-C of a fresh install (issue 29): SIGINT to the whole group.
        os.killpg(process.pid, signal.SIGINT)
        code = process.wait(timeout=60)
    printed = (tmp_path / "serve.log").read_text()
    assert code == 0, printed
    # A clean stop never reads as a crash: no process was killed, by gunicorn ("Worker
    # ... was sent SIGKILL! Perhaps out of memory?") or by serve.
    assert "SIGKILL" not in printed and "out of memory" not in printed, printed
    assert "did not stop within" not in printed, printed
    assert "Stopping GitLoom ..." in printed and "Stopped in " in printed
    assert "Stopped the embedded Postgres." in printed
    assert not (tmp_path / "postgres" / "postmaster.pid").exists()
    psutil.wait_procs(_postgres_processes(tmp_path), timeout=10)
    assert not [p for p in _postgres_processes(tmp_path) if p.status() != "zombie"]


def test_nodes_starting_at_once_write_each_queue_schedule_once(transactional_db):
    """Every node of a fleet writes the queue's schedules as it starts; however many
    start at the same moment, each schedule exists once (so it runs once per fleet)."""
    import threading

    from django.db import connection
    from django_q.models import Schedule

    from server.management.commands.serve import _ensure_schedules

    # An older version could leave a duplicate behind: the next start removes it.
    Schedule.objects.create(name="gitloom-requeue-pending", func="memories.jobs.requeue_pending")
    Schedule.objects.create(name="gitloom-requeue-pending", func="memories.jobs.requeue_pending")
    barrier = threading.Barrier(6)
    errors: list[BaseException] = []

    def node_start() -> None:
        try:
            barrier.wait()
            _ensure_schedules()
        except BaseException as exc:  # noqa: BLE001  (reported below)
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=node_start) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    names = sorted(Schedule.objects.values_list("name", flat=True))
    assert names == [
        "gitloom-repository-upkeep",
        "gitloom-requeue-pending",
        "gitloom-webhooks-sweep",
    ]


def test_each_instance_keeps_gunicorns_control_socket_with_its_data(
    tmp_path, settings, monkeypatch
):
    # Two instances on one host shared gunicorn's default $HOME/.gunicorn/gunicorn.ctl.
    from gunicorn.app import wsgiapp

    from server.management.commands import serve

    sockets = []
    real = wsgiapp.WSGIApplication

    class Recorder:
        def __init__(self, usage):
            pass

        def run(self):
            app = real("%(prog)s")  # parses the argv serve set, runs nothing
            sockets.append(app.cfg.control_socket)

    monkeypatch.setattr(wsgiapp, "WSGIApplication", Recorder)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    for name in ("one", "two"):
        settings.GITLOOM_DATA_DIR = str(tmp_path / name)
        serve._run_gunicorn("127.0.0.1", 8000, 1, 1)
    assert sockets == [
        str(tmp_path / "one" / "gunicorn.ctl"),
        str(tmp_path / "two" / "gunicorn.ctl"),
    ]


@pytest.mark.parametrize("busy", ["--port", "--mcp-port"])
def test_serve_on_a_port_in_use_says_which_port_before_starting(tmp_path, busy):
    """A second ``serve`` beside a running one (the newcomer's usual mistake) is told
    which port is taken and how to pick others, not that the MCP process failed."""
    ports = {"--port": free_port(), "--mcp-port": free_port()}
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", ports[busy]))
        holder.listen()
        done = subprocess.run(
            [sys.executable, "manage.py", "serve", *(str(x) for kv in ports.items() for x in kv)],
            cwd=settings.BASE_DIR,
            env=dict(os.environ, GITLOOM_DATA_DIR=str(tmp_path)),
            capture_output=True,
            text=True,
            timeout=120,
        )
    printed = done.stdout + done.stderr
    assert done.returncode != 0, printed
    assert f"Port {ports[busy]} on 127.0.0.1 is already in use" in printed, printed
    assert f"({busy} is the one in use)" in printed, printed
    assert "mcp process exited" not in printed and "Booting worker" not in printed, printed
