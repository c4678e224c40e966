"""Undoing one commit: what reverting it at the head would change, and what stands in
the way.

``repository_revert_plan`` reads one manifest and walks first parents from the head
(or a given commit) back to the commit to undo.  For each file that commit changed it
gives the blob before the commit, the blob the commit left and the blob now; a file
whose blob now is not the one the commit left is *in the way* (a later commit changed
or removed it, and reverting it would lose that change), and the plan names the later
commits that touched it.  A file changed and then changed back is not in the way: its
content is exactly what the commit left.  Nothing is written here; the caller commits
the change it builds from the plan (``repository_commit``), against the very head the
plan was made at.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from namespaces.errors import CommitNotInHistory
from namespaces.repository.manifest import load_head
from namespaces.repository.packs import Objects
from namespaces.repository.snapshot import Snapshot
from namespaces.repository.trees import blob_at, diff_trees
from namespaces.repository.values import LogEntry, check_prefix, check_sha, parse_message
from namespaces.storage import object_store

NOT_IN_HISTORY = "The commit to revert is not in this namespace's history."


@dataclasses.dataclass(frozen=True)
class RevertFile:
    """One file the commit changed, then and now."""

    path: str
    before: str | None  # the blob before the commit; None: the commit created the file
    after: str | None  # the blob the commit left; None: the commit deleted the file
    now: str | None  # the blob at the plan's head; None: there is no such file now
    changed_by: tuple[LogEntry, ...] = ()  # later commits that changed it, newest first

    @property
    def kind(self) -> str:
        """What the commit did to the file: ``add``, ``modify`` or ``delete``."""
        return "add" if self.before is None else "delete" if self.after is None else "modify"

    @property
    def in_the_way(self) -> bool:
        return self.now != self.after


@dataclasses.dataclass(frozen=True)
class RevertPlan:
    commit: str  # the commit to undo
    head: Snapshot  # the snapshot the plan was made at (read blobs through it)
    files: list[RevertFile]  # every file the commit changed, by path
    # The newest commit after ``commit`` carrying the ``marker`` trailer, if any. When
    # there is one, the plan is made at its parent: what the head was when it was made.
    marked: str | None = None


def _entry(sha: bytes, commit) -> LogEntry:
    text, trailers = parse_message(commit.message.decode("utf-8", errors="replace"))
    return LogEntry(
        commit=sha.decode(),
        time=datetime.fromtimestamp(commit.commit_time, tz=UTC),
        message=text,
        trailers=trailers,
        said=datetime.fromtimestamp(commit.author_time, tz=UTC),
    )


def _since(objects: Objects, start: bytes, commit: bytes) -> list[bytes]:
    """The first-parent chain from ``start`` down to, not including, ``commit``."""
    chain: list[bytes] = []
    sha: bytes | None = start
    while sha != commit:
        if sha is None:
            raise CommitNotInHistory(NOT_IN_HISTORY)
        chain.append(sha)
        parents = objects.commit(sha).parents
        sha = parents[0] if parents else None
    return chain


def repository_revert_plan(
    *,
    prefix: str,
    commit: str,
    at: str | None = None,
    marker: tuple[str, str] | None = None,
) -> RevertPlan:
    """What undoing ``commit`` at the head (or at commit ``at``) would be.

    ``commit`` must be in the first-parent history of the head (else
    ``CommitNotInHistory``).
    ``marker`` (a trailer name and value) looks for a later commit that already undid
    it; when there is one the plan is made at that commit's parent and names it in
    ``marked``, so the caller can answer as it did then.
    """
    check_prefix(prefix)
    target = check_sha(commit).encode()
    head = load_head(object_store(), prefix)
    objects = head.objects
    start = check_sha(at).encode() if at else head.manifest.commit.encode()
    try:
        chain = _since(objects, start, target)
    except KeyError:
        raise CommitNotInHistory(NOT_IN_HISTORY) from None
    marked = None
    if marker is not None:
        name, value = marker
        for index, sha in enumerate(chain):
            if _entry(sha, objects.commit(sha)).trailers.get(name) == value:
                marked = sha.decode()
                chain = chain[index + 1 :]
                start = objects.commit(sha).parents[0]
                break
    undone = objects.commit(target)
    parent_tree = objects.commit(undone.parents[0]).tree.decode() if undone.parents else None
    head_tree = objects.commit(start).tree
    files = []
    for change in diff_trees(objects, parent_tree, undone.tree.decode()):
        now = blob_at(objects, head_tree, change.path)
        file = RevertFile(
            path=change.path,
            before=change.old_blob,
            after=change.new_blob,
            now=now.decode() if now else None,
        )
        if file.in_the_way:
            file = dataclasses.replace(file, changed_by=_changed_by(objects, chain, file.path))
        files.append(file)
    snapshot = Snapshot(commit=start.decode(), tree=head_tree.decode(), objects=objects)
    return RevertPlan(
        commit=commit, head=snapshot, files=sorted(files, key=lambda f: f.path), marked=marked
    )


def _changed_by(objects: Objects, chain: list[bytes], path: str) -> tuple[LogEntry, ...]:
    """The commits of ``chain`` (newest first) whose change touched ``path``."""
    found = []
    for sha in chain:
        commit = objects.commit(sha)
        parent = objects.commit(commit.parents[0]) if commit.parents else None
        old = blob_at(objects, parent.tree, path) if parent is not None else None
        if blob_at(objects, commit.tree, path) != old:
            found.append(_entry(sha, commit))
    return tuple(found)
