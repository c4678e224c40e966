"""Validating a posted transcript before anything is queued."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from django.conf import settings

from gitloom.core.errors import InvalidInput, PayloadTooLarge
from gitloom.core.times import as_utc
from memories.errors import InvalidTranscript
from memories.extraction.types import Message

ROLES = {"user", "assistant", "system", "tool"}
# Control characters (C0 but tab and line breaks, DEL, C1: ESC, BEL, \x01, \x9b ...) in a
# message's content: terminal escapes and noise, never part of a fact, and a memory's
# cues and header cannot hold them (one such cue failed the whole job). Removed here,
# before the job is queued.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Timestamps are kept this far from the calendar's ends (years 1 and 9999), so relative
# dates counted from them ("on Friday", "next year", "in ten years") cannot overflow.
_EARLIEST = datetime(100, 1, 1, tzinfo=UTC)
_LATEST = datetime(9899, 12, 31, 23, 59, 59, tzinfo=UTC)
MAX_MESSAGES = 1000
MAX_MESSAGE_CHARS = 32_000
MAX_ID_CHARS = 200


def _bad(message: str) -> InvalidInput:
    return InvalidTranscript(message)


def validate_transcript(*, messages: object, session_id: object, metadata: object) -> dict:
    """Return the canonical payload stored on the job, or raise 400/413."""
    if not isinstance(messages, list) or not messages:
        raise _bad("`messages` must be a non-empty list of {role, content} objects.")
    if len(messages) > MAX_MESSAGES:
        raise PayloadTooLarge(f"At most {MAX_MESSAGES} messages per request.")
    total = 0
    seen_ids: set[str] = set()
    clean: list[dict] = []
    for index, raw in enumerate(messages):
        where = f"messages[{index}]"
        if not isinstance(raw, dict):
            raise _bad(f"{where} must be an object.")
        unknown = set(raw) - {"role", "content", "id", "name", "timestamp"}
        if unknown:
            raise _bad(f"{where} has unknown field(s): {', '.join(sorted(unknown))}.")
        role, content = raw.get("role"), raw.get("content")
        if not isinstance(role, str) or role not in ROLES:  # {} or ["user"]: unhashable
            raise _bad(f"{where}.role must be one of {', '.join(sorted(ROLES))}.")
        if not isinstance(content, str) or not content.strip():
            raise _bad(f"{where}.content must be a non-empty string.")
        if "\x00" in content:
            raise _bad(f"{where}.content contains a NUL character.")
        content = _CONTROL.sub("", content)
        if not content.strip():
            raise _bad(f"{where}.content must be a non-empty string.")
        if len(content) > MAX_MESSAGE_CHARS:
            raise PayloadTooLarge(f"{where}.content is over {MAX_MESSAGE_CHARS} characters.")
        total += len(content)
        item: dict = {"role": role, "content": content}
        for field in ("id", "name"):
            value = raw.get(field)
            if value is None:
                continue
            _check_label(value, f"{where}.{field}")
            item[field] = value
        if "id" in item:
            if item["id"] in seen_ids:
                raise _bad(f"{where}.id {item['id']!r} repeats an earlier message id.")
            seen_ids.add(item["id"])
        if raw.get("timestamp") is not None:
            item["timestamp"] = _timestamp(raw["timestamp"], where)
        clean.append(item)
    if total > settings.GITLOOM_MAX_TRANSCRIPT_CHARS:
        raise PayloadTooLarge(
            f"The transcript is over {settings.GITLOOM_MAX_TRANSCRIPT_CHARS} characters."
        )
    if session_id is not None:
        _check_label(session_id, "`session_id`")
    if metadata is not None and not isinstance(metadata, dict):
        raise _bad("`metadata` must be an object.")
    return {"messages": clean, "session_id": session_id, "metadata": metadata or {}}


def _check_label(value: object, what: str) -> None:
    """Ids, names and the session id: one printable line. Message ids become memory
    sources and the session id a commit trailer; refused here, not after the job has
    paid for its model calls (pipeline.check_messages applies the same rule)."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID_CHARS:
        raise _bad(f"{what} must be a non-empty string of at most {MAX_ID_CHARS} characters.")
    if not value.isprintable():
        raise _bad(f"{what} must be printable characters on one line.")


def _timestamp(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _bad(f"{where}.timestamp must be an ISO 8601 string.")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _bad(f"{where}.timestamp {value!r} is not ISO 8601.") from None
    try:
        in_utc = as_utc(parsed)  # documented: naive is UTC
    except OverflowError:  # 9999-12-31T23:59:59-14:00 is past the last representable UTC time
        in_utc = None
    if in_utc is None or not _EARLIEST <= in_utc <= _LATEST:
        raise _bad(
            f"{where}.timestamp {value!r} is outside the supported range (years 0100 to 9899)."
        )
    # The speaker's own offset is kept: "tomorrow" said on Tuesday 21:30 at -05:00 is
    # Wednesday, though it is already Wednesday in UTC (memories.extraction.model.extractor).
    kept = parsed if parsed.tzinfo is not None else in_utc
    return kept.isoformat().replace("+00:00", "Z")


def payload_messages(payload: dict, *, job_tag: str) -> list[Message]:
    """Messages as the pipeline sees them; a message without an id gets a stable one."""
    out = []
    for index, item in enumerate(payload["messages"]):
        timestamp = item.get("timestamp")
        out.append(
            Message(
                id=item.get("id") or f"{job_tag}-m{index + 1}",
                role=item["role"],
                content=item["content"],
                name=item.get("name"),
                timestamp=datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
                if timestamp
                else None,
            )
        )
    return out
