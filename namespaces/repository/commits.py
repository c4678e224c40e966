"""Writing: creating a repository, and committing a change to its head."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime

from dulwich.objects import Tree

from namespaces.repository.manifest import (
    HEAD_KEY,
    Head,
    LoadedHead,
    Manifest,
    NewHead,
    find_head,
    load_head,
    read_head,
    update_head,
)
from namespaces.repository.packs import PackFile, build_pack, upload_pack
from namespaces.repository.snapshot import Snapshot
from namespaces.repository.trees import Changes, make_commit, nest, write_tree
from namespaces.repository.upkeep import repository_consolidate
from namespaces.repository.values import (
    AUTO_CONSOLIDATE_PACKS,
    DEFAULT_AUTHOR,
    CommitResult,
    check_author,
    check_prefix,
    format_message,
)
from namespaces.storage import object_store

logger = logging.getLogger(__name__)


def repository_init(
    *,
    prefix: str,
    message: str = "Create namespace",
    trailers: Mapping[str, str] | None = None,
    author: str = DEFAULT_AUTHOR,
) -> str:
    """Create the namespace's repository with one empty root commit; idempotent.

    Returns the head commit (the existing one if the repository already exists).
    The root commit makes every repository exportable and clonable from the start.
    """
    check_prefix(prefix)
    store = object_store()
    existing = find_head(store, prefix)
    if existing is not None:
        return existing.manifest.commit
    tree = Tree()
    commit = make_commit(
        tree=tree.id,
        parents=[],
        message=format_message(message, trailers or {}),
        author=check_author(author),
    )
    pack = build_pack([tree, commit])
    upload_pack(store, prefix, pack)
    manifest = Manifest(commit=commit.id.decode(), packs=(pack.ref,))
    if store.put_if_absent(prefix + HEAD_KEY, manifest.to_bytes()):
        return manifest.commit
    # Someone initialised it first; ours is an orphan pack for gc.
    return read_head(store, prefix).manifest.commit


def unchanged(head: Head, *, attempts: int) -> CommitResult:
    """The result of a write that found nothing to change on ``head``."""
    return CommitResult(
        commit=head.manifest.commit,
        parent=head.manifest.commit,
        created=[],
        modified=[],
        deleted=[],
        changed=[],
        attempts=attempts,
        pack_count=len(head.manifest.packs),
    )


def landed(
    head: Head, new: Manifest, pack: PackFile, changes: Changes, *, attempts: int
) -> CommitResult:
    """The result of a write that put ``new`` (with ``pack``) in place of ``head``."""
    return CommitResult(
        commit=new.commit,
        parent=head.manifest.commit,
        created=sorted(changes.created),
        modified=sorted(changes.modified),
        deleted=sorted(changes.deleted),
        changed=changes.paths,
        uploaded_bytes=len(pack.data) + len(pack.index) + len(new.to_bytes()),
        attempts=attempts,
        pack_count=len(new.packs),
    )


def repository_commit(
    *,
    prefix: str,
    apply: Callable[[Snapshot], Mapping[str, bytes | None]],
    message: str,
    trailers: Mapping[str, str] | None = None,
    author: str = DEFAULT_AUTHOR,
    said: datetime | None = None,
) -> CommitResult:
    """Apply a change to the head and commit it; retried until it lands.

    ``said``: when what the change records was said (the author date; default now, and
    never later than the commit date).

    ``apply`` receives the current snapshot and returns ``{path: bytes}`` to write
    files and ``{path: None}`` to delete them.  It may be called more than once (each
    time another writer got in first, with the newer snapshot), so it must compute its
    change from the snapshot it is given.  An empty mapping, or one that changes
    nothing, makes no commit.
    """
    check_prefix(prefix)
    full_message = format_message(message, trailers or {})
    author_bytes = check_author(author)

    def step(head: LoadedHead, attempt: int) -> NewHead[CommitResult] | CommitResult:
        manifest, objects = head.manifest, head.objects
        parent = objects.commit(manifest.commit.encode())
        snapshot = Snapshot(commit=manifest.commit, tree=parent.tree.decode(), objects=objects)
        wanted = apply(snapshot)
        if not isinstance(wanted, Mapping):
            raise TypeError("apply() must return a mapping of path -> bytes | None")
        changes = Changes()
        new_tree = write_tree(objects, parent.tree, nest(wanted), "", changes)
        if new_tree is None:
            empty = Tree()
            objects.add(empty)
            new_tree = empty.id
        if not changes.paths:
            return unchanged(head, attempts=attempt)
        commit = make_commit(
            tree=new_tree,
            parents=[parent.id],
            message=full_message,
            author=author_bytes,
            said=None if said is None else int(said.timestamp()),
        )
        objects.new[commit.id] = commit
        pack = build_pack(objects.new.values())
        new = Manifest(
            commit=commit.id.decode(),
            packs=(pack.ref, *manifest.packs),
            retired=manifest.retired,
        )

        def on_landed() -> CommitResult:
            result = landed(head, new, pack, changes, attempts=attempt)
            objects.cache_new_trees()
            if len(new.packs) > AUTO_CONSOLIDATE_PACKS:
                try:
                    repository_consolidate(prefix=prefix)
                except Exception:  # the write landed; a failed merge is retried later
                    logger.exception("consolidating %s failed", prefix)
            return result

        return NewHead(new, pack, on_landed)

    return update_head(object_store(), prefix, step, read=load_head)
