"""Upkeep: merging packs so reads stay fast, collecting packs no head needs, and
deleting a repository."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

from gitloom.core.errors import NamespaceNotFound
from namespaces.errors import RepositoryCorrupt
from namespaces.repository.manifest import (
    HEAD_KEY,
    Head,
    Manifest,
    NewHead,
    find_head,
    load_head,
    now_iso,
    parse_iso,
    read_head,
    swap_head,
    update_head,
)
from namespaces.repository.packs import (
    PACK_FILE_RE,
    PACKS_DIR,
    PackRef,
    build_pack,
    copy_entries,
    drop_local_copies,
    open_pack,
    prune_local_copies,
)
from namespaces.repository.trees import reachable
from namespaces.repository.values import (
    DEFAULT_GC_GRACE,
    ConsolidateResult,
    GcResult,
    check_prefix,
)
from namespaces.storage import object_store


def _geometric_selection(packs: tuple[PackRef, ...], factor: int = 2) -> list[PackRef]:
    """The small packs to merge so that, afterwards, each pack holds at least
    ``factor`` times the objects of all smaller packs together (git's geometric
    repack).  Merging then costs about as much as the small packs, not the repo."""
    ordered = sorted(packs, key=lambda p: p.objects)
    split, running = 0, 0
    for i, pack in enumerate(ordered):
        if i and pack.objects < factor * running:
            split = i + 1
        running += pack.objects
    return ordered[:split]


def repository_consolidate(*, prefix: str, full: bool = False) -> ConsolidateResult | None:
    """Merge packs so reads stay fast; ``None`` if there was nothing to merge.

    By default merges geometrically (the small packs only).  ``full=True`` writes
    one pack with exactly the objects reachable from head (dropping anything
    unreachable, e.g. after an import), and gives up if a write lands meanwhile.
    Replaced packs are retired, and deleted by ``repository_gc`` after its grace.
    """
    check_prefix(prefix)
    store = object_store()
    first: Head
    if full:
        loaded = load_head(store, prefix)
        first = loaded
        selected = list(loaded.manifest.packs)
        wanted: set[bytes] | None = set(reachable(loaded.objects, loaded.manifest.commit.encode()))
        total = sum(p.objects for p in selected)
        if len(selected) == 1 and wanted is not None and total == len(wanted):
            return None
    else:
        # Only the small packs are read: the head names them, no other pack is opened
        # (on S3, fetched) for an hourly upkeep that may merge nothing.
        first = read_head(store, prefix)
        selected = _geometric_selection(first.manifest.packs)
        wanted = None
        if len(selected) < 2:
            return None
    packs = [open_pack(store, prefix, p.name) for p in selected]
    merged = build_pack(copy_entries(packs, wanted))
    if wanted is not None and merged.objects != len(wanted):
        raise RepositoryCorrupt("The repository is missing objects.")
    selected_names = {p.name for p in selected}

    def step(head: Head, _attempt: int) -> NewHead[ConsolidateResult] | None:
        manifest = head.manifest
        if not selected_names <= manifest.pack_names:
            return None  # another merge got there first; ours is an orphan for gc
        if full and manifest.commit != first.manifest.commit:
            # A write that landed meanwhile may rely on an object we dropped as
            # unreachable; start over rather than risk it.
            return None
        now = now_iso()
        keep = tuple(p for p in manifest.packs if p.name not in selected_names)
        new = Manifest(
            commit=manifest.commit,
            packs=(*keep, merged.ref),
            retired=manifest.retired + tuple((n, now) for n in sorted(selected_names)),
        )
        return NewHead(
            new,
            merged,
            lambda: ConsolidateResult(
                packs_before=len(manifest.packs),
                packs_after=len(new.packs),
                merged_packs=len(selected),
                objects=merged.objects,
                pack_bytes=len(merged.data),
            ),
        )

    try:
        return update_head(store, prefix, step, read=read_head, head=first, exhausted=lambda: None)
    except NamespaceNotFound:
        return None  # deleted while we merged


def repository_gc(
    *, prefix: str, grace: timedelta = DEFAULT_GC_GRACE, now: datetime | None = None
) -> GcResult:
    """Delete pack files no head needs, once older than ``grace``.

    Two kinds: orphans (uploaded by a writer that lost its race or crashed before
    swapping the head; never referenced by any head) are deleted once their upload is
    older than ``grace``; packs retired by a merge are deleted ``grace`` after they
    were retired, so a reader that loaded the previous head can finish.  The grace
    must exceed the longest write or read.
    """
    check_prefix(prefix)
    store = object_store()
    now = now or datetime.now(UTC)
    cutoff = now - grace
    head = find_head(store, prefix)
    manifest = head.manifest if head is not None else None
    referenced = manifest.pack_names if manifest is not None else set()
    retired = dict(manifest.retired) if manifest is not None else {}
    expired_retired = {
        name for name, at in retired.items() if parse_iso(at) <= cutoff and name not in referenced
    }
    if head is not None and expired_retired:
        trimmed = dataclasses.replace(
            head.manifest,
            retired=tuple((n, a) for n, a in head.manifest.retired if n not in expired_retired),
        )
        if not swap_head(store, prefix, trimmed, head.etag):
            expired_retired = set()  # the head moved; try again next time
    deleted: list[str] = []
    for obj in store.list(prefix + PACKS_DIR):
        filename = obj.key.rsplit("/", 1)[-1]
        match = PACK_FILE_RE.fullmatch(filename)
        if not match:
            continue
        name = match.group(1)
        if name in referenced:
            continue
        if name in retired and name not in expired_retired:
            continue
        if name not in expired_retired and obj.last_modified > cutoff:
            continue
        store.delete(obj.key)
        deleted.append(obj.key)
    prune_local_copies(
        store, prefix, keep=referenced | set(retired) - expired_retired, cutoff=cutoff
    )
    return GcResult(deleted=deleted, retired_pending=len(retired) - len(expired_retired))


def repository_delete(*, prefix: str) -> int:
    """Delete the namespace's repository: head first (so it reads as gone at once),
    then every object under the prefix, then this process's cache of it."""
    check_prefix(prefix)
    store = object_store()
    store.delete(prefix + HEAD_KEY)
    count = store.delete_prefix(prefix)
    drop_local_copies(store, prefix)
    return count
