"""The MCP server (``manage.py mcp``) driven by the ``mcp`` client library, over both
transports, against a live API: stdio spawns the command, HTTP talks to the process the
``mcp_http`` fixture started."""

from __future__ import annotations

import subprocess
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from django.conf import settings
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.clients.conftest import (
    BACKFILL_CAMERA,
    BACKFILL_DOG,
    CONVERSATION,
    backfill,
    days_ago,
    manage_py,
    relay_data_dir,
    subprocess_env,
)

pytestmark = pytest.mark.slow

TOOLS = {
    "remember",
    "search",
    "list_memories",
    "read_memory",
    "memory_history",
    "memory_blame",
    "changes_since",
    "forget",
    "list_namespaces",
    "create_namespace",
    "job_status",
    "whoami",
    "revert_job",
}
READ_ONLY = {
    "search",
    "list_memories",
    "read_memory",
    "memory_history",
    "memory_blame",
    "changes_since",
    "list_namespaces",
    "job_status",
    "whoami",
}

CHAT = (
    "user: I just bought a Sony A7III camera from Fotocentre in Bengaluru.\n"
    "assistant: Congratulations! Enjoy the new camera."
)


def stdio(service: str, key: str | None) -> Client:
    extra = {"GITLOOM_API_URL": service}
    if key is not None:
        extra["GITLOOM_API_KEY"] = key
    return Client(
        StdioServerParameters(
            command=manage_py()[0],
            args=[*manage_py()[1:], "mcp", "--stdio"],
            env=subprocess_env(**extra),
            cwd=str(settings.BASE_DIR),
        ),
        read_timeout_seconds=120,
    )


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """A tool's structured result; fails the test on a tool error."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def refused(client: Client, tool: str, **arguments: Any) -> str:
    """A tool error's text; fails the test when the tool succeeds."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return result.content[0].text


def run(scenario, *args) -> None:
    anyio.run(scenario, *args)


async def over_http(url: str, key: str | None, scenario, mode: str = "auto") -> None:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        await scenario(client)


# --- stdio ---------------------------------------------------------------------------


def test_a_fresh_agent_over_stdio_remembers_a_conversation_and_later_recalls_it(service, acme_key):
    async def first_session() -> None:
        async with stdio(service, acme_key) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            for name, tool in tools.items():
                hints = tool.annotations
                assert tool.description, name
                assert hints.read_only_hint is (name in READ_ONLY), name
                assert hints.destructive_hint is (name in {"forget", "revert_job"}), name
                assert hints.open_world_hint is False, name
                properties = tool.input_schema.get("properties", {})
                if "namespace" in properties and name != "revert_job":  # a job knows its own
                    assert properties["namespace"]["default"] == "default", name
            assert tools["remember"].annotations.idempotent_hint is False
            assert tools["forget"].annotations.idempotent_hint is True
            assert tools["search"].output_schema  # typed results

            me = await call(client, "whoami")
            assert me["account"] == "acme" and me["credential"]["type"] == "api_key"
            assert (await call(client, "list_namespaces"))["namespaces"] == []
            await call(client, "create_namespace")
            job = await call(client, "remember", conversation=CHAT, wait=True)
            assert job["status"] == "done" and job["result"]["created"], job

    async def later_session() -> None:
        async with stdio(service, acme_key) as client:
            found = await call(client, "search", query="which camera did I buy?")
            assert found["tenant"] == "acme"
            assert "Sony A7III" in found["results"][0]["content"], found

    run(first_session)
    run(later_session)


def test_stdio_with_only_a_key_and_url_starts_no_database_and_writes_no_data_dir(service, acme_key):
    """The README's desktop config gives only GITLOOM_API_KEY and GITLOOM_API_URL: the
    server relays to the API, so it starts no embedded Postgres and leaves no data
    directory behind (it used to create one and start a database at every launch)."""
    data_dir = relay_data_dir()
    assert not data_dir.exists()

    async def session() -> None:
        async with stdio(service, acme_key) as client:
            assert (await call(client, "whoami"))["account"] == "acme"

    run(session)
    assert not data_dir.exists(), sorted(p.name for p in data_dir.iterdir())


def test_stdio_refuses_to_start_without_an_api_key(service):
    finished = subprocess.run(
        [*manage_py(), "mcp", "--stdio"],
        cwd=settings.BASE_DIR,
        env=subprocess_env(GITLOOM_API_URL=service),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert finished.returncode != 0
    assert "GITLOOM_API_KEY" in finished.stderr


# --- Streamable HTTP -----------------------------------------------------------------


def test_a_fresh_agent_over_http_remembers_reads_and_forgets(service, mcp_http, acme_key):
    async def scenario(client: Client) -> None:
        assert (await call(client, "whoami"))["account"] == "acme"
        created = await call(client, "create_namespace", name="user-8213")
        assert created["name"] == "user-8213"
        again = await call(client, "create_namespace", name="user-8213")  # idempotent
        assert again["name"] == "user-8213"
        job = await call(
            client, "remember", messages=CONVERSATION, namespace="user-8213", session_id="s-1"
        )
        assert job["status"] in {"queued", "running", "done"}
        job = await call(client, "job_status", job_id=job["id"], wait=True)
        assert job["status"] == "done" and job["session_id"] == "s-1"
        path = job["result"]["created"][0]

        found = await call(client, "search", query="which camera did I buy", namespace="user-8213")
        top = found["results"][0]
        assert top["path"] == path and "Sony A7III" in top["content"]
        # Compact by default: what an agent reasons with, no cues or arm ranks.
        assert set(top) == {
            "path",
            "content",
            "score",
            "tier",
            "tags",
            "updated",
            "found_by",
            "graph_only",
            "related",
        }
        assert set(top["found_by"]) <= {"lexical", "semantic", "graph"} and top["found_by"]
        full = await call(
            client, "search", query="which camera did I buy", namespace="user-8213", detail="full"
        )
        top = full["results"][0]
        assert set(top["arms"]) == {"lexical", "semantic", "graph"} and top["cues"]
        assert top["arms"]["lexical"] or top["arms"]["semantic"]
        filtered = await call(
            client, "search", query="Sony A7III", namespace="user-8213", tier=["working"]
        )
        assert filtered["results"] == []
        floored = await call(
            client,
            "search",
            query="what is the capital of Peru",
            namespace="user-8213",
            min_similarity=0.8,
        )
        assert floored["results"] == []

        page = await call(client, "list_memories", namespace="user-8213")
        assert path in [memory["path"] for memory in page["memories"]]
        memory = await call(client, "read_memory", path=path, namespace="user-8213")
        assert "Sony A7III" in memory["body"] and memory["sources"] == ["msg-1"]

        blame = await call(client, "memory_blame", path=path, namespace="user-8213")
        origin = blame["commits"][0]
        assert origin["job"]["id"] == job["id"] and origin["session_id"] == "s-1"
        assert [m["id"] for m in origin["messages"]] == ["msg-1"]
        listing = await call(client, "changes_since", namespace="user-8213")
        assert path in [change["path"] for change in listing["changes"]]

        forgotten = await call(client, "forget", path=path, namespace="user-8213")
        assert forgotten["deleted"] is True
        since = await call(client, "changes_since", namespace="user-8213", since=listing["commit"])
        assert [(c["path"], c["change"]) for c in since["changes"]] == [(path, "delete")]
        gone = await refused(client, "changes_since", namespace="user-8213", since="0" * 40)
        assert "commit_not_in_history: " in gone
        text = await refused(client, "forget", path=path, namespace="user-8213")
        assert text.count("memory_not_found") == 1
        history = await call(client, "memory_history", path=path, namespace="user-8213")
        assert [v["change"] for v in history["versions"]] == ["delete", "add"]
        after = await call(client, "search", query="which camera did I buy", namespace="user-8213")
        assert path not in [result["path"] for result in after["results"]]
        before = history["versions"][1]["commit"]
        past = await call(
            client, "search", query="which camera did I buy", namespace="user-8213", as_of=before
        )
        assert past["as_of"]["commit"] == before
        assert path in [result["path"] for result in past["results"]]
        assert "invalid_as_of" in await refused(
            client, "search", query="camera", namespace="user-8213", as_of="last week"
        )
        assert "invalid_as_of" in await refused(
            client,
            "search",
            query="camera",
            namespace="user-8213",
            as_of="2026-01-01T00:00:00+16:00",
        )

        # The job's one memory was forgotten: there is nothing left to revert.
        text = await refused(client, "revert_job", job_id=job["id"])
        assert text.startswith("nothing_to_revert: ") and "forgotten" in text
        later = await call(client, "remember", conversation=CHAT, namespace="user-8213", wait=True)
        reverted = await call(client, "revert_job", job_id=later["id"], namespace="user-8213")
        assert reverted["removed"] == sorted(later["result"]["created"])
        again = await call(client, "revert_job", job_id=later["id"])
        assert again["already_reverted"] is True and again["commit"] == reverted["commit"]

    run(over_http, mcp_http, acme_key, scenario)


def test_each_http_request_acts_for_its_own_keys_account(service, mcp_http, acme_key, globex_key):
    remembered: dict[str, str] = {}

    async def acme(client: Client) -> None:
        await call(client, "create_namespace")
        job = await call(client, "remember", conversation=CHAT, wait=True)
        remembered["job"], remembered["path"] = job["id"], job["result"]["created"][0]

    async def globex(client: Client) -> None:
        assert (await call(client, "whoami"))["account"] == "globex"
        assert (await call(client, "list_namespaces"))["namespaces"] == []
        text = await refused(client, "search", query="which camera did I buy")
        assert text.startswith("namespace_not_found") or "namespace_not_found" in text
        await call(client, "create_namespace")  # its own `default`, empty
        found = await call(client, "search", query="which camera did I buy Sony A7III")
        assert found["tenant"] == "globex" and found["results"] == []
        assert "memory_not_found" in await refused(client, "read_memory", path=remembered["path"])
        assert "memory_not_found" in await refused(client, "forget", path=remembered["path"])
        assert "memory_not_found" in await refused(
            client, "memory_history", path=remembered["path"]
        )
        assert "job_not_found" in await refused(client, "job_status", job_id=remembered["job"])
        assert (await call(client, "list_memories"))["memories"] == []

    async def acme_again(client: Client) -> None:
        memory = await call(client, "read_memory", path=remembered["path"])
        assert "Sony A7III" in memory["body"]  # untouched by globex's attempts

    run(over_http, mcp_http, acme_key, acme)
    # An older client (the initialize handshake) on the same server, another key.
    run(over_http, mcp_http, globex_key, globex, "legacy")
    run(over_http, mcp_http, acme_key, acme_again)


def test_http_refuses_requests_without_a_valid_key(mcp_http, account):
    from accounts.services import api_key_create, api_key_revoke

    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}

    def post(**headers: str) -> httpx.Response:
        return httpx.post(mcp_http, json=initialize, headers={**accept, **headers}, timeout=30)

    anonymous = post()
    assert anonymous.status_code == 401
    assert anonymous.headers["WWW-Authenticate"].startswith("Bearer")
    assert anonymous.json()["error"]["code"] == "not_authenticated"
    wrong = post(Authorization="Bearer glk_wrong")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (401, "authentication_failed")

    key, secret = api_key_create(account=account, name="soon-revoked")
    assert post(Authorization=f"Bearer {secret}").status_code == 200
    other, other_secret = api_key_create(account=account, name="revoked-first")
    api_key_revoke(account=account, key_id=other.pk)
    assert post(Authorization=f"Bearer {other_secret}").status_code == 401

    assert httpx.get(mcp_http.replace("/mcp", "/healthz"), timeout=10).status_code == 200
    foreign = post(Authorization=f"Bearer {secret}", Host="evil.example")
    assert foreign.status_code == 400


def test_bad_arguments_are_clear_tool_errors(service, mcp_http, acme_key):
    async def scenario(client: Client) -> None:
        text = await refused(client, "remember", conversation=CHAT)
        assert "namespace_not_found" in text and "create_namespace" in text
        await call(client, "create_namespace")
        assert "either messages or conversation" in await refused(client, "remember")
        both = await refused(client, "remember", messages=CONVERSATION, conversation=CHAT)
        assert "either messages or conversation" in both
        robot = await refused(client, "remember", messages=[{"role": "robot", "content": "hi"}])
        assert "role" in robot
        assert "invalid_transcript" in await refused(client, "remember", conversation="   ")
        limit = await refused(client, "search", query="camera", limit=0)
        assert limit.startswith("invalid: limit: ")  # the code first, always; then which
        # ... what it takes and what came, without a link to pydantic's documentation.
        assert "greater than or equal to 1" in limit and "got 0" in limit, limit
        too_many = await refused(client, "search", query="camera", limit=5000)
        assert "less than or equal to" in too_many and "got 5000" in too_many, too_many
        assert "http" not in limit + too_many and "pydantic" not in limit + too_many
        assert "tier" in await refused(client, "search", query="camera", tier=["forever"])
        assert "invalid_path" in await refused(client, "read_memory", path="../../etc/passwd")
        assert "job_not_found" in await refused(client, "job_status", job_id="not-a-job")
        unknown = await refused(client, "search", query="camera", namespace="nobody")
        assert unknown.startswith("namespace_not_found: ")
        assert unknown.count("namespace_not_found") == 1
        # The tool's fix, not the HTTP API's.
        assert "create_namespace" in unknown and "/v1/" not in unknown, unknown

    run(over_http, mcp_http, acme_key, scenario)


def test_remember_returns_the_accepted_job_when_the_wait_runs_out(
    service, mcp_http, acme_key, settings
):
    async def scenario(client: Client) -> None:
        await call(client, "create_namespace")
        settings.GITLOOM_QUEUE_SYNC = False  # no worker here: the job waits in the queue
        job = await call(client, "remember", conversation=CHAT, wait=True, timeout=1)
        assert job["status"] == "queued"
        assert (await call(client, "job_status", job_id=job["id"]))["status"] == "queued"

    run(over_http, mcp_http, acme_key, scenario)


def test_remember_with_wait_reports_a_failed_job_as_a_tool_error(
    service, mcp_http, acme_key, settings
):
    async def scenario(client: Client) -> None:
        await call(client, "create_namespace")
        # A model endpoint that refuses connections: the job fails model_unavailable.
        settings.GITLOOM_LLM_BASE_URL = "http://127.0.0.1:9/v1"
        settings.GITLOOM_LLM_MODEL = "nobody-home"
        settings.GITLOOM_LLM_MAX_RETRIES = 0
        settings.GITLOOM_LLM_BACKOFF_SCALE = 0
        text = await refused(client, "remember", conversation=CHAT, wait=True)
        assert "model_unavailable: job" in text and "nothing of it was written" in text

    run(over_http, mcp_http, acme_key, scenario)


def test_http_counts_each_clients_failed_keys_and_answers_429_when_throttled(
    mcp_http, service, account
):
    from accounts.services import api_key_create

    _, secret = api_key_create(account=account, name="throttle")
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }

    def client_at(address: str) -> httpx.Client:
        # The MCP server and the API listen on 127.0.0.1; each test client speaks from
        # an address of its own (all of 127/8 is this host).
        return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30)

    def post(client: httpx.Client, key: str) -> httpx.Response:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {key}",
        }
        return client.post(mcp_http, json=initialize, headers=headers)

    with client_at("127.0.0.2") as guesser, client_at("127.0.0.3") as other:
        answers = [post(guesser, f"glk_guess-{n}") for n in range(31)]
        assert {a.status_code for a in answers[:30]} == {401}
        # Throttled: the API's 429 with Retry-After, not a 503 "did not answer".
        throttled = answers[30]
        assert throttled.status_code == 429, throttled.text
        assert throttled.json()["error"]["code"] == "rate_limited"
        assert int(throttled.headers["Retry-After"]) > 0
        # The API counted the guesser's address, not the MCP server's: another client
        # of the same MCP server is not refused, and the guesser's address is refused
        # by the API itself too.
        assert post(other, "glk_typo").status_code == 401
        assert post(other, secret).status_code == 200
        direct = guesser.get(f"{service}/v1/whoami", headers={"Authorization": "Bearer glk_x"})
        assert direct.status_code == 429


def test_search_as_of_when_a_backfilled_conversation_was_said(service, mcp_http, acme_key):
    async def scenario(client: Client) -> None:
        await call(client, "create_namespace")
        camera = await call(
            client, "remember", messages=backfill(30, BACKFILL_CAMERA, "old-1"), wait=True
        )
        await call(client, "remember", messages=backfill(10, BACKFILL_DOG, "old-2"), wait=True)
        stored = await refused(client, "search", query="which camera", as_of=days_ago(20))
        assert stored.startswith("as_of_before_history") and "as_of_by=said" in stored
        then = await call(
            client, "search", query="which camera did I buy", as_of=days_ago(20), as_of_by="said"
        )
        assert then["as_of"]["by"] == "said" and then["as_of"]["commit"] == camera["commit"]
        assert "Sony A7III" in then["results"][0]["content"]
        assert all("Biscuit" not in hit["content"] for hit in then["results"])

    run(over_http, mcp_http, acme_key, scenario)


def test_compact_search_is_a_fraction_of_the_full_answer_for_ten_results(
    service, mcp_http, acme_key, gl
):
    """Ten results, compact against full, counted as the agent receives them (the whole
    tool result: text content and structured content)."""
    import json

    gl.namespaces.create("default", exist_ok=True)
    facts = [
        "I bought a Sony A7III camera from Fotocentre in Bengaluru.",
        "My sister Asha lives in Pune and teaches chemistry.",
        "I work at Zalando in Berlin and my manager is Tom Becker.",
        "I adopted a beagle named Biscuit from the Pune shelter.",
        "My favourite colour is green.",
        "I rent a flat in Tucson near the university.",
        "I am allergic to peanuts.",
        "I run the Berlin marathon every September.",
        "My car is a blue 2019 Skoda Octavia.",
        "I play the cello in a community orchestra on Thursdays.",
        "My daughter Mira starts school in Bengaluru next June.",
    ]
    for number, fact in enumerate(facts):
        gl.memories.add([{"role": "user", "content": fact, "id": f"f-{number}"}], wait=True)

    async def scenario(client: Client) -> None:
        sizes = {}
        for detail in ("compact", "full"):
            result = await client.call_tool(
                "search", {"query": "what do I do in Berlin and Bengaluru", "detail": detail}
            )
            assert not result.is_error, result.content[0].text
            assert len(result.structured_content["results"]) == 10
            sizes[detail] = len(json.dumps(result.model_dump(mode="json", by_alias=True)))
        print(f"ten results: compact {sizes['compact']} bytes, full {sizes['full']} bytes")
        assert sizes["compact"] * 2 < sizes["full"], sizes

    run(over_http, mcp_http, acme_key, scenario)
