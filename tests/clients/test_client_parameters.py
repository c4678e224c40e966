"""Both clients can send every parameter of every operation they cover, and their READMEs
list every call.

Each client calls each of its methods once with every option it takes, against a real
HTTP receiver that records the request and answers ``404``. The requests are matched to
``/v1/schema``'s operations; for every operation a client reached, each query and header
parameter and each JSON body property the schema documents must have been sent by some
call. A parameter the API gained that a client cannot send (the TypeScript client's
missing ``as_of_by``, say) fails here, as does an operation an API key may call that a
client never reaches.
"""

from __future__ import annotations

import json
import re
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.conf import settings

from tests.clients.test_typescript_client import PACKAGE, node
from tests.support.openapi import schema

METHODS = ("get", "post", "put", "patch", "delete")


class Recorder(BaseHTTPRequestHandler):
    """Keeps (method, path, sent parameter names) of every request; answers 404."""

    sent: list[tuple[str, str, set[str]]]

    def _record(self) -> None:
        url = urlsplit(self.path)
        names = {name for name, _ in parse_qsl(url.query, keep_blank_values=True)}
        names |= {header.lower() for header in self.headers}
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Type", "").startswith("application/json") and body:
            names |= set(json.loads(body))
        self.sent.append((self.command, url.path, names))
        answer = json.dumps({"error": {"code": "not_found", "message": "Recorded."}}).encode()
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _record

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def recorder():
    handler = type("Handler", (Recorder,), {"sent": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", handler.sent
    finally:
        server.shutdown()
        server.server_close()


def api_key_operations() -> dict[tuple[str, str], dict]:
    """(METHOD, path template) → operation, for every operation an API key may call
    (key and webhook management answer API keys ``403 dashboard_only``)."""
    operations = {}
    for template, item in schema()["paths"].items():
        for method, operation in item.items():
            if method in METHODS and '"dashboard_only"' not in json.dumps(
                operation["responses"].get("403", {})
            ):
                operations[(method.upper(), template)] = operation
    return operations


def parameters(operation: dict) -> set[str]:
    """What a caller may send: query and header parameters, JSON body properties."""
    names = {p["name"] for p in operation.get("parameters", []) if p["in"] != "path"}
    for content_type, content in operation.get("requestBody", {}).get("content", {}).items():
        if content_type == "application/json":
            ref = content["schema"]["$ref"].rsplit("/", 1)[1]
            names |= set(schema()["components"]["schemas"][ref].get("properties", {}))
    return names


def template_regex(template: str) -> re.Pattern:
    # A memory's path ends in .md, so /v1/memories/{path} never claims .../history.
    pattern = re.escape(template).replace(r"\{path\}", r".+\.md")
    return re.compile("^" + re.sub(r"\\\{\w+\\\}", "[^/]+", pattern) + "$")


def unsent(sent: list[tuple[str, str, set[str]]]) -> dict[str, list[str]]:
    """Operation → the parameters no recorded request to it carried; an operation no
    request reached has all of them, under ``never called``."""
    missing = {}
    for (method, template), operation in api_key_operations().items():
        regex = template_regex(template)
        carried = [names for m, path, names in sent if m == method and regex.match(path)]
        if not carried:
            missing[f"{method} {template}"] = ["never called"]
            continue
        seen = {name.lower() for names in carried for name in names}
        lacking = sorted(p for p in parameters(operation) if p.lower() not in seen)
        if lacking:
            missing[f"{method} {template}"] = lacking
    return missing


def readme_lacks(readme: Path, methods: dict[str, list[str]], top: str) -> list[str]:
    """The calls ``readme`` never names: ``obj.method(`` on a line naming ``obj.``
    (``namespaces.list()``, ``.create(name)`` …), or ``method(`` for the client's own."""
    lines = readme.read_text().splitlines()
    lacking = []
    for owner, names in methods.items():
        for name in names:
            if owner == top:
                found = any(f"{name}(" in line for line in lines)
            else:
                found = any(f"{owner}." in line and f".{name}(" in line for line in lines)
            if not found:
                lacking.append(f"{owner}.{name}" if owner != top else name)
    return lacking


def test_the_python_client_sends_every_parameter_and_its_readme_lists_every_call(recorder):
    from gitloom_client import APIError, GitLoom

    url, sent = recorder
    gl = GitLoom(url, api_key="glk_recorder", max_retries=0)
    ns = {"namespace": "n"}
    calls = [
        lambda: gl.whoami(),
        lambda: gl.retrieve(
            "q",
            limit=5,
            tier=["facts"],
            tag=["t"],
            arms=["lexical"],
            min_similarity=0.1,
            as_of="abc1234",
            as_of_by="said",
            **ns,
        ),
        lambda: gl.namespaces.list(),
        lambda: gl.namespaces.create("n"),
        lambda: gl.namespaces.get("n"),
        lambda: gl.namespaces.delete("n"),
        lambda: gl.namespaces.export("n", format="tar"),
        lambda: gl.namespaces.import_("n", b"x", format="bundle", replace=True),
        lambda: gl.namespaces.changes_page("n", since="abc1234", cursor="c", limit=5),
        lambda: gl.namespaces.purge("n", match="abc"),
        lambda: gl.memories.add("hi", session_id="s", metadata={"a": 1}, idempotency_key="k", **ns),
        lambda: gl.memories.page(tier="facts", tag="t", cursor="c", limit=5, **ns),
        lambda: gl.memories.get("facts/a.md", **ns),
        lambda: gl.memories.delete("facts/a.md", **ns),
        lambda: gl.memories.history("facts/a.md", **ns),
        lambda: gl.memories.blame("facts/a.md", **ns),
        lambda: gl.memories.purge("facts/a.md", **ns),
        lambda: gl.jobs.get("j"),
        lambda: gl.jobs.page(cursor="c", limit=5, **ns),
        lambda: gl.jobs.revert("j", force=True, **ns),
    ]
    for call in calls:
        with pytest.raises(APIError):
            call()
    assert unsent(sent) == {}

    def public(obj) -> list[str]:
        return [
            name
            for name in dir(type(obj))
            if not name.startswith("_") and callable(getattr(obj, name)) and name != "close"
        ]

    methods = {
        "GitLoom": [name for name in public(gl) if name not in {"namespaces", "memories", "jobs"}],
        "namespaces": public(gl.namespaces),
        "memories": public(gl.memories),
        "jobs": public(gl.jobs),
    }
    readme = Path(settings.BASE_DIR) / "clients" / "python" / "README.md"
    assert readme_lacks(readme, methods, "GitLoom") == []
    # The keyword arguments the README's retrieve row names are the method's.
    row = next(line for line in readme.read_text().splitlines() if "`retrieve(" in line)
    for argument in ("as_of=", "as_of_by="):
        assert argument in row, row


def test_the_typescript_client_sends_every_parameter_and_its_readme_lists_every_call(recorder):
    url, sent = recorder
    result = subprocess.run(
        [node(), "scripts/every-option.mjs"],
        cwd=PACKAGE,
        env={"GITLOOM_RECORDER_URL": url, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert unsent(sent) == {}

    methods = json.loads(result.stdout.strip().splitlines()[-1])
    assert readme_lacks(PACKAGE / "README.md", methods, "GitLoom") == []
    row = next(
        line for line in (PACKAGE / "README.md").read_text().splitlines() if "`retrieve(" in line
    )
    assert "asOfBy" in row, row
