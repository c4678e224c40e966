"""The ingestion pipeline: a transcript in, memory files to create and rewrite out.

Four stages, in two batched steps so the number of model calls per job depends on the
transcript, never on how big the namespace is:

1. **Extract + Cue** (:meth:`Extractor.extract`): every distinct fact as a
   :class:`Draft` with its cues and the ids of the messages it came from. One model call
   per ``GITLOOM_EXTRACT_CHUNK_CHARS`` of transcript (one call for a normal job).
   A model extractor is shown the namespace's nearest memories for each chunk
   (``reads_existing``), so "same time" and "the car" resolve.
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
this raises (``ModelOutputInvalid``, ``ModelUnavailable``). The extractors are their
own modules: ``memories.extraction.model.extractor`` (its answers' shapes in
``memories.extraction.model.output``) and ``memories.extraction.offline``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from gitloom.core.errors import GitLoomError
from gitloom.core.times import as_utc
from memories.errors import DuplicateMessageId, InvalidMessageId
from memories.extraction.limits import MAX_BODY_CHARS, MAX_CUES, MAX_TAGS, clip, merge
from memories.extraction.renames import rewritten_path
from memories.extraction.stopwords import STOPWORDS
from memories.extraction.types import (
    Candidate,
    CandidateLookup,
    Decision,
    Draft,
    Extractor,
    MemoryLink,
    Message,
    PipelineResult,
    Usage,
)
from namespaces.memory_format import (
    MAX_FIELD_CHARS,
    Link,
    Memory,
    new_memory_path,
)

MAX_CANDIDATES = 40  # existing memories shown to one relate call, whatever the namespace size


# --- the pipeline -------------------------------------------------------------------


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
        if getattr(extractor, "reads_existing", False):
            drafts, usage = extractor.extract(messages=messages, now=now, existing=existing)
        else:
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

    # Reconcile: rewrite existing files, keeping their creation time and links. A
    # rewrite that changed what the file is about moves it (``memories.extraction.renames``).
    size_of = topic_sizes if callable(topic_sizes) else lambda key: topic_sizes.get(key, 0)
    added: Counter[str] = Counter()
    taken = {c.memory.path for c in candidates}
    folded: set[str] = set()
    for rewrite in decision.rewrites:
        target = candidates_by_key[rewrite.target]
        parts = [drafts_by_key[key] for key in rewrite.drafts]
        old = target.memory.header
        body = clip(rewrite.body, MAX_BODY_CHARS)
        memory = replace(
            old,
            body=body,
            updated=max([old.updated, *(d.when for d in parts)]),
            cues=_rewritten_cues(
                () if rewrite.cues_replace else old.cues,
                merge(rewrite.cues, *(() if rewrite.cues_replace else (d.cues for d in parts))),
                before=old.body,
                after=body,
            ),
            tags=merge(old.tags, *(d.tags for d in parts), limit=MAX_TAGS),
            sources=merge(old.sources, *(d.sources for d in parts)),
            related=list(old.related),
        )
        path = rewritten_path(
            path=target.memory.path,
            tier=old.tier,
            before=old.body,
            after=body,
            title=rewrite.title,
            topic=rewrite.topic,
            topic_sizes=lambda folder: size_of(folder) + added[folder],
        )
        if path != target.memory.path and (path in taken or path in result.rewritten):
            path = target.memory.path  # the new name is another file's: stay put
        if path != target.memory.path:
            result.moved[target.memory.path] = path
            added[path.rsplit("/", 1)[0]] += 1
        taken.add(path)
        result.rewritten[path] = memory
        result.sources[path] = merge(*(d.sources for d in parts))
        folded.update(rewrite.drafts)
        for key in (rewrite.target, *rewrite.drafts):
            path_of[key] = path
    for candidate in candidates:
        path_of.setdefault(candidate.key, candidate.memory.path)

    # Create the rest. Files added by this job count towards their folder's size.
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
        if path in result.rewritten:
            # A rewrite moved its file to this very name (same title and text): one fact.
            moved = result.rewritten[path]
            moved.sources = merge(moved.sources, draft.sources)
            result.sources[path] = merge(result.sources[path], draft.sources)
            continue
        twin = result.created.get(path)
        if twin is not None:
            # Same tier, title and body: the same fact said twice. Keep one, cite both.
            twin.cues = merge(twin.cues, draft.cues, limit=MAX_CUES)
            twin.tags = merge(twin.tags, draft.tags, limit=MAX_TAGS)
            twin.sources = merge(twin.sources, draft.sources)
            result.sources[path] = list(twin.sources)
            continue
        added[path.rsplit("/", 1)[0]] += 1
        result.created[path] = Memory(
            tier=draft.tier,
            tags=merge(draft.tags, limit=MAX_TAGS),
            created=draft.when,
            updated=draft.when,
            confidence=draft.confidence,
            cues=merge(draft.cues, limit=MAX_CUES),
            related=[],
            sources=merge(draft.sources),
            body=clip(draft.body, MAX_BODY_CHARS),
        )
        result.sources[path] = merge(draft.sources)

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


# --- helpers ------------------------------------------------------------------------


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
    new = [cue for cue in merge(new) if not (_words(cue) & gone)]
    fresh = [cue for cue in new if cue.casefold() not in {c.casefold() for c in old}]
    return merge(old[: max(0, MAX_CUES - len(fresh))], fresh, limit=MAX_CUES)
