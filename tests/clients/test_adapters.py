"""The Python client's framework adapters, each with its real framework package against
the live service of tests/clients/conftest.py (jobs run as they are accepted): the
README's examples run as written, then what each adapter promises."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from django.conf import settings

README = Path(settings.BASE_DIR) / "clients" / "python" / "README.md"


def readme_example(heading: str) -> str:
    """The Python block under the client README's ``### <heading>``."""
    section = README.read_text().split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def run_example(heading: str, service: str, key: str) -> str:
    code = readme_example(heading)
    code = code.replace("http://127.0.0.1:8000", service).replace('"glk_..."', repr(key))
    printed, scope = io.StringIO(), {"__name__": "readme"}
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(code, f"README {heading}", "exec"), scope)  # noqa: S102
    finally:
        if "gl" in scope:
            scope["gl"].close()  # its keep-alive connection holds a live-server thread
    return printed.getvalue()


# --- LangChain ---------------------------------------------------------------------


def test_langchain_readme_example_remembers_messages_and_retrieves_documents(service, acme_key):
    pytest.importorskip("langchain_core")
    printed = run_example("LangChain", service, acme_key)
    print(printed)
    first = printed.splitlines()[0]
    assert first.startswith("facts ") and "Biscuit" in first, printed


def test_langchain_documents_carry_path_score_tier_tags_and_as_of(gl):
    pytest.importorskip("langchain_core")
    from gitloom_client.langchain import GitLoomRetriever, messages_for_gitloom, remember_messages
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    chat = [
        SystemMessage("You are a helpful assistant."),
        HumanMessage("I just bought a Sony A7III camera from Fotocentre in Bengaluru."),
        AIMessage(""),  # a tool-calling turn with no text is left out
        ToolMessage("weather: sunny", tool_call_id="call-1"),
    ]
    assert [m["role"] for m in messages_for_gitloom(chat)] == ["system", "user", "tool"]
    gl.namespaces.create("lc-user", exist_ok=True)
    job = remember_messages(gl, chat, namespace="lc-user", session_id="s-1", wait=True)
    assert job.status == "done" and job.result.created

    retriever = GitLoomRetriever(client=gl, namespace="lc-user", limit=2)
    documents = retriever.invoke("which camera did I buy")
    expected = gl.retrieve("which camera did I buy", namespace="lc-user", limit=2)
    assert [d.metadata["path"] for d in documents] == [r.path for r in expected.results]
    top = documents[0]
    assert "Sony A7III" in top.page_content
    assert top.id == top.metadata["path"]
    assert top.metadata["score"] == expected.results[0].score
    assert top.metadata["tier"] == expected.results[0].tier
    assert top.metadata["tags"] == expected.results[0].tags
    assert top.metadata["as_of"] == expected.indexed_commit == job.commit
    assert set(top.metadata["arms"]) <= {"lexical", "semantic", "graph"} and top.metadata["arms"]

    # As of the commit before the camera, the namespace knew nothing of it.
    before = GitLoomRetriever(client=gl, namespace="lc-user", as_of="2000-01-01T00:00:00Z")
    with pytest.raises(Exception) as refused:
        before.invoke("which camera did I buy")
    assert getattr(refused.value, "code", "") == "as_of_before_history"


def test_langchain_retriever_runs_async_with_the_async_client(service, acme_key, gl):
    pytest.importorskip("langchain_core")
    from gitloom_client import AsyncGitLoom
    from gitloom_client.langchain import GitLoomRetriever

    gl.namespaces.create("lc-async", exist_ok=True)
    gl.memories.add("My sister Mira lives in Lisbon.", namespace="lc-async", wait=True)

    async def ask():
        async with AsyncGitLoom(service, api_key=acme_key) as client:
            retriever = GitLoomRetriever(client=gl, async_client=client, namespace="lc-async")
            return await retriever.ainvoke("where does Mira live")

    documents = asyncio.run(ask())
    assert "Lisbon" in documents[0].page_content


# --- LlamaIndex --------------------------------------------------------------------


def test_llama_index_readme_example_puts_the_window_and_gets_memories(service, acme_key, gl):
    pytest.importorskip("llama_index.core")
    printed = run_example("LlamaIndex", service, acme_key)
    print(printed)
    # The window kept the last question; what left it came back as a memory, in the
    # system message Memory's template builds from the block.
    system, _, rest = printed.partition("\nuser | ")
    assert system.startswith("system | <memory>") and "- My sister Mira" in system, printed
    assert "Feedzai" in system and rest.strip() == "Where does my sister work?", printed
    # What left the window is in the namespace now, as memories.
    paths = [m.path for m in gl.memories.list(namespace="user-8214")]
    bodies = [gl.memories.get(path, namespace="user-8214").body for path in paths]
    assert any("Feedzai" in body for body in bodies), bodies


def test_llama_index_block_gets_memories_for_the_latest_user_message(service, acme_key, gl):
    pytest.importorskip("llama_index.core")
    from gitloom_client import AsyncGitLoom
    from gitloom_client.llama_index import GitLoomMemoryBlock
    from llama_index.core.llms import ChatMessage

    gl.namespaces.create("li-user", exist_ok=True)

    async def scenario():
        async with AsyncGitLoom(service, api_key=acme_key) as client:
            block = GitLoomMemoryBlock(client=client, namespace="li-user", wait=True)
            await block.aput(
                [
                    ChatMessage(role="system", content="Be brief."),
                    ChatMessage(role="user", content="I adopted a beagle named Biscuit in Pune."),
                    ChatMessage(role="assistant", content=""),
                ]
            )
            asked = [
                ChatMessage(role="user", content="what camera do I own"),
                ChatMessage(role="assistant", content="I don't know yet."),
                ChatMessage(role="user", content="what is my dog called"),
            ]
            return await block.aget(asked), await block.aget([])

    got, nothing = asyncio.run(scenario())
    assert got.startswith("- ") and "Biscuit" in got.splitlines()[0]
    assert nothing == ""  # no user message, no retrieval


# --- OpenAI Agents SDK -------------------------------------------------------------


def test_openai_agents_readme_example_remembers_and_recalls(service, acme_key):
    pytest.importorskip("agents")
    printed = run_example("OpenAI Agents SDK", service, acme_key)
    print(printed)
    remembered, recalled = printed.strip().split("\n", 1)
    assert remembered.startswith("remember -> Remembered (")
    assert recalled.startswith("recall -> - ") and "Sony A7III" in recalled.splitlines()[0]


def test_openai_agents_tools_are_bound_to_one_users_namespace(service, acme_key, gl):
    pytest.importorskip("agents")
    from agents.tool_context import ToolContext
    from gitloom_client import AsyncGitLoom
    from gitloom_client.openai_agents import memory_tools

    for name in ("agent-ann", "agent-bob"):
        gl.namespaces.create(name, exist_ok=True)

    async def call(tool, **arguments):
        payload = json.dumps(arguments)
        context = ToolContext(
            context=None, tool_name=tool.name, tool_call_id="c", tool_arguments=payload
        )
        return await tool.on_invoke_tool(context, payload)

    async def scenario():
        async with AsyncGitLoom(service, api_key=acme_key) as client:
            ann_remember, ann_recall = memory_tools(client, namespace="agent-ann")
            _, bob_recall = memory_tools(client, namespace="agent-bob")
            schemas = [t.params_json_schema["properties"] for t in (ann_remember, ann_recall)]
            await call(ann_remember, fact="My sister Mira works at Feedzai in Lisbon.")
            return (
                schemas,
                await call(ann_recall, question="where does Mira work"),
                await call(bob_recall, question="where does Mira work"),
            )

    schemas, ann, bob = asyncio.run(scenario())
    # The model fills in what to store or ask, never a namespace.
    assert [set(s) for s in schemas] == [{"fact"}, {"question"}]
    assert "Feedzai" in ann
    assert bob == "Nothing remembered answers that."
