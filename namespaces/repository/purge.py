"""Purging: content that disappears from every commit and from object storage.

Forgetting is a commit that removes a file; its history keeps it.  A purge rewrites
history instead, the way ``git filter-repo`` does: every commit from the first one
that held a dropped file version is made again with the same message and trailers
(redacted if the caller asks; ids of rewritten commits in them become the new ids),
author, committer and times, minus the dropped versions; commits before that keep
their ids.  A rewritten commit whose only change
was a dropped version stays, empty, so every commit (and the job that made it) still
has its counterpart.  On top, one purge commit carries the caller's last change (for
example, links to the dropped files taken out of the files that remain) and the
purge's trailers.

The new head is written as one pack holding exactly what it reaches, swapped in by
compare-and-swap (``update_head``: a write that lands meanwhile makes the rewrite run
again on top of it, reusing what it already rewrote, so that write is kept and nothing
it removed comes back), and then, before returning, every pack that could hold a
dropped object is deleted: every pack any head we read named (live or retired), our
own packs of lost rounds, and orphans uploaded before the purge began (measured on the
store's clock by a marker object, so a pack a writer uploads after our swap is never
touched).  This process's local copies of those packs and its parsed trees are dropped
too.  What it cannot reach: clones already taken, backups of the store, and other
processes' and nodes' local pack caches (docs/API.md, "Purging").
"""

from __future__ import annotations

import dataclasses
import re
import stat
import uuid
from collections.abc import Callable, Mapping
from datetime import timedelta

from dulwich.objects import Commit, ShaFile, Tree

from namespaces.errors import RepositoryCorrupt
from namespaces.repository.history import forget_walked_commits
from namespaces.repository.manifest import (
    LoadedHead,
    Manifest,
    NewHead,
    load_head,
    update_head,
)
from namespaces.repository.packs import (
    PACK_FILE_RE,
    PACKS_DIR,
    Objects,
    PackFile,
    build_pack,
    copy_entries,
    drop_tree_cache,
    forget_local_copies,
)
from namespaces.repository.snapshot import Snapshot
from namespaces.repository.trees import Changes, make_commit, nest, reachable, write_tree
from namespaces.repository.values import (
    DEFAULT_AUTHOR,
    PurgeResult,
    check_author,
    check_prefix,
    format_message,
)
from namespaces.storage import ObjectStore, object_store

# A pack uploaded within this long before the marker is left to gc: S3 reports times
# to the second, so "before the marker" is only certain one second back.
_CLOCK_RESOLUTION = timedelta(seconds=1)

_COMMIT_ID_RE = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")

# drop(path, read) -> whether this version of ``path`` is purged; ``read()`` gives its
# bytes, so a caller deciding by path alone never reads a blob.
DropFn = Callable[[str, Callable[[], bytes]], bool]


class _Rewrite:
    """One purge's rewrite, kept across ``update_head`` rounds: a round that lost to
    another writer rewrites only the commits that writer added."""

    def __init__(self, drop: DropFn, redact: Callable[[str], str] | None) -> None:
        self.drop = drop
        self.redact = redact
        self.commits: dict[bytes, bytes] = {}  # old commit id -> new (or the same)
        self.trees: dict[tuple[bytes, str], bytes | None] = {}  # (tree, folder) -> new
        self.dropped: dict[tuple[str, bytes], bool] = {}  # (path, blob) -> dropped?
        # (tree, folder) -> the (path, blob) versions dropped below it
        self.tree_drops: dict[tuple[bytes, str], frozenset[tuple[str, bytes]]] = {}
        self.created: dict[bytes, ShaFile] = {}  # every object a round made

    def _make(self, objects: Objects, obj: ShaFile) -> bytes:
        self.created.setdefault(obj.id, obj)
        objects.add(obj)
        return obj.id

    def tree(self, objects: Objects, sha: bytes, base: str) -> bytes | None:
        """The tree without the dropped versions below it (None: nothing is left)."""
        key = (sha, base)
        if key in self.trees:
            return self.trees[key]
        old = objects.tree(sha)
        entries: list[tuple[bytes, int, bytes]] = []
        drops: set[tuple[str, bytes]] = set()
        changed = False
        for entry in old.iteritems():
            path = base + entry.path.decode("utf-8", errors="replace")
            if stat.S_ISDIR(entry.mode):
                new = self.tree(objects, entry.sha, path + "/")
                drops.update(self.tree_drops.get((entry.sha, path + "/"), ()))
                if new is None:
                    changed = True
                    continue
                changed = changed or new != entry.sha
                entries.append((entry.path, entry.mode, new))
                continue
            pair = (path, entry.sha)
            if pair not in self.dropped:
                blob = entry.sha
                self.dropped[pair] = bool(
                    self.drop(path, lambda blob=blob: objects[blob].as_raw_string())
                )
            if self.dropped[pair]:
                drops.add(pair)
                changed = True
                continue
            entries.append((entry.path, entry.mode, entry.sha))
        if not changed:
            result: bytes | None = sha
        elif not entries and base:
            result = None
        else:
            tree = Tree()
            for name, mode, entry_sha in entries:
                tree.add(name, mode, entry_sha)
            result = self._make(objects, tree)
        self.trees[key] = result
        if drops:
            self.tree_drops[key] = frozenset(drops)
        return result

    def commit(self, objects: Objects, head: bytes) -> bytes:
        """``head`` made again without the dropped versions (parents first)."""
        order: list[bytes] = []
        placed: set[bytes] = set()
        todo: list[tuple[bytes, bool]] = [(head, False)]
        while todo:  # post-order: every commit after all its parents
            sha, expanded = todo.pop()
            if sha in placed or sha in self.commits:
                continue
            if expanded:
                placed.add(sha)
                order.append(sha)
                continue
            todo.append((sha, True))
            todo.extend((p, False) for p in objects.commit(sha).parents)
        for sha in order:
            if sha in self.commits:
                continue
            old = objects.commit(sha)
            tree = self.tree(objects, old.tree, "")
            if tree is None:  # the root tree is never None; kept for the type checker
                tree = self._make(objects, Tree())
            parents = [self.commits[p] for p in old.parents]
            message = self._message(old.message)
            if tree == old.tree and parents == old.parents and message == old.message:
                self.commits[sha] = sha
                continue
            new = Commit()
            new.tree, new.parents, new.message = tree, parents, message
            new.author, new.committer = old.author, old.committer
            new.author_time, new.commit_time = old.author_time, old.commit_time
            new.author_timezone, new.commit_timezone = old.author_timezone, old.commit_timezone
            if old.encoding is not None:
                new.encoding = old.encoding
            self.commits[sha] = self._make(objects, new)
        return self.commits[head]

    def _message(self, message: bytes) -> bytes:
        """The message, redacted if asked, with the ids of commits this rewrite
        replaced (a revert's ``Gitloom-Reverts-Commit``, say) turned into their new
        ids, as ``git filter-repo`` does."""
        text = message.decode("utf-8", errors="replace")
        new = _COMMIT_ID_RE.sub(lambda m: self._new_id(m.group(0)), text)
        if self.redact is not None:
            new = self.redact(new)
        return message if new == text else new.encode()

    def _new_id(self, sha: str) -> str:
        return self.commits.get(sha.encode(), sha.encode()).decode()

    def dropped_below(self, objects: Objects, commits: set[bytes]) -> list[tuple[str, str]]:
        """The versions dropped from these commits (a round's history, not an earlier
        round's that another writer has rewritten since)."""
        found: set[tuple[str, bytes]] = set()
        for sha in commits:
            found.update(self.tree_drops.get((objects.commit(sha).tree, ""), ()))
        return sorted((path, blob.decode()) for path, blob in found)


def _pack_of(objects: Objects, head: bytes) -> PackFile:
    """One pack holding exactly what ``head`` reaches."""
    wanted = set(reachable(objects, head))
    fresh = [obj for sha, obj in objects.new.items() if sha in wanted]
    stored = {sha for sha in wanted if sha not in objects.new}
    pack = build_pack([*copy_entries(objects.packs, stored), *fresh])
    if pack.objects != len(wanted):
        raise RepositoryCorrupt("The repository is missing objects.")
    return pack


def repository_purge(
    *,
    prefix: str,
    drop: DropFn,
    message: str | Callable[[list[tuple[str, str]]], str],
    trailers: Mapping[str, str] | None = None,
    author: str = DEFAULT_AUTHOR,
    redact: Callable[[str], str] | None = None,
    finish: Callable[[Snapshot, list[tuple[str, str]]], Mapping[str, bytes | None]] | None = None,
) -> PurgeResult:
    """Drop every file version ``drop`` picks from every commit; see the module doc.

    ``drop(path, read)`` is asked once per distinct (path, blob) in history.
    ``message`` is the purge commit's message, or a function of the dropped versions
    that returns it.  ``redact(message)``, if given, rewrites every commit message
    (the purged text may be in a message).  ``finish(snapshot, dropped)`` gets the rewritten head and the
    dropped ``(path, blob)`` versions and returns the change the purge commit makes
    (``{}`` for none).  When nothing is dropped, nothing changes:
    ``PurgeResult.noop``.
    """
    check_prefix(prefix)
    describe = message if callable(message) else lambda _dropped: message
    format_message(describe([]), trailers or {})  # refused now rather than mid-way
    author_bytes = check_author(author)
    store = object_store()
    rewrite = _Rewrite(drop, redact)
    seen_packs: set[str] = set()  # every pack a head we read named, live or retired
    ours: set[str] = set()  # the packs we uploaded
    marker = _mark_start(store, prefix)

    def step(head: LoadedHead, attempt: int) -> NewHead[PurgeResult] | PurgeResult:
        manifest, objects = head.manifest, head.objects
        seen_packs.update(manifest.pack_names, (name for name, _at in manifest.retired))
        objects.new.update(rewrite.created)
        old_head = manifest.commit.encode()
        rewritten = rewrite.commit(objects, old_head)
        history = _reachable_commits(objects, old_head)
        dropped = rewrite.dropped_below(objects, history)
        if not dropped:
            return PurgeResult.nothing(manifest.commit, attempts=attempt)
        parent = objects.commit(rewritten)
        snapshot = Snapshot(commit=None, tree=parent.tree.decode(), objects=objects)
        wanted = dict(finish(snapshot, dropped)) if finish is not None else {}
        changes = Changes()
        tree = write_tree(objects, parent.tree, nest(wanted), "", changes)
        if tree is None:
            empty = Tree()
            objects.add(empty)
            tree = empty.id
        purge_commit = make_commit(
            tree=tree,
            parents=[rewritten],
            message=format_message(describe(dropped), trailers or {}),
            author=author_bytes,
        )
        objects.new[purge_commit.id] = purge_commit
        pack = _pack_of(objects, purge_commit.id)
        ours.add(pack.name)
        new = Manifest(commit=purge_commit.id.decode(), packs=(pack.ref,), retired=())
        replaced = {
            old.decode(): rewrite.commits[old].decode()
            for old in history
            if rewrite.commits[old] != old
        }

        def landed() -> PurgeResult:
            return PurgeResult(
                commit=new.commit,
                previous=manifest.commit,
                replaced=replaced,
                dropped=dropped,
                changed=changes.paths,
                pack=pack.name,
                objects=pack.objects,
                attempts=attempt,
            )

        return NewHead(new, pack, landed)

    try:
        result = update_head(store, prefix, step, read=load_head)
        if result.noop:
            return result
        deleted = _delete_old_packs(
            store, prefix, keep=result.pack, named=seen_packs | ours, marker=marker
        )
        forget_local_copies(store, prefix, keep={result.pack})
        drop_tree_cache({sha for (sha, _base), new in rewrite.trees.items() if new != sha})
        forget_walked_commits({old.encode() for old in result.replaced})
        return dataclasses.replace(result, deleted=deleted)
    finally:
        store.delete(marker)


def _reachable_commits(objects: Objects, head: bytes) -> set[bytes]:
    seen: set[bytes] = set()
    todo = [head]
    while todo:
        sha = todo.pop()
        if sha in seen:
            continue
        seen.add(sha)
        todo.extend(objects.commit(sha).parents)
    return seen


def _mark_start(store: ObjectStore, prefix: str) -> str:
    """An empty object whose time, on the store's own clock, is before anything this
    purge swaps: a pack uploaded before it cannot belong to a writer that will land
    after us (every such writer reads our head first, then uploads)."""
    key = f"{prefix}purging-{uuid.uuid4().hex}"
    store.put(key, b"")
    return key


def _delete_old_packs(
    store: ObjectStore, prefix: str, *, keep: str, named: set[str], marker: str
) -> list[str]:
    """Delete every pack that may hold a dropped object; returns the keys deleted.

    ``named``: every pack a head we read named, and ours; they are all replaced by
    ``keep``.  Any other pack is an orphan (a writer's lost round, a crash, a merge
    that lost): deleted if it was uploaded before ``marker``; a newer one may be a
    writer's that is about to land on our head, and is left for gc.
    """
    listed = store.list(prefix)
    marked = next((o.last_modified for o in listed if o.key == marker), None)
    deleted: list[str] = []
    for obj in listed:
        if not obj.key.startswith(prefix + PACKS_DIR):
            continue
        match = PACK_FILE_RE.fullmatch(obj.key.rsplit("/", 1)[-1])
        if match is None or match.group(1) == keep:
            continue
        name = match.group(1)
        orphan_before_us = marked is not None and obj.last_modified < marked - _CLOCK_RESOLUTION
        if name in named or orphan_before_us:
            store.delete(obj.key)
            deleted.append(obj.key)
    return deleted
