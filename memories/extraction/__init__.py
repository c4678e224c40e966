"""Extraction, the write path's middle: a transcript in, memory files to create and
rewrite out, and no write (the job commits them).

The one interface the job (``memories.conversation_jobs``) calls: :func:`default_extractor`
picks the engine, :func:`run_pipeline` runs the stages with it, and
:func:`memory_candidates` is the namespace's own lookup the stages ask. Inside:

* the stages: ``pipeline`` (extract + cue, candidates, relate + reconcile, assemble),
  ``types`` (what passes between them, and the ``Extractor`` protocol an engine meets),
  ``candidates``, ``limits`` (field sizes), ``renames`` (where a rewrite lives);
* two engines behind that protocol: ``model/`` (an OpenAI-compatible model: its client,
  prompts and output schemas) and ``offline/`` (spaCy parses and rules, no model).

Nothing outside this package imports a module inside an engine, only the names its
package exports; the pipeline imports no engine (tests/test_layers.py checks both).
The pipeline and the engines bring spaCy and the model client, seconds of imports, so
they load on first use here, not with this package.

Design: docs/design/write-path.md, docs/design/model-path.md, docs/design/offline-rules.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from memories.extraction.candidates import memory_candidates
from memories.extraction.types import (
    CandidateLookup,
    ExistingMemory,
    Extractor,
    Message,
    PipelineResult,
    Usage,
)

__all__ = [
    "ExistingMemory",
    "Extractor",
    "Message",
    "PipelineResult",
    "Usage",
    "default_extractor",
    "import_engines",
    "memory_candidates",
    "run_pipeline",
]


def import_engines() -> None:
    """Import the pipeline and both engines now (spaCy, the model client: seconds of
    imports), for a process about to fork workers that will run jobs: they share them.
    Every other process imports them when its first job runs."""
    import memories.extraction.model
    import memories.extraction.offline
    import memories.extraction.pipeline  # noqa: F401


def default_extractor() -> Extractor:
    """The configured model's engine, or the offline one when no model is configured."""
    from memories.extraction.model import ModelExtractor, model_client

    client = model_client()
    if client is not None:
        return ModelExtractor(client)
    from memories.extraction.offline import OfflineExtractor

    return OfflineExtractor()


def run_pipeline(
    *,
    messages: Sequence[Message],
    session_id: str | None,
    existing: CandidateLookup,
    extractor: Extractor,
    topic_sizes: Callable[[str], int] | Mapping[str, int] | None = None,
    now: datetime | None = None,
    candidates_per_fact: int = 6,
) -> PipelineResult:
    """The stages over one job's messages (``memories.extraction.pipeline.run_pipeline``)."""
    from memories.extraction import pipeline

    return pipeline.run_pipeline(
        messages=messages,
        session_id=session_id,
        existing=existing,
        extractor=extractor,
        topic_sizes=topic_sizes,
        now=now,
        candidates_per_fact=candidates_per_fact,
    )
