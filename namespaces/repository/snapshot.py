"""Reading: a whole, immutable view of one commit's tree."""

from __future__ import annotations

import stat
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime

from dulwich.objects import Blob, Commit

from namespaces.errors import BlobNotFound, CommitNotFound
from namespaces.repository.manifest import find_head, load_head
from namespaces.repository.packs import Objects
from namespaces.repository.trees import diff_trees, entry_at
from namespaces.repository.values import (
    TreeChange,
    check_folder,
    check_prefix,
    check_sha,
    validate_path,
)
from namespaces.storage import object_store


class Snapshot:
    """A whole, immutable view of one commit's tree."""

    def __init__(self, *, commit: str | None, tree: str, objects: Objects) -> None:
        self.commit = commit
        self.tree = tree
        self._objects = objects

    def __repr__(self) -> str:
        return f"Snapshot(commit={self.commit!r}, tree={self.tree!r})"

    def _entry(self, path: str) -> tuple[int, bytes] | None:
        validate_path(path)
        return entry_at(self._objects, self.tree.encode(), path)

    def blob_id(self, path: str) -> str | None:
        """The blob hash of a file, or ``None`` if there is no file at ``path``."""
        entry = self._entry(path)
        if entry is None or stat.S_ISDIR(entry[0]):
            return None
        return entry[1].decode()

    def tree_id(self, path: str = "") -> str | None:
        """The tree hash of a folder (``""`` is the root), or ``None``."""
        folder = check_folder(path)
        if not folder:
            return self.tree
        entry = self._entry(folder)
        if entry is None or not stat.S_ISDIR(entry[0]):
            return None
        return entry[1].decode()

    def exists(self, path: str) -> bool:
        return self.blob_id(path) is not None

    def read(self, path: str) -> bytes | None:
        """A file's bytes, or ``None`` if there is no file at ``path``."""
        sha = self.blob_id(path)
        if sha is None:
            return None
        return self.read_blob(sha)

    def read_blob(self, blob: str) -> bytes:
        """A blob's bytes by its hash (e.g. from ``walk`` or a ``TreeChange``)."""
        obj = self._objects.find(check_sha(blob, what="blob").encode())
        if not isinstance(obj, Blob):
            raise BlobNotFound("No such blob.")
        return obj.as_raw_string()

    def changes_since(self, old: str | None) -> list[TreeChange]:
        """File changes from commit ``old`` (``None``: the empty tree) to this snapshot.

        Unchanged folders are skipped by tree id without being read.
        """
        old_tree = None
        if old:
            try:
                old_tree = self._objects.commit(check_sha(old).encode()).tree.decode()
            except KeyError:
                raise CommitNotFound("No such commit in this namespace.") from None
        return diff_trees(self._objects, old_tree, self.tree)

    def at(self, commit: str) -> Snapshot:
        """The snapshot of another commit of the same repository (the same objects)."""
        return snapshot_at(self._objects, check_sha(commit))[0]

    def first_parents(
        self, *, stop: str | None = None
    ) -> tuple[list[tuple[str, datetime, datetime]], bool]:
        """This snapshot's commit and its first-parent ancestors, oldest first, as
        ``(commit, commit time, author time)``, back to ``stop`` (excluded) or to the root commit.
        The flag says whether ``stop`` was met: False means it is not an ancestor
        (or ``stop`` is None), and the list then runs from the root."""
        chain: list[tuple[str, datetime, datetime]] = []
        sha = self.commit.encode() if self.commit else None
        stop_bytes = stop.encode() if stop else None
        while sha is not None:
            if sha == stop_bytes:
                chain.reverse()
                return chain, True
            commit = self._objects.commit(sha)
            chain.append(
                (
                    sha.decode(),
                    datetime.fromtimestamp(commit.commit_time, tz=UTC),
                    datetime.fromtimestamp(commit.author_time, tz=UTC),
                )
            )
            sha = commit.parents[0] if commit.parents else None
        chain.reverse()
        return chain, False

    def changes_to(self, files: Mapping[str, bytes]) -> dict[str, bytes | None]:
        """The change that makes this snapshot hold exactly ``files``: every given
        file written, every other file deleted.  For imports that replace a tree:
        ``repository_commit(apply=lambda s: s.changes_to(files), ...)``."""
        changes: dict[str, bytes | None] = {path: None for path, _ in self.walk()}
        changes.update(files)
        return changes

    def walk(self, prefix: str = "") -> Iterator[tuple[str, str]]:
        """Every file under a folder as ``(path, blob hash)``, in git's tree order."""
        folder = check_folder(prefix)
        start = self.tree_id(folder)
        if start is None:
            return
        stack: list[tuple[str, bytes]] = [(folder, start.encode())]
        while stack:
            base, sha = stack.pop()
            tree = self._objects.tree(sha)
            subdirs = []
            for entry in tree.iteritems():
                path = f"{base}/{entry.path.decode()}" if base else entry.path.decode()
                if stat.S_ISDIR(entry.mode):
                    subdirs.append((path, entry.sha))
                else:
                    yield path, entry.sha.decode()
            stack.extend(reversed(subdirs))

    def paths(self, prefix: str = "") -> list[str]:
        return [path for path, _ in self.walk(prefix)]


def snapshot_at(objects: Objects, commit: str) -> tuple[Snapshot, Commit]:
    """The snapshot of ``commit`` (which must be among ``objects``) and the commit."""
    try:
        commit_obj = objects.commit(commit.encode())
    except KeyError:
        raise CommitNotFound("No such commit in this namespace.") from None
    return Snapshot(commit=commit, tree=commit_obj.tree.decode(), objects=objects), commit_obj


def repository_head(*, prefix: str) -> str | None:
    """The head commit, or ``None`` if the namespace has no repository."""
    check_prefix(prefix)
    head = find_head(object_store(), prefix)
    return None if head is None else head.manifest.commit


def repository_snapshot(*, prefix: str, commit: str | None = None) -> Snapshot:
    """A whole view of the head (or of ``commit``, which must be in this repository)."""
    check_prefix(prefix)
    head = load_head(object_store(), prefix)
    sha = head.manifest.commit if commit is None else check_sha(commit)
    return snapshot_at(head.objects, sha)[0]


def repository_diff(*, prefix: str, old: str | None, new: str) -> list[TreeChange]:
    """File changes from commit ``old`` (``None``: the empty tree) to commit ``new``."""
    return repository_snapshot(prefix=prefix, commit=new).changes_since(old)
