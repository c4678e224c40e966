"""The model extractor: Extract+Cue and Relate+Reconcile through an OpenAI-compatible
model (``memories.llm``), one call per chunk of transcript and one relate call.

The system prompts are ``memories.prompts``; the user parts are built here
(``transcript_prompt``, ``relate_prompt``); the answers' shapes and checks are
``memories.model_output``; the stages around it are ``memories.pipeline``'s."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings

from gitloom.core.times import as_utc
from memories import prompts
from memories.llm import ModelClient, Usage
from memories.model_output import ExtractOutput, RelateOutput, validate_extract, validate_relate
from memories.pipeline_types import (
    Candidate,
    Decision,
    Draft,
    Message,
)
from memories.text_limits import clip


class ModelExtractor:
    """Extract+Cue and Relate+Reconcile through an OpenAI-compatible model."""

    def __init__(self, client: ModelClient, *, chunk_chars: int | None = None) -> None:
        self.client = client
        self.name = client.model
        self.chunk_chars = chunk_chars or settings.GITLOOM_EXTRACT_CHUNK_CHARS

    def extract(self, *, messages: Sequence[Message], now: datetime) -> tuple[list[Draft], Usage]:
        drafts: list[Draft] = []
        usage = Usage()
        for chunk in _chunks(messages, self.chunk_chars):
            ids = {m.id for m in chunk}
            output, spent = self.client.chat_json(
                system=prompts.EXTRACT_SYSTEM,
                user=transcript_prompt(chunk),
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


# --- the prompts' user parts ---------------------------------------------------------


_PROMPT_CANDIDATE_CHARS = 1500  # of each existing memory's text shown to the model


def transcript_prompt(messages: Sequence[Message]) -> str:
    lines = []
    for m in messages:
        item: dict[str, Any] = {"id": m.id, "role": m.role}
        if m.name:
            item["name"] = m.name
        if m.timestamp:
            when = as_utc(m.timestamp)
            item["time"] = when.isoformat()
            item["weekday"] = when.strftime("%A")
        item["text"] = m.content
        lines.append(json.dumps(item, ensure_ascii=False))
    return "Transcript, one message per line:\n" + "\n".join(lines)


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
            "updated": c.memory.header.updated.isoformat(),
        }
        for c in candidates
    ]
    return (
        "NEW memories:\n"
        + "\n".join(json.dumps(item, ensure_ascii=False) for item in new)
        + "\n\nEXISTING memories:\n"
        + ("\n".join(json.dumps(item, ensure_ascii=False) for item in old) or "(none)")
    )
