"""History: the commits of a namespace, and every version of one file."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Literal

from namespaces.repository.manifest import load_head
from namespaces.repository.trees import blob_at
from namespaces.repository.values import (
    LogEntry,
    Version,
    check_prefix,
    check_sha,
    parse_message,
    validate_path,
)
from namespaces.storage import object_store


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
        )
        count += 1
        sha = commit.parents[0] if commit.parents else None


def repository_path_log(*, prefix: str, path: str, limit: int | None = None) -> list[Version]:
    """Every version of one file, newest first, each with a unified diff to the one
    before (following first parents, as ``git log --first-parent -- path``)."""
    check_prefix(prefix)
    validate_path(path)
    head = load_head(object_store(), prefix)
    objects = head.objects
    versions: list[Version] = []
    commit = objects.commit(head.manifest.commit.encode())
    blob = blob_at(objects, commit.tree, path)
    while True:
        parent = objects.commit(commit.parents[0]) if commit.parents else None
        parent_blob = blob_at(objects, parent.tree, path) if parent is not None else None
        if blob != parent_blob:
            old_text = _decode_text(objects[parent_blob].as_raw_string()) if parent_blob else []
            new_text = _decode_text(objects[blob].as_raw_string()) if blob else []
            diff = "".join(
                difflib.unified_diff(
                    old_text,
                    new_text,
                    fromfile=f"a/{path}" if parent_blob else "/dev/null",
                    tofile=f"b/{path}" if blob else "/dev/null",
                )
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
                )
            )
            if limit is not None and len(versions) >= limit:
                break
        if parent is None:
            break
        commit, blob = parent, parent_blob
    return versions
