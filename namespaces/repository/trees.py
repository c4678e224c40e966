"""Trees and commits: applying a change to a tree, diffing two trees, walking what a
commit reaches.  Only trees on a changed path are read or rebuilt."""

from __future__ import annotations

import dataclasses
import stat
import time
from collections.abc import Iterable, Mapping
from typing import Any

from dulwich.diff_tree import CHANGE_ADD, CHANGE_DELETE, tree_changes
from dulwich.objects import Blob, Commit, Tree

from namespaces.errors import InvalidContent, PathConflict
from namespaces.repository.packs import Objects
from namespaces.repository.values import TreeChange, validate_path

FILE_MODE = 0o100644
DIR_MODE = 0o040000
ALLOWED_FILE_MODES = (0o100644, 0o100755)
EMPTY_TREE = Tree().id.decode()


@dataclasses.dataclass
class Changes:
    created: list[str] = dataclasses.field(default_factory=list)
    modified: list[str] = dataclasses.field(default_factory=list)
    deleted: list[str] = dataclasses.field(default_factory=list)

    @classmethod
    def of(cls, changes: Iterable[TreeChange]) -> Changes:
        out = cls()
        for change in changes:
            if change.kind == "add":
                out.created.append(change.path)
            elif change.kind == "modify":
                out.modified.append(change.path)
            else:
                out.deleted.append(change.path)
        return out

    @property
    def paths(self) -> list[str]:
        return sorted(self.created + self.modified + self.deleted)


def nest(changes: Mapping[str, bytes | None]) -> dict[str, Any]:
    """``{"a/b/c.md": data}`` -> ``{"a": {"b": {"c.md": Blob}}}`` (None = delete)."""
    root: dict[str, Any] = {}
    for path, data in changes.items():
        validate_path(path)
        if data is not None and not isinstance(data, bytes | bytearray | memoryview):
            raise InvalidContent(f"Content for {path!r} must be bytes or None.")
        *folders, name = path.split("/")
        node = root
        for folder in folders:
            child = node.setdefault(folder, {})
            if not isinstance(child, dict):
                raise PathConflict(f"{path!r} is inside a file.")
            node = child
        if isinstance(node.get(name), dict):
            raise PathConflict(f"{path!r} is also a folder.")
        node[name] = None if data is None else Blob.from_string(bytes(data))
    return root


def write_tree(
    objects: Objects, tree_id: bytes | None, node: dict[str, Any], base: str, out: Changes
) -> bytes | None:
    """Apply one folder's changes; returns the new tree id (None if it is now empty).

    Only trees on a changed path are read or rebuilt: untouched folders keep their
    ids, which is what makes tree diffs (and index updates) proportional to change.
    """
    old = objects.tree(tree_id) if tree_id is not None else None
    entries: dict[bytes, tuple[int, bytes]] = (
        {e.path: (e.mode, e.sha) for e in old.iteritems()} if old is not None else {}
    )
    changed = False
    for name, change in node.items():
        key = name.encode()
        path = base + name
        existing = entries.get(key)
        if isinstance(change, dict):
            if existing is not None and not stat.S_ISDIR(existing[0]):
                raise PathConflict(f"{path!r} is a file, not a folder.")
            sub = write_tree(objects, existing[1] if existing else None, change, path + "/", out)
            if sub is None:
                if existing is not None:
                    del entries[key]
                    changed = True
            elif existing is None or existing[1] != sub:
                entries[key] = (DIR_MODE, sub)
                changed = True
        elif change is None:
            if existing is None:
                continue
            if stat.S_ISDIR(existing[0]):
                raise PathConflict(f"{path!r} is a folder, not a file.")
            del entries[key]
            out.deleted.append(path)
            changed = True
        else:
            if existing is not None and stat.S_ISDIR(existing[0]):
                raise PathConflict(f"{path!r} is a folder, not a file.")
            if existing is not None and existing[1] == change.id:
                continue
            mode = existing[0] if existing is not None else FILE_MODE
            entries[key] = (mode, change.id)
            objects.add(change)
            (out.modified if existing is not None else out.created).append(path)
            changed = True
    if not changed:
        return tree_id
    if not entries:
        return None
    tree = Tree()
    for key, (mode, sha) in entries.items():
        tree.add(key, mode, sha)
    objects.add(tree)
    return tree.id


def make_commit(
    *,
    tree: bytes,
    parents: list[bytes],
    message: str,
    author: bytes,
    when: int | None = None,
    said: int | None = None,
) -> Commit:
    """A commit made ``when`` (default now). Its author date is ``said``, when the change
    was said (a job's conversation), else the same: git's two times per commit are
    GitLoom's two clocks, when a thing was said and when it was stored."""
    commit = Commit()
    commit.tree = tree
    commit.parents = parents
    commit.author = commit.committer = author
    commit.commit_time = int(time.time()) if when is None else when
    commit.author_time = commit.commit_time if said is None else min(said, commit.commit_time)
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = message.encode("utf-8")
    return commit


def entry_at(objects: Objects, tree: bytes, path: str) -> tuple[int, bytes] | None:
    """``(mode, id)`` of whatever is at ``path`` below ``tree``, or ``None``."""
    mode, sha = DIR_MODE, tree
    for segment in path.split("/"):
        if not stat.S_ISDIR(mode):
            return None
        t = objects.tree(sha)
        name = segment.encode()
        if name not in t:
            return None
        mode, sha = t[name]
    return mode, sha


def blob_at(objects: Objects, tree: bytes, path: str) -> bytes | None:
    entry = entry_at(objects, tree, path)
    return None if entry is None or stat.S_ISDIR(entry[0]) else entry[1]


def diff_trees(objects: Objects, old_tree: str | None, new_tree: str) -> list[TreeChange]:
    changes = []
    for change in tree_changes(objects, old_tree.encode() if old_tree else None, new_tree.encode()):
        if change.type == CHANGE_ADD:
            changes.append(
                TreeChange("add", change.new.path.decode(), None, change.new.sha.decode())
            )
        elif change.type == CHANGE_DELETE:
            changes.append(
                TreeChange("delete", change.old.path.decode(), change.old.sha.decode(), None)
            )
        else:
            changes.append(
                TreeChange(
                    "modify",
                    change.new.path.decode(),
                    change.old.sha.decode(),
                    change.new.sha.decode(),
                )
            )
    return changes


def reachable(objects: Objects, head: bytes) -> list[bytes]:
    """Every object reachable from ``head``: commits, trees, blobs (blobs unread)."""
    seen: set[bytes] = set()
    order: list[bytes] = []
    commits = [head]
    while commits:
        sha = commits.pop()
        if sha in seen:
            continue
        seen.add(sha)
        order.append(sha)
        commit = objects.commit(sha)
        commits.extend(commit.parents)
        _walk_tree(objects, commit.tree, seen, order)
    return order


def reachable_tree(objects: Objects, tree: bytes) -> list[bytes]:
    out: list[bytes] = []
    _walk_tree(objects, tree, set(), out)
    return out


def _walk_tree(objects: Objects, tree: bytes, seen: set[bytes], out: list[bytes]) -> None:
    """Append ``tree`` and everything below it not yet in ``seen`` to ``out``."""
    todo = [tree]
    while todo:
        sha = todo.pop()
        if sha in seen:
            continue
        seen.add(sha)
        out.append(sha)
        for entry in objects.tree(sha).iteritems():
            if stat.S_ISDIR(entry.mode):
                todo.append(entry.sha)
            elif entry.sha not in seen:
                seen.add(entry.sha)
                out.append(entry.sha)
