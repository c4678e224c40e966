"""What the model must answer, and the checks its answers pass.

The pydantic shapes of the two calls' JSON (``ExtractOutput``, ``RelateOutput``, whose
JSON schemas are sent with the request) and ``validate_extract``/``validate_relate``,
which also check the keys and message ids against what was asked. Lenient where it
cannot change meaning (whitespace, case, duplicates, an over-long cue is cut), strict
where it can (unknown tier, message id or key): a ValueError here is sent back to the
model as a re-ask by ``ModelClient.chat_json``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memories.extraction.limits import MAX_BODY_CHARS, clip, merge
from memories.extraction.types import (
    Decision,
    DraftLink,
    Rewrite,
)
from namespaces.memory_format import (
    LINK_TYPE_RE,
    MAX_FIELD_CHARS,
    TIERS,
    slugify,
)

_TIER_ALIASES = {"fact": "facts", "preference": "preferences", "event": "events"}


def _line(value: str, limit: int = MAX_FIELD_CHARS) -> str:
    return clip(" ".join(str(value).split()), limit)


def _clean_list(values: list[Any], limit: int = MAX_FIELD_CHARS) -> list[str]:
    return merge([_line(v, limit) for v in values if isinstance(v, str) and v.strip()])


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
    """A rewrite of an existing memory. ``memories`` may be empty: a memory a correction
    made stale is rewritten (past tense, or true again) with nothing folded into it.
    ``title``/``topic`` are given when what the memory is about changed: the file moves."""

    model_config = ConfigDict(extra="ignore")

    target: str
    memories: list[str] = Field(default_factory=list)
    text: str = Field(min_length=1, max_length=MAX_BODY_CHARS)
    cues: list[str] = Field(default_factory=list)
    title: str = ""
    topic: str = ""

    @field_validator("memories", mode="before")
    @classmethod
    def _memories(cls, value: Any) -> Any:
        return [] if value is None else value

    @field_validator("title", "topic", mode="before")
    @classmethod
    def _short_line(cls, value: Any) -> Any:
        if value is None:
            return ""
        return _line(value, 80) if isinstance(value, str) else value

    @field_validator("cues", mode="before")
    @classmethod
    def _cues(cls, value: Any) -> Any:
        return _clean_list(value) if isinstance(value, list) else value


class RelateOutput(BaseModel):
    model_config = ConfigDict(extra="ignore")

    links: list[LinkOut] = Field(default_factory=list)
    rewrites: list[RewriteOut] = Field(default_factory=list)


def validate_extract(data: Any, message_ids: set[str]) -> ExtractOutput:
    output = ExtractOutput.model_validate(data)
    for number, item in enumerate(output.memories, 1):
        unknown = [s for s in item.sources if s not in message_ids]
        if unknown:
            raise ValueError(
                f"memory {number} cites unknown message id(s) {unknown}; "
                f"sources must be ids from the transcript"
            )
    return output


def validate_relate(data: Any, draft_keys: set[str], candidate_keys: set[str]) -> Decision:
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
                title=rewrite.title,
                topic=rewrite.topic,
                cues_replace=bool(rewrite.cues),
            )
        )
    return Decision(links=tuple(links), rewrites=tuple(rewrites))


def link_type(text: str) -> str:
    """A model's relation name as a link type (``Same Trip`` -> ``same-trip``)."""
    kind = slugify(text, max_len=64, fallback="related")
    return kind if LINK_TYPE_RE.fullmatch(kind) else "related"
