"""LlamaIndex: a memory block that keeps a conversation in GitLoom.

``pip install gitloom-client[llama-index]``. :class:`GitLoomMemoryBlock` is a
``BaseMemoryBlock`` for LlamaIndex's ``Memory``: the messages ``Memory`` hands it
(those that leave its short-term window) are posted to one namespace as a conversation,
and on each turn it gets the memories that answer the latest user message, as text for
the prompt.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory.memory import BaseMemoryBlock
from pydantic import Field

from gitloom_client._async import AsyncGitLoom

__all__ = ["GitLoomMemoryBlock"]

_ROLES = {
    MessageRole.USER: "user",
    MessageRole.ASSISTANT: "assistant",
    MessageRole.CHATBOT: "assistant",
    MessageRole.MODEL: "assistant",
    MessageRole.SYSTEM: "system",
    MessageRole.DEVELOPER: "system",
    MessageRole.TOOL: "tool",
    MessageRole.FUNCTION: "tool",
}


class GitLoomMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory in one GitLoom namespace (one per end user).

    ``wait``: whether a put waits for its job to be done (the memories are then
    retrievable on the next turn) or returns once the service has accepted it.
    """

    name: str = Field(default="GitLoomMemory")
    client: AsyncGitLoom
    namespace: str | None = None
    limit: int = 5
    session_id: str | None = None
    wait: bool = False

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        query = next(
            (
                m.content
                for m in reversed(messages or [])
                if m.role == MessageRole.USER and m.content
            ),
            None,
        )
        if not query:
            return ""
        found = await self.client.retrieve(query, namespace=self.namespace, limit=self.limit)
        return "\n".join(f"- {result.content}" for result in found.results)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        transcript = [
            {"role": _ROLES[m.role], "content": m.content}
            for m in messages
            if m.role in _ROLES and m.content and m.content.strip()
        ]
        if transcript:
            await self.client.memories.add(
                transcript, namespace=self.namespace, session_id=self.session_id, wait=self.wait
            )
