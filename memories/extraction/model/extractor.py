"""The model extractor: Extract+Cue and Relate+Reconcile through an OpenAI-compatible
model (``memories.extraction.model.client``), one call per chunk of transcript and one relate call.

The system prompts are ``memories.extraction.model.prompts``; the user parts are built here
(``transcript_prompt``, ``relate_prompt``); the answers' shapes and checks are
``memories.extraction.model.output``; the stages around it are ``memories.extraction.pipeline``'s."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings

from gitloom.core.times import as_utc
from memories.extraction.limits import clip
from memories.extraction.model import prompts
from memories.extraction.model.client import ModelClient
from memories.extraction.model.output import (
    ExtractOutput,
    RelateOutput,
    validate_extract,
    validate_relate,
)
from memories.extraction.types import (
    Candidate,
    CandidateLookup,
    Decision,
    Draft,
    ExistingMemory,
    Message,
    Usage,
)


class ModelExtractor:
    """Extract+Cue and Relate+Reconcile through an OpenAI-compatible model."""

    # Extraction is shown the namespace's nearest memories (``existing``), so "same
    # time" and "the car" resolve; the pipeline passes its lookup to extractors that say so.
    reads_existing = True

    def __init__(self, client: ModelClient, *, chunk_chars: int | None = None) -> None:
        self.client = client
        self.name = client.model
        self.chunk_chars = chunk_chars or settings.GITLOOM_EXTRACT_CHUNK_CHARS

    def extract(
        self,
        *,
        messages: Sequence[Message],
        now: datetime,
        existing: CandidateLookup | None = None,
    ) -> tuple[list[Draft], Usage]:
        drafts: list[Draft] = []
        usage = Usage()
        for chunk in _chunks(messages, self.chunk_chars):
            ids = {m.id for m in chunk}
            known = known_memories(chunk, existing) if existing is not None else []
            output, spent = self.client.chat_json(
                system=prompts.EXTRACT_SYSTEM,
                user=transcript_prompt(chunk, known),
                schema_name=prompts.EXTRACT_SCHEMA_NAME,
                schema=ExtractOutput.model_json_schema(),
                validate=lambda data, ids=ids: validate_extract(data, ids),
            )
            usage += spent
            when_of = {m.id: as_utc(m.timestamp) if m.timestamp else now for m in chunk}
            for item in output.memories:
                drafts.append(
                    Draft(
                        key=f"n{len(drafts) + 1}",
                        tier=item.tier,
                        topic=item.topic,
                        title=item.title,
                        body=item.text,
                        tags=tuple(item.tags),
                        cues=tuple(item.cues),
                        sources=tuple(item.sources),
                        confidence=item.confidence,
                        when=max(when_of[s] for s in item.sources),
                    )
                )
        return drafts, usage

    def relate(
        self,
        *,
        drafts: Sequence[Draft],
        candidates: Sequence[Candidate],
        candidates_for: Mapping[str, Sequence[str]],
    ) -> tuple[Decision, Usage]:
        draft_keys = {d.key for d in drafts}
        candidate_keys = {c.key for c in candidates}
        return self.client.chat_json(
            system=prompts.RELATE_SYSTEM,
            user=relate_prompt(drafts, candidates, candidates_for),
            schema_name=prompts.RELATE_SCHEMA_NAME,
            schema=RelateOutput.model_json_schema(by_alias=True),
            validate=lambda data: validate_relate(data, draft_keys, candidate_keys),
        )


def _chunks(messages: Sequence[Message], max_chars: int) -> list[list[Message]]:
    """Consecutive runs of messages of at most ``max_chars`` of text (at least one each)."""
    chunks: list[list[Message]] = []
    size = 0
    for message in messages:
        if chunks and size + len(message.content) <= max_chars:
            chunks[-1].append(message)
            size += len(message.content)
        else:
            chunks.append([message])
            size = len(message.content)
    return chunks


# --- what extraction is shown of the namespace -----------------------------------------

KNOWN_PER_CHUNK = 6  # existing memories shown with one chunk of transcript
_KNOWN_PER_MESSAGE = 2  # nearest memories asked for each message of the chunk
_KNOWN_MESSAGES = 12  # messages of a chunk whose nearest memories are asked for
_KNOWN_CHARS = 300  # of each known memory's text


def known_memories(chunk: Sequence[Message], existing: CandidateLookup) -> list[ExistingMemory]:
    """The namespace's memories nearest to a chunk's messages, at most
    ``KNOWN_PER_CHUNK``: each message's best first, then each one's second (one batched
    lookup, so a chunk costs one embedding call however many messages it has)."""
    said = [m.content for m in chunk if m.role in ("user", "assistant")][-_KNOWN_MESSAGES:]
    if not said:
        return []
    found = existing(said, _KNOWN_PER_MESSAGE)
    known: dict[str, ExistingMemory] = {}
    for rank in range(_KNOWN_PER_MESSAGE):
        for nearest in found:
            if rank < len(nearest) and len(known) < KNOWN_PER_CHUNK:
                known.setdefault(nearest[rank].path, nearest[rank])
    return list(known.values())


# --- the prompts' user parts ---------------------------------------------------------


_PROMPT_CANDIDATE_CHARS = 600  # of each existing memory's text shown to the relate call


def speaker_time(when: datetime) -> datetime:
    """A message's time on the speaker's own clock: its own UTC offset when it carried
    one (so a Tuesday 21:30 at -05:00 stays a Tuesday), UTC when it had none."""
    return when if when.tzinfo is not None else as_utc(when)


def transcript_prompt(messages: Sequence[Message], known: Sequence[ExistingMemory] = ()) -> str:
    lines = []
    for m in messages:
        item: dict[str, Any] = {"id": m.id, "role": m.role}
        if m.name:
            item["name"] = m.name
        if m.timestamp:
            when = speaker_time(m.timestamp)
            item["time"] = when.isoformat()
            item["weekday"] = when.strftime("%A")
        item["text"] = m.content
        lines.append(json.dumps(item, ensure_ascii=False))
    text = "Transcript, one message per line:\n" + "\n".join(lines)
    if known:
        text += "\n\nKNOWN memories (already stored; for resolving references only):\n" + "\n".join(
            f"- {clip(' '.join(k.text.split()), _KNOWN_CHARS)} "
            f"({k.header.updated.date().isoformat()})"
            for k in known
        )
    return text


def relate_prompt(
    drafts: Sequence[Draft],
    candidates: Sequence[Candidate],
    candidates_for: Mapping[str, Sequence[str]],
) -> str:
    new = [
        {
            "key": d.key,
            "tier": d.tier,
            "text": d.body,
            "time": d.when.isoformat(),
            "similar_existing": list(candidates_for.get(d.key, ())),
        }
        for d in drafts
    ]
    old = [
        {
            "key": c.key,
            "tier": c.memory.header.tier,
            "text": clip(c.memory.text, _PROMPT_CANDIDATE_CHARS),
            "updated": c.memory.header.updated.date().isoformat(),
        }
        for c in candidates
    ]
    return (
        "NEW memories:\n"
        + "\n".join(json.dumps(item, ensure_ascii=False) for item in new)
        + "\n\nEXISTING memories:\n"
        + ("\n".join(json.dumps(item, ensure_ascii=False) for item in old) or "(none)")
    )
