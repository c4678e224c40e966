"""LangChain: GitLoom as a retriever, and a helper that remembers LangChain messages.

``pip install gitloom-client[langchain]``. :class:`GitLoomRetriever` is a
``BaseRetriever`` over one namespace: a query gives ``Document``\\ s whose
``page_content`` is the memory's text and whose metadata holds its ``path``, ``score``,
``tier``, ``tags``, ``arms`` and ``as_of`` (the commit the text is as of). It works in
any chain that takes a retriever. :func:`remember_messages` posts LangChain messages as
one conversation for GitLoom to turn into memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from gitloom_client import models
from gitloom_client._async import AsyncGitLoom
from gitloom_client._sync import GitLoom

__all__ = ["GitLoomRetriever", "messages_for_gitloom", "remember_messages"]

# LangChain's message types -> the roles a GitLoom transcript has.
_ROLES = {
    "human": "user",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "tool",
}


class GitLoomRetriever(BaseRetriever):
    """Memories of ``namespace`` that answer a query, as LangChain documents.

    >>> retriever = GitLoomRetriever(client=GitLoom(url, api_key=key), namespace="user-8213")
    >>> retriever.invoke("what camera do I own")[0].metadata["path"]
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: GitLoom
    namespace: str | None = None
    limit: int = 5
    tier: list[str] | None = None
    tag: list[str] | None = None
    min_similarity: float | None = None
    as_of: str | None = None
    # For ainvoke: an AsyncGitLoom; without one, the sync client runs in a thread.
    async_client: AsyncGitLoom | None = None

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return _documents(self.client.retrieve(query, **self._arguments()))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.async_client is None:
            return await super()._aget_relevant_documents(query, run_manager=run_manager)
        return _documents(await self.async_client.retrieve(query, **self._arguments()))

    def _arguments(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "limit": self.limit,
            "tier": self.tier,
            "tag": self.tag,
            "min_similarity": self.min_similarity,
            "as_of": self.as_of,
        }


def _documents(found: models.Retrieval) -> list[Document]:
    as_of = found.as_of.commit if found.as_of else found.indexed_commit
    return [
        Document(
            page_content=result.content,
            id=result.path,
            metadata={
                "path": result.path,
                "score": result.score,
                "tier": result.tier,
                "tags": list(result.tags),
                "arms": result.arms.names,
                "as_of": as_of,
                "namespace": found.namespace,
            },
        )
        for result in found.results
    ]


def messages_for_gitloom(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """LangChain messages as a GitLoom transcript: roles mapped, text kept (a
    multimodal message's text parts), messages without text left out."""
    transcript = []
    for message in messages:
        role = _ROLES.get(message.type)
        text = str(message.text)
        if role is None or not text.strip():
            continue
        item: dict[str, Any] = {"role": role, "content": text}
        if getattr(message, "name", None):
            item["name"] = message.name
        transcript.append(item)
    return transcript


def remember_messages(
    client: GitLoom,
    messages: Sequence[BaseMessage],
    *,
    namespace: str | None = None,
    session_id: str | None = None,
    wait: bool = False,
) -> models.Job:
    """Post a LangChain conversation for GitLoom to turn into memories; its job (done,
    with ``wait=True``)."""
    return client.memories.add(
        messages_for_gitloom(messages), namespace=namespace, session_id=session_id, wait=wait
    )
