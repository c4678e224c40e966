"""History: the commits of a namespace, every version of one file, who wrote each line
of a file (blame), and which files changed since a commit."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Literal

from dulwich.objects import Commit

from namespaces.errors import CommitNotInHistory
from namespaces.repository.linediff import matching_blocks, unified_diff
from namespaces.repository.manifest import load_head
from namespaces.repository.packs import Objects, _LRUCache
from namespaces.repository.trees import blob_at, diff_trees
from namespaces.repository.values import (
    Blame,
    BlameCommit,
    BlameHunk,
    ChangesPage,
    LogEntry,
    PathChange,
    TreeChange,
    Version,
    check_prefix,
    check_sha,
    moves_of,
    parse_message,
    validate_path,
)
from namespaces.storage import object_store

# Parsed commits by id, for the walks along first parents below: reading and parsing a
# commit is most of what a walk costs, and blame, changes and history walk the same
# commits again and again. Commits are immutable and named by their content, and only
# ids reached from a repository's own head (its head, then parents) go through here,
# never an id a caller gave, so a cached commit is always one of that repository's.
_walked_commits = _LRUCache(20_000)


def _parent(objects: Objects, commit: Commit) -> Commit | None:
    """The first parent of ``commit`` (which must be on a walk from the head), parsed."""
    if not commit.parents:
        return None
    return _walked(objects, commit.parents[0])


def _walked(objects: Objects, sha: bytes) -> Commit:
    commit = _walked_commits.get(sha)
    if commit is None:
        commit = objects.commit(sha)
        _walked_commits.put(sha, commit)
    return commit


def clear_walked_commits() -> None:
    _walked_commits.clear()


def forget_walked_commits(commits: set[bytes]) -> None:
    """Forget these parsed commits (a purge replaced them; their messages may hold what
    it erased)."""
    _walked_commits.drop_where(lambda sha: sha in commits)


def _decode_text(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def repository_log(
    *, prefix: str, start: str | None = None, limit: int | None = None
) -> Iterator[LogEntry]:
    """Commits newest first from ``start`` (default: the head), following first parents."""
    check_prefix(prefix)
    head = load_head(object_store(), prefix)
    objects = head.objects
    sha: bytes | None = check_sha(start).encode() if start else head.manifest.commit.encode()
    count = 0
    while sha is not None and (limit is None or count < limit):
        commit = objects.commit(sha)
        text, trailers = parse_message(commit.message.decode("utf-8", errors="replace"))
        yield LogEntry(
            commit=sha.decode(),
            time=datetime.fromtimestamp(commit.commit_time, tz=UTC),
            message=text,
            trailers=trailers,
            said=datetime.fromtimestamp(commit.author_time, tz=UTC),
        )
        count += 1
        sha = commit.parents[0] if commit.parents else None


def _moved_from(commit: Commit, path: str) -> str | None:
    """The path ``path`` had before ``commit`` moved it there (its ``Gitloom-Moved``
    trailer), if it did."""
    _, trailers = parse_message(commit.message.decode("utf-8", errors="replace"))
    return moves_of(trailers).get(path)


def _before(objects: Objects, commit: Commit, parent: Commit | None, path: str, blob):
    """The path and blob the file at ``path`` (blob ``blob``) had in ``parent``: the same
    path, or where a move recorded in ``commit`` brought it from."""
    if parent is None:
        return path, None
    parent_blob = blob_at(objects, parent.tree, path)
    if parent_blob is None and blob is not None:
        old = _moved_from(commit, path)
        if old is not None:
            return old, blob_at(objects, parent.tree, old)
    return path, parent_blob


def repository_path_log(*, prefix: str, path: str, limit: int | None = None) -> list[Version]:
    """Every version of one file, newest first, each with a unified diff to the one
    before (following first parents, as ``git log --first-parent --follow -- path``:
    across a move a commit recorded in its ``Gitloom-Moved`` trailer, the versions
    before it are the old path's, and the move's diff goes from the old path)."""
    check_prefix(prefix)
    validate_path(path)
    head = load_head(object_store(), prefix)
    objects = head.objects
    versions: list[Version] = []
    commit = objects.commit(head.manifest.commit.encode())
    blob = blob_at(objects, commit.tree, path)
    while True:
        parent = _parent(objects, commit)
        parent_path, parent_blob = _before(objects, commit, parent, path, blob)
        if blob != parent_blob or parent_path != path:
            old_text = _decode_text(objects[parent_blob].as_raw_string()) if parent_blob else []
            new_text = _decode_text(objects[blob].as_raw_string()) if blob else []
            diff = unified_diff(
                old_text,
                new_text,
                fromfile=f"a/{parent_path}" if parent_blob else "/dev/null",
                tofile=f"b/{path}" if blob else "/dev/null",
            )
            text, trailers = parse_message(commit.message.decode("utf-8", errors="replace"))
            kind: Literal["add", "modify", "delete"] = (
                "add" if parent_blob is None else "delete" if blob is None else "modify"
            )
            versions.append(
                Version(
                    commit=commit.id.decode(),
                    time=datetime.fromtimestamp(commit.commit_time, tz=UTC),
                    author=commit.author.decode("utf-8", errors="replace"),
                    message=text,
                    trailers=trailers,
                    kind=kind,
                    blob=blob.decode() if blob else None,
                    diff_text=diff,
                    said=datetime.fromtimestamp(commit.author_time, tz=UTC),
                    path=path,
                    previous_path=parent_path if parent_path != path else None,
                )
            )
            if limit is not None and len(versions) >= limit:
                break
        if parent is None:
            break
        commit, blob, path = parent, parent_blob, parent_path
    return versions


# =========================================================================== blame


def _byte_lines(data: bytes) -> list[bytes]:
    """Lines as git counts them: split at ``\\n`` only, each keeping its ``\\n``."""
    lines = data.split(b"\n")
    last = lines.pop()
    out = [line + b"\n" for line in lines]
    if last:
        out.append(last)
    return out


def _line_text(line: bytes) -> str:
    return line.decode("utf-8", errors="replace").rstrip("\n").removesuffix("\r")


def _blame_commit(commit: Commit, blob: bytes, content: bytes) -> BlameCommit:
    text, trailers = parse_message(commit.message.decode("utf-8", errors="replace"))
    return BlameCommit(
        commit=commit.id.decode(),
        time=datetime.fromtimestamp(commit.commit_time, tz=UTC),
        author=commit.author.decode("utf-8", errors="replace"),
        message=text,
        trailers=trailers,
        blob=blob.decode(),
        content=content,
        said=datetime.fromtimestamp(commit.author_time, tz=UTC),
    )


def repository_blame(*, prefix: str, path: str) -> Blame | None:
    """Each line of the file at the head with the commit that last changed it, as
    ``git blame --first-parent`` would say; ``None`` when there is no file at ``path``.

    Walks first parents from the head. Where the file's blob differs from its parent's,
    difflib matches the two versions' lines: the lines the parent already had are
    carried back to it, the others belong to this commit. The walk stops as soon as
    every line has its commit (at the latest where the file was added), so its cost is
    the commits back to the oldest surviving line, and one diff per version of the file.
    """
    check_prefix(prefix)
    validate_path(path)
    head = load_head(object_store(), prefix)
    objects = head.objects
    commit = objects.commit(head.manifest.commit.encode())
    blob = blob_at(objects, commit.tree, path)
    if blob is None:
        return None
    head_blob, head_path = blob, path
    content = objects[blob].as_raw_string()
    lines = _byte_lines(content)
    owners: list[str] = [""] * len(lines)
    commits: dict[str, BlameCommit] = {}
    # line index in the version being looked at -> line index at the head
    pending = {index: index for index in range(len(lines))}
    while pending:
        parent = _parent(objects, commit)
        parent_path, parent_blob = _before(objects, commit, parent, path, blob)
        if parent is not None and parent_blob == blob:
            commit, path = parent, parent_path  # unchanged, or moved as it was
            continue
        carried: dict[int, int] = {}
        parent_content = b""
        parent_lines: list[bytes] = []
        if parent_blob is not None:
            parent_content = objects[parent_blob].as_raw_string()
            parent_lines = _byte_lines(parent_content)
            for old, new, size in matching_blocks(parent_lines, lines):
                for offset in range(size):
                    at_head = pending.get(new + offset)
                    if at_head is not None:
                        carried[old + offset] = at_head
        kept = set(carried.values())
        written = [at_head for at_head in pending.values() if at_head not in kept]
        if written:
            entry = _blame_commit(commit, blob, content)
            commits[entry.commit] = entry
            for at_head in written:
                owners[at_head] = entry.commit
        if parent is None or parent_blob is None:
            break
        pending = carried
        commit, blob, content, lines = parent, parent_blob, parent_content, parent_lines
        path = parent_path
    hunks: list[BlameHunk] = []
    head_lines = _byte_lines(objects[head_blob].as_raw_string())
    for index, (line, owner) in enumerate(zip(head_lines, owners, strict=True)):
        if hunks and hunks[-1].commit == owner:
            hunks[-1].lines.append(_line_text(line))
        else:
            hunks.append(BlameHunk(start=index + 1, lines=[_line_text(line)], commit=owner))
    return Blame(
        path=head_path,
        commit=head.manifest.commit,
        blob=head_blob.decode(),
        hunks=hunks,
        commits=list(commits.values()),
    )


# =========================================================================== changes


def _first_parent_chain(
    objects: Objects, head: bytes, *, until: bytes, since: bytes | None
) -> list[Commit]:
    """The commits from ``until`` back to, not including, ``since`` (``None``: back to
    the root), following first parents from ``head``; both must be on that line."""
    chain: list[Commit] = []
    reached_until = False
    sha: bytes | None = head
    while sha is not None:
        if sha == until:
            reached_until = True
        if reached_until and sha == since:
            return chain
        commit = _walked(objects, sha)
        if reached_until:
            chain.append(commit)
        sha = commit.parents[0] if commit.parents else None
    if reached_until and since is None:
        return chain
    raise CommitNotInHistory()


def repository_changes(
    *,
    prefix: str,
    since: str | None,
    until: str | None = None,
    after: str | None = None,
    limit: int | None = None,
) -> ChangesPage:
    """The files that differ between commit ``since`` (``None``: the empty tree, so
    every file is added) and ``until`` (default: the head), in path order from the first
    path after ``after``, at most ``limit``; each with the commit that last touched it.

    Both commits must be on the head's first-parent line (``CommitNotInHistory``
    otherwise: a commit of another repository, or one a rewrite of history removed).
    The set is one tree diff (unchanged folders skipped by id); "last touched" walks
    first parents back from ``until``, comparing each commit with its parent along the
    page's paths only, until every path of the page has its commit.
    """
    check_prefix(prefix)
    since_sha = check_sha(since).encode() if since is not None else None
    head = load_head(object_store(), prefix)
    objects = head.objects
    head_sha = head.manifest.commit.encode()
    until_sha = check_sha(until).encode() if until is not None else head_sha
    chain = _first_parent_chain(objects, head_sha, until=until_sha, since=since_sha)
    if not chain:
        return ChangesPage(since=since, commit=until_sha.decode(), changes=[], more=False)
    if since_sha is None:
        # A full listing: only the page's files are read, in path order, not the tree.
        wanted = None if limit is None else limit + 1
        changed = list(_files_after(objects, chain[0].tree, "", after, wanted))
    else:
        old_tree = objects.commit(since_sha).tree.decode()
        changed = sorted(
            diff_trees(objects, old_tree, chain[0].tree.decode()),
            key=lambda change: change.path,
        )
        if after is not None:
            changed = [change for change in changed if change.path > after]
    more = limit is not None and len(changed) > limit
    if limit is not None:
        changed = changed[:limit]
    base_tree = objects.commit(since_sha).tree if since_sha is not None else None
    touched = _last_touched(objects, chain, base_tree, {change.path for change in changed})
    changes = []
    for change in changed:
        commit = touched[change.path]
        _text, trailers = parse_message(commit.message.decode("utf-8", errors="replace"))
        changes.append(
            PathChange(
                path=change.path,
                kind=change.kind,
                blob=change.new_blob,
                commit=commit.id.decode(),
                time=datetime.fromtimestamp(commit.commit_time, tz=UTC),
                trailers=trailers,
            )
        )
    return ChangesPage(since=since, commit=until_sha.decode(), changes=changes, more=more)


def _files_after(
    objects: Objects, tree: bytes, base: str, after: str | None, wanted: int | None
) -> Iterator[TreeChange]:
    """Every file below ``tree`` whose path sorts after ``after``, as an add, in path
    order (git's tree order is that order: a folder sorts as its name and a ``/``);
    folders wholly at or before ``after`` are skipped unread. At most ``wanted``."""
    count = 0
    for entry in objects.tree(tree).iteritems():
        if wanted is not None and count >= wanted:
            return
        path = base + entry.path.decode()
        if stat.S_ISDIR(entry.mode):
            folder = path + "/"
            if after is not None and after > folder and not after.startswith(folder):
                continue
            left = None if wanted is None else wanted - count
            for change in _files_after(objects, entry.sha, folder, after, left):
                count += 1
                yield change
        elif after is None or path > after:
            count += 1
            yield TreeChange("add", path, None, entry.sha.decode())


def _last_touched(
    objects: Objects, chain: list[Commit], base_tree: bytes | None, paths: set[str]
) -> dict[str, Commit]:
    """For each path, the newest commit of ``chain`` (newest first; ``base_tree`` is the
    tree before its oldest) that changed it. Each commit is compared with its parent
    only along the pending paths, and not below a folder whose tree id is unchanged."""
    found: dict[str, Commit] = {}
    pending: dict[str, Any] = {}
    for path in paths:
        *folders, name = path.split("/")
        node = pending
        for folder in folders:
            node = node.setdefault(folder, {})
        node[name] = None
    parent_trees = [commit.tree for commit in chain[1:]] + [base_tree]
    for commit, parent_tree in zip(chain, parent_trees, strict=True):
        if not pending:
            break
        for path in _touched(objects, parent_tree, commit.tree, pending, ""):
            found[path] = commit
    return found


def _touched(
    objects: Objects, old: bytes | None, new: bytes | None, node: dict[str, Any], base: str
) -> list[str]:
    """The paths of ``node`` (nested folders -> ``None`` leaves) whose entry differs
    between trees ``old`` and ``new``; they are removed from ``node`` (and so are folders
    left empty), so each path is found once: at its newest change."""
    if old == new:
        return []
    old_tree = objects.tree(old) if old is not None else None
    new_tree = objects.tree(new) if new is not None else None
    out: list[str] = []
    for name, child in list(node.items()):
        key = name.encode()
        old_entry = old_tree[key] if old_tree is not None and key in old_tree else None
        new_entry = new_tree[key] if new_tree is not None and key in new_tree else None
        if child is None:
            if old_entry != new_entry:
                out.append(base + name)
                del node[name]
            continue
        out += _touched(objects, _subtree(old_entry), _subtree(new_entry), child, f"{base}{name}/")
        if not child:
            del node[name]
    return out


def _subtree(entry: tuple[int, bytes] | None) -> bytes | None:
    return entry[1] if entry is not None and stat.S_ISDIR(entry[0]) else None
