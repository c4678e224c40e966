"""The data the ingestion pipeline passes between its stages, and what an extractor is.

Plain frozen dataclasses and one protocol, in a module of their own so the pipeline
(``memories.extraction.pipeline``), the extractors (its model extractor, ``memories.extraction.offline``) and
the candidate lookup (``memories.extraction.candidates``) import them without importing each
other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from namespaces.memory_format import Memory


def _model_prompt_version() -> str:
    # Every job records the model prompts' version, the offline engine's too (as it
    # always has). Imported on use: the model engine's package imports these types.
    from memories.extraction.model.prompts import PROMPT_VERSION

    return PROMPT_VERSION


@dataclass(frozen=True)
class Usage:
    """Tokens spent; ``calls`` counts HTTP requests that reached the model and answered."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            calls=self.calls + other.calls,
        )

    def as_dict(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
            "calls": self.calls,
        }


@dataclass(frozen=True, kw_only=True)
class Message:
    id: str
    role: str
    content: str
    name: str | None = None
    timestamp: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class ExistingMemory:
    """A memory already in the namespace, as the candidate lookup returns it."""

    path: str
    text: str
    header: Memory


# Nearest existing memories for each of several texts (one list per text, at most
# `limit` each): one call per job, so an index can embed the texts in one batch.
CandidateLookup = Callable[[Sequence[str], int], list[list[ExistingMemory]]]
"""``existing(text, limit)``: up to ``limit`` memories of this namespace most like ``text``."""


@dataclass(frozen=True, kw_only=True)
class Draft:
    """A new memory before it has a path. ``key`` is ``n1``, ``n2``, ... within a job."""

    key: str
    tier: str
    topic: str
    title: str
    body: str
    tags: tuple[str, ...]
    cues: tuple[str, ...]
    sources: tuple[str, ...]
    confidence: float | None
    when: datetime


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """An existing memory offered to Relate/Reconcile under key ``e1``, ``e2``, ..."""

    key: str
    memory: ExistingMemory


@dataclass(frozen=True, kw_only=True)
class DraftLink:
    """A typed link between two keys (draft or candidate); at least one is a draft."""

    source: str
    target: str
    type: str


@dataclass(frozen=True, kw_only=True)
class Rewrite:
    """Fold ``drafts`` (possibly none: a memory made stale, rewritten so it is true
    again) into candidate ``target``, whose new body is ``body``.

    ``title``/``topic`` name what the memory is now about; given (or derived by the
    pipeline when the file's name states a value the body no longer holds), the file
    moves. ``cues_replace``: ``cues`` are the memory's whole new cue set (a model wrote
    them for the new text), not additions to the old ones."""

    target: str
    drafts: tuple[str, ...]
    body: str
    cues: tuple[str, ...] = ()
    title: str = ""
    topic: str = ""
    cues_replace: bool = False


@dataclass(frozen=True, kw_only=True)
class Decision:
    links: tuple[DraftLink, ...] = ()
    rewrites: tuple[Rewrite, ...] = ()


@dataclass(frozen=True, kw_only=True)
class MemoryLink:
    """A link as written into a file's ``related``: ``source`` holds ``type: target``."""

    source: str
    type: str
    target: str


@dataclass(kw_only=True)
class PipelineResult:
    created: dict[str, Memory] = field(default_factory=dict)  # new path -> memory
    rewritten: dict[str, Memory] = field(default_factory=dict)  # its path now -> memory
    moved: dict[str, str] = field(default_factory=dict)  # old path -> new path (rewritten)
    links: list[MemoryLink] = field(default_factory=list)
    sources: dict[str, list[str]] = field(default_factory=dict)  # path -> this job's ids
    extractor: str = "offline"
    prompt_version: str = field(default_factory=_model_prompt_version)
    usage: Usage = field(default_factory=Usage)
    session_id: str | None = None

    @property
    def paths(self) -> list[str]:
        return [*self.created, *self.rewritten]


class Extractor(Protocol):
    """What :func:`run_pipeline` needs from a model or the offline extractor.

    An extractor with a true ``reads_existing`` attribute also gets the namespace's
    lookup as ``extract(..., existing=lookup)``, to show its model the nearest known
    memories; one without it reads only the transcript."""

    name: str

    def extract(self, *, messages: Sequence[Message], now: datetime) -> tuple[list[Draft], Usage]:
        """Extract + Cue."""
        ...

    def relate(
        self,
        *,
        drafts: Sequence[Draft],
        candidates: Sequence[Candidate],
        candidates_for: Mapping[str, Sequence[str]],
    ) -> tuple[Decision, Usage]:
        """Relate + Reconcile. ``candidates_for`` maps a draft key to its candidate keys."""
        ...
