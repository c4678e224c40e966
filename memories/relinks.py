"""Links that follow a moved file (``memories.extraction.renames`` decides the moves).

Kept apart from ``memories.extraction.renames`` because the job runner imports this at start-up,
and that one brings the offline extractor's language pipeline with its stopwords.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from namespaces.errors import InvalidMemory
from namespaces.memory_format import Link, Memory, parse_memory, render_memory


def relinked(snapshot, moved: Mapping[str, str], *, skip: Collection[str]) -> dict[str, bytes]:
    """Every other memory in ``snapshot`` (a ``namespaces.repository.Snapshot``) with a
    ``related`` link to a moved path, rewritten to link to where it went: a link must
    never point at nothing, or the namespace's own export would not import again. The
    blobs are scanned for the old paths' bytes first, so only a few files are parsed."""
    needles = [old.encode() for old in moved]
    changed: dict[str, bytes] = {}
    for path, blob in snapshot.walk():
        if path in skip or path in moved:
            continue
        data = snapshot.read_blob(blob)
        if not any(needle in data for needle in needles):
            continue
        try:
            memory = parse_memory(data, path=path)
        except InvalidMemory:  # unreadable: it cannot be rewritten, and must not stop this
            continue
        if relink(memory, moved):
            changed[path] = render_memory(memory)
    return changed


def relink(memory: Memory, moved: Mapping[str, str]) -> bool:
    """Point ``memory``'s links at moved files' new paths; True when any changed."""
    links = [Link(type=link.type, path=moved.get(link.path, link.path)) for link in memory.related]
    if links == memory.related:
        return False
    memory.related = links
    return True
