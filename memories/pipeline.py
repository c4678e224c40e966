"""The ingestion pipeline: a transcript in, memory files to create and rewrite out.

Four stages, in two batched steps so the number of model calls per job depends on the
transcript, never on how big the namespace is:

1. **Extract + Cue** (:meth:`Extractor.extract`): every distinct fact as a
   :class:`Draft` with its cues and the ids of the messages it came from. One model call
   per ``GITLOOM_EXTRACT_CHUNK_CHARS`` of transcript (one call for a normal job).
2. The namespace's index is asked, once per draft, for a few candidates
   (``existing(text, limit)``); this is a retrieval query, not a model call, and the
   candidate set is bounded (``candidates_per_fact`` per draft, ``MAX_CANDIDATES`` in all).
3. **Relate + Reconcile** (:meth:`Extractor.relate`): typed links between drafts and
   candidates, and which candidates to rewrite with which drafts folded in. One model call
   (skipped when there is nothing to relate: a single draft and no candidates).
4. :func:`assemble` turns drafts and decisions into :class:`~namespaces.memory_format.Memory`
   objects with paths (no model, no I/O).

:func:`run_pipeline` does all four and returns a :class:`PipelineResult`. It performs no
writes: the caller commits ``created`` and ``rewritten`` in one commit, or nothing when
this raises (``ModelOutputInvalid``, ``ModelUnavailable``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Literal

from django.conf import settings
from pydantic import BaseModel, ConfigDict, Field, field_validator

from gitloom.core.errors import GitLoomError
from gitloom.core.times import as_utc
from memories import prompts
from memories.errors import DuplicateMessageId, InvalidMessageId
from memories.llm import ModelClient, Usage, model_client
from memories.offline import STOPWORDS, OfflineExtractor
from memories.pipeline_types import (
    Candidate,
    CandidateLookup,
    Decision,
    Draft,
    DraftLink,
    Extractor,
    MemoryLink,
    Message,
    PipelineResult,
    Rewrite,
)
from namespaces.memory_format import (
    LINK_TYPE_RE,
    MAX_FIELD_CHARS,
    TIERS,
    Link,
    Memory,
    new_memory_path,
    slugify,
)

MAX_CANDIDATES = 40  # existing memories shown to one relate call, whatever the namespace size
MAX_CUES = 12  # per memory, after merging a rewrite's old and new cues
MAX_TAGS = 12
MAX_BODY_CHARS = 8000
_PROMPT_CANDIDATE_CHARS = 1500  # of each existing memory's text shown to the model


# --- the pipeline -------------------------------------------------------------------


def run_pipeline(
    *,
    messages: Sequence[Message],
    session_id: str | None,
    existing: CandidateLookup,
    extractor: Extractor,
    topic_sizes: Callable[[str], int] | Mapping[str, int] | None = None,
    now: datetime | None = None,
    candidates_per_fact: int = 3,
) -> PipelineResult:
    """Run Extract, Cue, Relate and Reconcile over one job's messages.

    ``topic_sizes`` gives the number of files already in a folder such as
    ``"facts/camera-gear"`` (see ``new_memory_path``); ``now`` stamps memories whose
    messages carry no timestamp. Model errors propagate with the job's total usage in
    ``exc.details["usage"]``; nothing is produced then.
    """
    check_messages(messages)
    now = as_utc(now or datetime.now(UTC))
    result = PipelineResult(extractor=extractor.name, session_id=session_id)
    if not messages:
        return result
    try:
        drafts, usage = extractor.extract(messages=messages, now=now)
        result.usage += usage
        if not drafts:
            return result
        candidates, candidates_for = gather_candidates(
            drafts=drafts, existing=existing, per_fact=candidates_per_fact
        )
        decision = Decision()
        if len(drafts) > 1 or candidates:
            decision, usage = extractor.relate(
                drafts=drafts, candidates=candidates, candidates_for=candidates_for
            )
            result.usage += usage
    except GitLoomError as exc:
        usage = Usage(
            **{k: v for k, v in exc.details.get("usage", {}).items() if k != "total_tokens"}
        )
        total = result.usage + usage
        exc.details["usage"] = total.as_dict()
        raise
    assembled = assemble(
        drafts=drafts,
        candidates=candidates,
        decision=decision,
        topic_sizes=topic_sizes or {},
    )
    assembled.extractor = result.extractor
    assembled.session_id = session_id
    assembled.usage = result.usage
    return assembled


def check_messages(messages: Sequence[Message]) -> None:
    """Message ids are how memories cite their sources: they must be unique and set."""
    seen: set[str] = set()
    for message in messages:
        if not message.id or len(message.id) > MAX_FIELD_CHARS or not message.id.isprintable():
            raise InvalidMessageId(
                f"Message ids must be 1-{MAX_FIELD_CHARS} printable characters.",
            )
        if message.id in seen:
            raise DuplicateMessageId(f"Message id {message.id!r} appears twice.")
        seen.add(message.id)


def gather_candidates(
    *, drafts: Sequence[Draft], existing: CandidateLookup, per_fact: int
) -> tuple[list[Candidate], dict[str, list[str]]]:
    """Ask the index for each draft's nearest existing memories; dedupe, bound, key them."""
    by_path: dict[str, Candidate] = {}
    candidates_for: dict[str, list[str]] = {}
    if per_fact <= 0:
        return [], {}
    found = existing([draft.body for draft in drafts], per_fact) if drafts else []
    for draft, nearest in zip(drafts, found, strict=True):
        keys: list[str] = []
        for memory in nearest[:per_fact]:
            candidate = by_path.get(memory.path)
            if candidate is None:
                if len(by_path) >= MAX_CANDIDATES:
                    continue
                candidate = Candidate(key=f"e{len(by_path) + 1}", memory=memory)
                by_path[memory.path] = candidate
            if candidate.key not in keys:
                keys.append(candidate.key)
        candidates_for[draft.key] = keys
    return list(by_path.values()), candidates_for


def assemble(
    *,
    drafts: Sequence[Draft],
    candidates: Sequence[Candidate],
    decision: Decision,
    topic_sizes: Callable[[str], int] | Mapping[str, int],
) -> PipelineResult:
    """Drafts + decisions -> files to create and rewrite, with links in their headers."""
    drafts_by_key = {d.key: d for d in drafts}
    candidates_by_key = {c.key: c for c in candidates}
    result = PipelineResult()
    path_of: dict[str, str] = {}  # draft or candidate key -> the path that now holds it

    # Reconcile: rewrite existing files, keeping their path, creation time and links.
    folded: set[str] = set()
    for rewrite in decision.rewrites:
        target = candidates_by_key[rewrite.target]
        parts = [drafts_by_key[key] for key in rewrite.drafts]
        old = target.memory.header
        memory = replace(
            old,
            body=_clip(rewrite.body, MAX_BODY_CHARS),
            updated=max([old.updated, *(d.when for d in parts)]),
            cues=_rewritten_cues(
                old.cues,
                _merge(rewrite.cues, *(d.cues for d in parts)),
                before=old.body,
                after=rewrite.body,
            ),
            tags=_merge(old.tags, *(d.tags for d in parts), limit=MAX_TAGS),
            sources=_merge(old.sources, *(d.sources for d in parts)),
            related=list(old.related),
        )
        result.rewritten[target.memory.path] = memory
        result.sources[target.memory.path] = _merge(*(d.sources for d in parts))
        folded.update(rewrite.drafts)
        for key in (rewrite.target, *rewrite.drafts):
            path_of[key] = target.memory.path
    for candidate in candidates:
        path_of.setdefault(candidate.key, candidate.memory.path)

    # Create the rest. Files added by this job count towards their folder's size.
    size_of = topic_sizes if callable(topic_sizes) else lambda key: topic_sizes.get(key, 0)
    added: Counter[str] = Counter()
    for draft in drafts:
        if draft.key in folded:
            continue
        path = new_memory_path(
            tier=draft.tier,
            topic_hint=draft.topic or draft.title or draft.body[:40],
            title=draft.title or draft.body[:60],
            body=draft.body,
            topic_sizes=lambda folder: size_of(folder) + added[folder],
        )
        path_of[draft.key] = path
        twin = result.created.get(path)
        if twin is not None:
            # Same tier, title and body: the same fact said twice. Keep one, cite both.
            twin.cues = _merge(twin.cues, draft.cues, limit=MAX_CUES)
            twin.tags = _merge(twin.tags, draft.tags, limit=MAX_TAGS)
            twin.sources = _merge(twin.sources, draft.sources)
            result.sources[path] = list(twin.sources)
            continue
        added[path.rsplit("/", 1)[0]] += 1
        result.created[path] = Memory(
            tier=draft.tier,
            tags=_merge(draft.tags, limit=MAX_TAGS),
            created=draft.when,
            updated=draft.when,
            confidence=draft.confidence,
            cues=_merge(draft.cues, limit=MAX_CUES),
            related=[],
            sources=_merge(draft.sources),
            body=_clip(draft.body, MAX_BODY_CHARS),
        )
        result.sources[path] = _merge(draft.sources)

    # Relate: a link is written into a file this job writes; the other end may be old.
    written = {**result.rewritten, **result.created}
    seen: set[tuple[str, str, str]] = set()
    for link in decision.links:
        source, target = path_of.get(link.source), path_of.get(link.target)
        if source is None or target is None or source == target:
            continue
        if source not in written:
            source, target = target, source
            if source not in written:
                continue
        memory = written[source]
        if any(existing.path == target for existing in memory.related):
            continue  # one link per pair of files is enough for the graph
        if (source, link.type, target) in seen:
            continue
        seen.add((source, link.type, target))
        memory.related.append(Link(type=link.type, path=target))
        result.links.append(MemoryLink(source=source, type=link.type, target=target))
    return result


def default_extractor() -> Extractor:
    """The configured model's extractor, or the offline one when no model is configured."""
    client = model_client()
    return ModelExtractor(client) if client is not None else OfflineExtractor()


# --- the model extractor ------------------------------------------------------------


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
                user=_transcript_prompt(chunk),
                schema_name=prompts.EXTRACT_SCHEMA_NAME,
                schema=ExtractOutput.model_json_schema(),
                validate=lambda data, ids=ids: _validate_extract(data, ids),
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
            user=_relate_prompt(drafts, candidates, candidates_for),
            schema_name=prompts.RELATE_SCHEMA_NAME,
            schema=RelateOutput.model_json_schema(by_alias=True),
            validate=lambda data: _validate_relate(data, draft_keys, candidate_keys),
        )


# --- model output: shapes and checks ------------------------------------------------
# Lenient where it cannot change meaning (whitespace, case, duplicates, an over-long cue
# is cut), strict where it can (unknown tier, message id or key): a ValueError here is
# sent back to the model as a re-ask by ModelClient.chat_json.

_TIER_ALIASES = {"fact": "facts", "preference": "preferences", "event": "events"}


def _line(value: str, limit: int = MAX_FIELD_CHARS) -> str:
    return _clip(" ".join(str(value).split()), limit)


def _clean_list(values: list[Any], limit: int = MAX_FIELD_CHARS) -> list[str]:
    return _merge([_line(v, limit) for v in values if isinstance(v, str) and v.strip()])


class ExtractedMemory(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tier: Literal[TIERS]  # the format's tiers, spelt once there
    topic: str = ""
    title: str = ""
    text: str = Field(min_length=1, max_length=MAX_BODY_CHARS)
    tags: list[str] = Field(default_factory=list)
    cues: list[str] = Field(min_length=1)
    sources: list[str] = Field(min_length=1)
    confidence: float | None = Field(default=None, ge=0, le=1)

    @field_validator("tier", mode="before")
    @classmethod
    def _tier(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip().lower()
            return _TIER_ALIASES.get(value, value)
        return value

    @field_validator("topic", "title", mode="before")
    @classmethod
    def _short_line(cls, value: Any) -> Any:
        return _line(value, 80) if isinstance(value, str) else value

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return value.strip() if isinstance(value, str) else value

    @field_validator("tags", mode="before")
    @classmethod
    def _tags(cls, value: Any) -> Any:
        return [t.lower() for t in _clean_list(value, 60)] if isinstance(value, list) else value

    @field_validator("cues", "sources", mode="before")
    @classmethod
    def _lines(cls, value: Any) -> Any:
        return _clean_list(value) if isinstance(value, list) else value


class ExtractOutput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    memories: list[ExtractedMemory]


class LinkOut(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    source: str = Field(alias="from")
    target: str = Field(alias="to")
    type: str = "related"


class RewriteOut(BaseModel):
    model_config = ConfigDict(extra="ignore")

    target: str
    memories: list[str] = Field(min_length=1)
    text: str = Field(min_length=1, max_length=MAX_BODY_CHARS)
    cues: list[str] = Field(default_factory=list)

    @field_validator("cues", mode="before")
    @classmethod
    def _cues(cls, value: Any) -> Any:
        return _clean_list(value) if isinstance(value, list) else value


class RelateOutput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    links: list[LinkOut] = Field(default_factory=list)
    rewrites: list[RewriteOut] = Field(default_factory=list)


def _validate_extract(data: Any, message_ids: set[str]) -> ExtractOutput:
    output = ExtractOutput.model_validate(data)
    for number, item in enumerate(output.memories, 1):
        unknown = [s for s in item.sources if s not in message_ids]
        if unknown:
            raise ValueError(
                f"memory {number} cites unknown message id(s) {unknown}; "
                f"sources must be ids from the transcript"
            )
    return output


def _validate_relate(data: Any, draft_keys: set[str], candidate_keys: set[str]) -> Decision:
    output = RelateOutput.model_validate(data)
    known = draft_keys | candidate_keys
    links = []
    for link in output.links:
        for key in (link.source, link.target):
            if key not in known:
                raise ValueError(f"link refers to unknown key {key!r}; use n/e keys given")
        if link.source == link.target or not {link.source, link.target} & draft_keys:
            continue  # a self-link or an old-old link: nothing for this job to write
        links.append(DraftLink(source=link.source, target=link.target, type=link_type(link.type)))
    rewrites = []
    targets: set[str] = set()
    folded: set[str] = set()
    for rewrite in output.rewrites:
        if rewrite.target not in candidate_keys:
            raise ValueError(f"rewrite target {rewrite.target!r} is not an existing memory key")
        if rewrite.target in targets:
            raise ValueError(f"existing memory {rewrite.target!r} is rewritten twice")
        targets.add(rewrite.target)
        for key in rewrite.memories:
            if key not in draft_keys:
                raise ValueError(f"rewrite folds unknown new memory {key!r}")
            if key in folded:
                raise ValueError(f"new memory {key!r} is folded into two existing memories")
            folded.add(key)
        rewrites.append(
            Rewrite(
                target=rewrite.target,
                drafts=tuple(dict.fromkeys(rewrite.memories)),
                body=rewrite.text.strip(),
                cues=tuple(rewrite.cues),
            )
        )
    return Decision(links=tuple(links), rewrites=tuple(rewrites))


def link_type(text: str) -> str:
    """A model's relation name as a link type (``Same Trip`` -> ``same-trip``)."""
    kind = slugify(text, max_len=64, fallback="related")
    return kind if LINK_TYPE_RE.fullmatch(kind) else "related"


# --- prompts' user parts ------------------------------------------------------------


def _transcript_prompt(messages: Sequence[Message]) -> str:
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


def _relate_prompt(
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
            "text": _clip(c.memory.text, _PROMPT_CANDIDATE_CHARS),
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


# --- helpers ------------------------------------------------------------------------


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


_WORD = re.compile(r"\w+", re.UNICODE)


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)} - STOPWORDS


def _rewritten_cues(
    old: Sequence[str], new: Sequence[str], *, before: str, after: str
) -> list[str]:
    """The cues of a rewritten memory: the old ones that still hold, in their places
    (so the file's diff shows only what changed), then the new ones. A cue naming a
    specific the rewrite took out of the body (the old age, date, manager, colour; or
    the negated value in "four years old, not three") would keep finding the memory by
    the value it no longer states, so it goes. Over the cap, old cues give way to new."""
    gone = _words(before) - _words(after)
    old = [cue for cue in old if not (_words(cue) & gone)]
    new = [cue for cue in _merge(new) if not (_words(cue) & gone)]
    fresh = [cue for cue in new if cue.casefold() not in {c.casefold() for c in old}]
    return _merge(old[: max(0, MAX_CUES - len(fresh))], fresh, limit=MAX_CUES)


def _merge(*lists: Sequence[str], limit: int | None = None) -> list[str]:
    """Concatenate, dropping repeats (case- and space-insensitive), first spelling wins."""
    seen: set[str] = set()
    merged: list[str] = []
    for values in lists:
        for value in values:
            fold = " ".join(value.split()).casefold()
            if fold and fold not in seen:
                seen.add(fold)
                merged.append(value)
    return merged[:limit] if limit is not None else merged


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
