"""A conversation typed as text, as people paste one: ``user:`` / ``assistant:`` lines.

Shared by the dashboard's "remember a conversation" form and MCP's ``remember`` tool
(``conversation``); a leaf module (``re`` only) so the MCP server imports nothing else of
the app to read one.
"""

from __future__ import annotations

import re

_ROLE_LINE = re.compile(r"^\s*(user|assistant|system|tool|human|ai)\s*:\s?(.*)$", re.IGNORECASE)
_ROLE_ALIASES = {"human": "user", "ai": "assistant"}


def conversation_messages(conversation: str) -> list[dict[str, str]]:
    """A transcript typed as text: lines that start with ``user:``, ``assistant:``,
    ``system:`` or ``tool:`` (``human:``/``ai:`` too) begin a message and the lines after
    them continue it; text before the first such line, or a text with none, is one
    user message."""
    messages: list[dict[str, str]] = []
    for line in conversation.splitlines():
        match = _ROLE_LINE.match(line)
        if match:
            role = match.group(1).lower()
            messages.append({"role": _ROLE_ALIASES.get(role, role), "content": match.group(2)})
        elif messages:
            messages[-1]["content"] += "\n" + line
        elif line.strip():
            messages.append({"role": "user", "content": line})
    for message in messages:
        message["content"] = message["content"].strip()
    return [message for message in messages if message["content"]]
