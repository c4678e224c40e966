"""The Python client (clients/python, ``gitloom_client``) against a live service."""

from __future__ import annotations

import contextlib
import io
import re
import tarfile
from datetime import UTC, datetime
from pathlib import Path

import anyio
import httpx
import pytest
import yaml
from django.conf import settings

from tests.clients.conftest import (
    BACKFILL_CAMERA,
    BACKFILL_DOG,
    CONVERSATION,
    backfill,
    days_ago,
)

README = Path(settings.BASE_DIR) / "README.md"


def readme_example() -> str:
    """The Python block under the README's "Python client" heading."""
    text = README.read_text()
    section = text.split("## Python client", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_the_readme_example_remembers_and_recalls_in_five_lines(service, acme_key):
    code = readme_example()
    lines = [line for line in code.splitlines() if line.strip() and not line.startswith("#")]
    assert len(lines) == 5, code
    code = code.replace("http://127.0.0.1:8000", service).replace('"glk_..."', repr(acme_key))
    printed, scope = io.StringIO(), {}
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(code, "README.md", "exec"), scope)  # noqa: S102
    finally:
        if "gl" in scope:
            scope["gl"].close()  # its keep-alive connection holds a live-server thread
    assert "Sony A7III" in printed.getvalue()


# --- every operation, and nothing in the schema left out ---------------------------


def schema_operations(service: str) -> set[tuple[str, str]]:
    """(METHOD, path template) of every operation /v1/schema documents."""
    response = httpx.get(f"{service}/v1/schema", headers={"Accept": "application/json, */*"})
    assert response.status_code == 200, response.text
    schema = yaml.safe_load(response.text)  # JSON or YAML, whichever it serves
    return {
        (method.upper(), path)
        for path, operations in schema["paths"].items()
        for method in operations
        if method in {"get", "post", "put", "patch", "delete"}
    }


# Key management refuses API keys (403 dashboard_only): it is done on the dashboard,
# so the client, which only ever holds an API key, does not offer it.
# Key and webhook management refuse API keys (403 dashboard_only), so the client has none.
DASHBOARD_ONLY = {
    ("GET", "/v1/keys"),
    ("POST", "/v1/keys"),
    ("DELETE", "/v1/keys/{key_id}"),
    ("GET", "/v1/webhooks"),
    ("POST", "/v1/webhooks"),
    ("GET", "/v1/webhooks/{endpoint_id}"),
    ("PATCH", "/v1/webhooks/{endpoint_id}"),
    ("DELETE", "/v1/webhooks/{endpoint_id}"),
    ("GET", "/v1/webhooks/{endpoint_id}/deliveries"),
    ("POST", "/v1/webhooks/{endpoint_id}/deliveries/{delivery_id}/resend"),
}


def matched(operations: set[tuple[str, str]], sent: list[tuple[str, str]]):
    """The operations that requests ``sent`` (METHOD, URL path) reached."""
    reached = set()
    for method, template in operations:
        pattern = re.sub(r"\\\{path\\\}", r"[^?]+", re.escape(template))
        pattern = re.sub(r"\\\{\w+\\\}", r"[^/]+", pattern)
        if any(m == method and re.fullmatch(pattern, path) for m, path in sent):
            reached.add((method, template))
    return reached


def recorder(sent: list[tuple[str, str]]):
    def record(request: httpx.Request) -> None:
        sent.append((request.method, request.url.path))

    return record


def tar_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


IMPORTED = b"""---
tier: preferences
tags: [coffee]
created: 2026-07-31T09:00:00Z
updated: 2026-07-31T09:00:00Z
cues:
  - how does Dana take her coffee
---

Dana takes her coffee black, no sugar.
"""


def tour(gl) -> None:
    """Every operation of the API through the sync client, checking what comes back."""
    from gitloom_client import (
        ConflictError,
        Job,
        Memory,
        Namespace,
        NotFoundError,
        Retrieval,
        Revert,
    )

    me = gl.whoami()
    assert me.account == "acme" and me.credential.type == "api_key"
    created = gl.namespaces.create("default")
    assert isinstance(created, Namespace) and created.name == "default"
    assert [ns.name for ns in gl.namespaces.list()] == ["default"]
    assert gl.namespaces.get("default").name == "default"

    job = gl.memories.add(CONVERSATION, session_id="chat-1", wait=True)
    assert isinstance(job, Job) and job.status == "done" and job.extractor == "offline"
    assert job.session_id == "chat-1" and job.result.created
    second = gl.memories.add("My sister Mira lives in Lisbon and works at Feedzai.", wait=True)
    assert gl.jobs.get(job.id).status == "done"
    assert {j.id for j in gl.jobs.list()} == {job.id, second.id}

    # Pagination as an iterator: one memory a page still yields them all, in path order.
    paths = [memory.path for memory in gl.memories.list(page_size=1)]
    assert len(paths) >= 2 and paths == sorted(paths)
    assert set(job.result.created) <= set(paths)
    first_page = gl.memories.page(limit=1)
    assert len(first_page.memories) == 1 and first_page.next_cursor

    path = job.result.created[0]
    memory = gl.memories.get(path)
    assert isinstance(memory, Memory) and "Sony A7III" in memory.body
    assert memory.sources == ["msg-1"] and memory.raw.startswith("---")

    found = gl.retrieve("which camera did I buy", limit=5)
    assert isinstance(found, Retrieval) and found.tenant == "acme"
    top = found.results[0]
    assert top.path == path and "Sony A7III" in top.content
    assert top.arms.names and (top.arms.lexical or top.arms.semantic)
    if top.arms.semantic:
        assert top.arms.semantic.cue and 0 < top.arms.semantic.similarity <= 1
    assert gl.retrieve("Sony A7III", tier=["working"]).results == []
    assert top.graph_only is False
    # A relevance floor: a question about nothing stored comes back empty with it.
    unrelated = "what is the capital of Peru"
    assert gl.retrieve(unrelated).results  # the nearest cue, however far
    assert gl.retrieve(unrelated, min_similarity=0.8).results == []

    bundle = gl.namespaces.export("default")
    assert bundle.startswith(b"# v2 git bundle")
    archive = gl.namespaces.export("default", format="tar")
    with tarfile.open(fileobj=io.BytesIO(archive)) as files:
        assert path in files.getnames()
    gl.namespaces.create("imported")
    result = gl.namespaces.import_(
        "imported", tar_of({"preferences/drinks/coffee-black.md": IMPORTED})
    )
    assert result.created == ["preferences/drinks/coffee-black.md"] and result.commit
    assert gl.memories.get("preferences/drinks/coffee-black.md", namespace="imported").tags == [
        "coffee"
    ]

    blame = gl.memories.blame(path)
    assert blame.commit == memory.commit and blame.blob == memory.blob
    text, origin = blame.line(len(memory.raw.splitlines()))
    assert "Sony A7III" in text and origin.job and origin.job.id == job.id
    assert origin.action == "ingest" and origin.extractor == "offline"
    assert origin.session_id == "chat-1" and [m.id for m in origin.messages] == ["msg-1"]
    assert "Sony A7III" in origin.messages[0].content

    everything = gl.namespaces.changes("default", page_size=1)
    assert everything.since is None and sorted(c.path for c in everything.changes) == paths
    assert {c.change for c in everything.changes} == {"add"}
    before_forget = everything.commit

    forgotten = gl.memories.delete(path)
    assert forgotten.deleted and forgotten.commit
    history = gl.memories.history(path)
    assert [v.change for v in history.versions] == ["delete", "add"]
    assert history.versions[1].trailers["Gitloom-Job"] == job.id
    assert path not in {r.path for r in gl.retrieve("which camera did I buy").results}
    # As of the job's commit, the forgotten memory is still there; by time too.
    past = gl.retrieve("which camera did I buy", as_of=history.versions[1].commit)
    assert past.as_of and past.as_of.commit == history.versions[1].commit == past.commit
    assert path in {r.path for r in past.results}
    by_time = gl.retrieve("which camera did I buy", as_of=datetime(2999, 1, 1))
    assert by_time.as_of and by_time.as_of.commit == forgotten.commit
    with pytest.raises(NotFoundError) as missing:
        gl.retrieve("which camera did I buy", as_of=datetime(2001, 1, 1, tzinfo=UTC))
    assert missing.value.code == "as_of_before_history"

    since = gl.namespaces.changes("default", since=before_forget)
    assert [(c.path, c.change, c.commit) for c in since.changes] == [
        (path, "delete", forgotten.commit)
    ]
    assert since.commit == forgotten.commit and since.changes[0].action == "forget"
    page = gl.namespaces.changes_page("default", since=before_forget, limit=5)
    assert page.next_cursor is None and page.commit == forgotten.commit

    # Reverting a job: nothing is left to revert once what it wrote was forgotten, it is
    # done in one commit otherwise, and the same answer when asked again.
    with pytest.raises(ConflictError) as nothing_left:
        gl.jobs.revert(job)
    assert nothing_left.value.code == "nothing_to_revert"
    assert "forgotten" in str(nothing_left.value)
    reverted = gl.jobs.revert(second.id, namespace="default")
    assert isinstance(reverted, Revert) and not reverted.already_reverted
    assert reverted.removed == sorted(second.result.created) and reverted.skipped == []
    assert gl.jobs.revert(second).commit == reverted.commit
    assert gl.jobs.revert(second).already_reverted
    from gitloom_client import NotFoundError, Purge

    purged = gl.memories.purge(path)
    assert isinstance(purged, Purge) and purged.paths == [path] and purged.versions == 1
    assert purged.id and purged.credential.startswith("api_key ")
    with pytest.raises(NotFoundError):
        gl.memories.history(path)
    everything = gl.namespaces.purge("default", match="Feedzai")
    assert everything.kind == "match" and everything.versions >= 1
    bodies = [gl.memories.get(summary.path).body for summary in gl.memories.list()]
    assert all("Feedzai" not in body for body in bodies)
    assert gl.namespaces.purge("default", match="Feedzai").id is None

    gl.namespaces.delete("imported")
    assert [ns.name for ns in gl.namespaces.list()] == ["default"]


def test_the_sync_client_reaches_every_operation_of_the_schema(service, acme_key):
    from gitloom_client import GitLoom

    sent: list[tuple[str, str]] = []
    http = httpx.Client(event_hooks={"request": [recorder(sent)]})
    with GitLoom(service, api_key=acme_key, http_client=http) as gl:
        tour(gl)
    http.close()
    operations = schema_operations(service)
    missing = operations - DASHBOARD_ONLY - matched(operations, sent)
    assert missing == set(), f"the client never called {sorted(missing)}"


async def async_tour(gl) -> None:
    me = await gl.whoami()
    assert me.account == "acme"
    await gl.namespaces.create("default")
    await gl.namespaces.create("default", exist_ok=True)
    assert [ns.name for ns in await gl.namespaces.list()] == ["default"]
    assert (await gl.namespaces.get("default")).name == "default"
    job = await gl.memories.add(CONVERSATION, wait=True)
    assert job.status == "done"
    sister = await gl.memories.add(
        "My sister Mira lives in Lisbon and works at Feedzai.", wait=True
    )
    assert (await gl.jobs.get(job.id)).id == job.id
    assert [j.id async for j in gl.jobs.list()][-1] == job.id
    paths = [m.path async for m in gl.memories.list(page_size=1)]
    assert len(paths) >= 2
    path = job.result.created[0]
    assert "Sony A7III" in (await gl.memories.get(path)).body
    found = await gl.retrieve("which camera did I buy")
    assert found.results[0].path == path
    assert (await gl.namespaces.export("default")).startswith(b"# v2 git bundle")
    await gl.namespaces.create("imported")
    archive = tar_of({"preferences/drinks/coffee-black.md": IMPORTED})
    assert (await gl.namespaces.import_("imported", archive, format="tar")).created
    blame = await gl.memories.blame(path)
    assert blame.commits[0].job.id == job.id and blame.commits[0].messages
    start = (await gl.namespaces.changes("default")).commit
    assert (await gl.memories.delete(path)).deleted
    assert len((await gl.memories.history(path)).versions) == 2
    page = await gl.namespaces.changes_page("default", since=start)
    assert [(c.path, c.change) for c in page.changes] == [(path, "delete")]
    revert = await gl.jobs.revert(sister.id, force=True)
    assert revert.removed == sorted(sister.result.created) and revert.skipped == []
    assert (await gl.jobs.revert(sister)).already_reverted
    assert (await gl.memories.purge(path, namespace="default")).paths == [path]
    assert (await gl.namespaces.purge("default", match="Feedzai")).versions >= 1
    await gl.namespaces.delete("imported")


def test_the_async_client_reaches_every_operation_of_the_schema(service, acme_key):
    from gitloom_client import AsyncGitLoom

    sent: list[tuple[str, str]] = []

    async def record(request: httpx.Request) -> None:
        sent.append((request.method, request.url.path))

    async def main() -> None:
        async with (
            httpx.AsyncClient(event_hooks={"request": [record]}) as http,
            AsyncGitLoom(service, api_key=acme_key, http_client=http) as gl,
        ):
            await async_tour(gl)

    anyio.run(main)
    operations = schema_operations(service)
    missing = operations - DASHBOARD_ONLY - matched(operations, sent)
    assert missing == set(), f"the async client never called {sorted(missing)}"


# --- errors ------------------------------------------------------------------------


def test_errors_carry_the_envelope_code_and_status(gl, service):
    from gitloom_client import (
        AuthenticationError,
        BadRequestError,
        ConflictError,
        GitLoom,
        GoneError,
        NotFoundError,
    )

    with pytest.raises(NotFoundError) as missing:
        gl.memories.add(CONVERSATION)  # `default` was never created
    assert (missing.value.code, missing.value.status) == ("namespace_not_found", 404)
    assert "namespace_not_found" in str(missing.value)

    gl.namespaces.create("default")
    with pytest.raises(ConflictError) as exists:
        gl.namespaces.create("default")
    assert exists.value.code == "namespace_exists"
    with pytest.raises(BadRequestError) as invalid:
        gl.memories.add([{"role": "user", "content": ""}])
    assert invalid.value.status == 400 and invalid.value.code.startswith("invalid")
    with pytest.raises(NotFoundError) as no_memory:
        gl.memories.get("facts/nothing/here-00000000.md")
    assert no_memory.value.code == "memory_not_found"
    with pytest.raises(BadRequestError) as hostile:
        gl.memories.get("../../etc/passwd")  # stays a memory path, never another route
    assert hostile.value.code == "invalid_path"
    with pytest.raises(BadRequestError) as no_query:
        gl.retrieve("")
    assert no_query.value.code.startswith("invalid")
    with pytest.raises(GoneError) as gone:
        gl.namespaces.changes("default", since="0" * 40)
    assert (gone.value.code, gone.value.status) == ("commit_not_in_history", 410)
    with pytest.raises(BadRequestError) as short:
        gl.namespaces.changes_page("default", since="abc123")
    assert short.value.code == "invalid_commit"

    with (
        GitLoom(service, api_key="glk_not-a-key") as stranger,
        pytest.raises(AuthenticationError) as refused,
    ):
        stranger.whoami()
    assert (refused.value.code, refused.value.status) == ("authentication_failed", 401)
    with GitLoom(service) as anonymous, pytest.raises(AuthenticationError) as anon:
        anonymous.whoami()
    assert anon.value.code == "not_authenticated"


def sync(gl, copy: dict[str, str], since: str | None) -> str:
    """The sync loop of docs/API.md: apply the changes since ``since`` to ``copy``
    (path -> raw file) and return the commit to ask from next time."""
    changes = gl.namespaces.changes("default", since=since, page_size=2)
    for change in changes.changes:
        if change.change == "delete":
            copy.pop(change.path, None)
        else:
            copy[change.path] = gl.memories.get(change.path).raw
    return changes.commit


def exported(gl) -> dict[str, str]:
    archive = gl.namespaces.export("default", format="tar")
    with tarfile.open(fileobj=io.BytesIO(archive)) as files:
        return {
            member.name: files.extractfile(member).read().decode()
            for member in files.getmembers()
            if member.isfile()
        }


def test_a_local_copy_kept_by_the_sync_loop_matches_the_export(gl):
    from gitloom_client import GoneError

    gl.namespaces.create("default")
    copy: dict[str, str] = {}
    head = sync(gl, copy, None)
    assert copy == {}
    job = gl.memories.add(CONVERSATION, wait=True)
    gl.memories.add("My sister Mira lives in Lisbon and works at Feedzai.", wait=True)
    gl.namespaces.import_("default", tar_of({"preferences/drinks/coffee-black.md": IMPORTED}))
    head = sync(gl, copy, head)
    assert copy == exported(gl) and len(copy) >= 3
    gl.memories.delete(job.result.created[0])
    gl.memories.add("Actually I returned the Sony A7III and bought a Fujifilm X-T5.", wait=True)
    head = sync(gl, copy, head)
    assert copy == exported(gl)
    assert head == gl.namespaces.get("default").head_commit
    assert gl.namespaces.changes("default", since=head).changes == []
    with pytest.raises(GoneError):  # a commit this namespace never had: start over
        sync(gl, copy, "1" * 40)
    fresh: dict[str, str] = {}
    sync(gl, fresh, None)
    assert fresh == copy


def test_another_accounts_jobs_and_memories_are_not_found(gl, service, globex_key):
    from gitloom_client import GitLoom, NotFoundError

    gl.namespaces.create("default")
    job = gl.memories.add(CONVERSATION, wait=True)
    path = job.result.created[0]
    with GitLoom(service, api_key=globex_key) as globex:
        globex.namespaces.create("default")
        assert globex.whoami().account == "globex"
        with pytest.raises(NotFoundError) as no_job:
            globex.jobs.get(job.id)
        assert no_job.value.code == "job_not_found"
        with pytest.raises(NotFoundError):
            globex.memories.get(path)
        assert globex.retrieve("which camera did I buy").results == []
        assert list(globex.memories.list()) == []


def test_waiting_for_a_failed_job_raises_with_the_jobs_error_code(gl, settings):
    from gitloom_client import JobFailedError

    gl.namespaces.create("default")
    # A model endpoint that refuses connections: the job fails model_unavailable.
    settings.GITLOOM_LLM_BASE_URL = "http://127.0.0.1:9/v1"
    settings.GITLOOM_LLM_MODEL = "nobody-home"
    settings.GITLOOM_LLM_MAX_RETRIES = 0
    settings.GITLOOM_LLM_BACKOFF_SCALE = 0
    with pytest.raises(JobFailedError) as failed:
        gl.memories.add(CONVERSATION, wait=True)
    assert failed.value.code == "model_unavailable"
    assert failed.value.job.status == "failed" and failed.value.job.error.code == failed.value.code


def test_a_wait_that_runs_out_raises_with_the_job_still_accepted(gl, settings):
    from gitloom_client import JobTimeoutError

    gl.namespaces.create("default")
    settings.GITLOOM_QUEUE_SYNC = False  # no worker runs here: the job stays queued
    with pytest.raises(JobTimeoutError) as waited:
        gl.memories.add(CONVERSATION, wait=True, timeout=0.5)
    job = waited.value.job
    assert waited.value.code == "job_timeout" and job.status == "queued"
    assert gl.jobs.get(job.id).status == "queued"  # accepted, not lost


# --- retries (the client's own policy, against a scripted transport) ----------------


def test_a_write_retried_after_a_503_carries_the_same_idempotency_key():
    from gitloom_client import GitLoom

    seen = []
    job = {"id": "5d0c0a56-0000-0000-0000-000000000000", "namespace": "default", "status": "queued"}

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("Idempotency-Key"))
        if len(seen) == 1:
            return httpx.Response(
                503,
                headers={"Retry-After": "0"},
                json={"error": {"code": "service_unavailable", "message": "down"}},
            )
        if len(seen) == 2:
            raise httpx.ConnectError("connection reset")
        return httpx.Response(202, json={"job": job})

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with GitLoom("http://gitloom.test", api_key="glk_x", http_client=http) as gl:
        assert gl.memories.add("hello").id == job["id"]
    assert len(seen) == 3 and seen[0] and len(set(seen)) == 1


def test_a_delete_is_not_retried_and_a_connection_failure_is_an_error():
    from gitloom_client import APIConnectionError, GitLoom, ServiceUnavailableError

    calls = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        if request.method == "DELETE":
            return httpx.Response(
                503, json={"error": {"code": "service_unavailable", "message": "down"}}
            )
        raise httpx.ConnectError("refused")

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with GitLoom("http://gitloom.test", api_key="glk_x", http_client=http, max_retries=1) as gl:
        with pytest.raises(ServiceUnavailableError) as down:
            gl.memories.delete("facts/a/b.md")
        assert down.value.code == "service_unavailable"
        with pytest.raises(APIConnectionError):
            gl.whoami()
    assert calls == ["DELETE", "GET", "GET"]  # the read was tried twice, the delete once


def test_a_backfilled_history_is_searched_as_of_when_it_was_said(gl):
    """Two conversations from last month posted today: as of a day between them by when
    they were said, the first is there and the second is not yet."""
    from gitloom_client import NotFoundError

    gl.namespaces.create("default", exist_ok=True)
    camera = gl.memories.add(backfill(30, BACKFILL_CAMERA, "old-1"), wait=True)
    dog = gl.memories.add(backfill(10, BACKFILL_DOG, "old-2"), wait=True)
    with pytest.raises(NotFoundError) as stored:
        gl.retrieve("which camera did I buy", as_of=days_ago(20))
    assert stored.value.code == "as_of_before_history" and "as_of_by=said" in str(stored.value)

    then = gl.retrieve("what pets do I have", as_of=days_ago(20), as_of_by="said")
    assert then.as_of and then.as_of.by == "said" and then.as_of.commit == camera.commit
    assert then.as_of.said and then.as_of.time and then.as_of.said < then.as_of.time
    assert all("Biscuit" not in hit.content for hit in then.results)
    now = gl.retrieve("what pets do I have", as_of=days_ago(5), as_of_by="said")
    assert now.as_of and now.as_of.commit == dog.commit
    assert "Biscuit" in now.results[0].content
    version = gl.memories.history(dog.result.created[0]).versions[0]
    assert version.said and version.time and (version.time - version.said).days >= 9
