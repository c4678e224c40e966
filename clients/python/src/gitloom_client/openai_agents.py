"""OpenAI Agents SDK: ``remember`` and ``recall`` as function tools.

``pip install gitloom-client[openai-agents]``. :func:`memory_tools` makes the two tools
for one end user: both are bound to that user's namespace when they are made, so the
model chooses what to remember and what to ask, never whose memory it reads. (The
SDK's ``Session`` keeps the conversation itself; these keep what it said.)
"""

from __future__ import annotations

from agents import FunctionTool, function_tool

from gitloom_client._async import AsyncGitLoom

__all__ = ["memory_tools"]


def memory_tools(
    client: AsyncGitLoom, *, namespace: str, limit: int = 5, wait: bool = True
) -> list[FunctionTool]:
    """``[remember, recall]`` for the end user whose namespace is ``namespace``.

    ``wait``: ``remember`` returns once its job is done (what it stored is then
    recallable) or, ``False``, once the service accepted it.
    """

    @function_tool
    async def remember(fact: str) -> str:
        """Remember something the user said about themselves, their plans or their world,
        for later conversations.

        Args:
            fact: what to remember, in the user's words (one or a few sentences).
        """
        job = await client.memories.add(fact, namespace=namespace, wait=wait)
        if job.status != "done":
            return f"Accepted; it will be remembered shortly (job {job.id})."
        stored = len(job.result.created) + len(job.result.rewritten) if job.result else 0
        return (
            f"Remembered ({stored} {'memory' if stored == 1 else 'memories'} written or updated)."
        )

    @function_tool
    async def recall(question: str) -> str:
        """Look up what is known about the user that answers a question.

        Args:
            question: the question to answer, e.g. "what camera do I own".
        """
        found = await client.retrieve(question, namespace=namespace, limit=limit)
        if not found.results:
            return "Nothing remembered answers that."
        return "\n".join(f"- {result.content}" for result in found.results)

    return [remember, recall]
