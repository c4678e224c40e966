"""What crosses the package's boundary: limits, result values, and the checks every
value a caller passes goes through (prefix, path, commit id, message, author)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Literal

from gitloom.core.errors import InvalidPath
from gitloom.core.slugs import SLUG_PATTERN
from namespaces.errors import (
    InvalidAuthor,
    InvalidBlobId,
    InvalidCommitId,
    InvalidCommitMessage,
    InvalidPrefix,
    InvalidTrailer,
)

DEFAULT_AUTHOR = "GitLoom <gitloom@localhost>"
BRANCH = b"refs/heads/main"

# More packs than this and a write merges the small ones itself (geometrically, so
# the merge costs about as much as the small packs).  A background job may call
# repository_consolidate earlier; this is the safety net that keeps reads fast even
# if no job runs.
AUTO_CONSOLIDATE_PACKS = 16
MAX_WRITE_ATTEMPTS = 64
DEFAULT_GC_GRACE = timedelta(hours=1)
# Bundle import limits: a bundle is attacker-controlled compressed data.
MAX_IMPORT_OBJECT_BYTES = 16 * 1024 * 1024
MAX_IMPORT_TOTAL_BYTES = 256 * 1024 * 1024
MAX_IMPORT_OBJECTS = 2_000_000
MAX_PATH_LENGTH = 1024

SHA_RE = re.compile(r"[0-9a-f]{40}")
_PREFIX_RE = re.compile(rf"{SLUG_PATTERN}#{SLUG_PATTERN}/")
_TRAILER_KEY_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,63}")
_TRAILER_LINE_RE = re.compile(r"([A-Za-z0-9][A-Za-z0-9-]{0,63}): (.*)")
_AUTHOR_RE = re.compile(r"[^<>\n\r\x00]+ <[^<>\n\r\x00]*>")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")


# =========================================================================== values


@dataclasses.dataclass(frozen=True)
class CommitResult:
    """What a write did.  ``commit == parent`` means nothing changed (no commit)."""

    commit: str
    parent: str | None
    created: list[str]
    modified: list[str]
    deleted: list[str]
    changed: list[str]
    uploaded_bytes: int = 0
    attempts: int = 1
    pack_count: int = 0

    @property
    def noop(self) -> bool:
        return self.commit == self.parent


@dataclasses.dataclass(frozen=True)
class TreeChange:
    kind: Literal["add", "modify", "delete"]
    path: str
    old_blob: str | None
    new_blob: str | None


@dataclasses.dataclass(frozen=True)
class LogEntry:
    commit: str
    time: datetime
    message: str
    trailers: dict[str, str]
    said: datetime | None = None  # the author date: when it was said (None: as ``time``)


@dataclasses.dataclass(frozen=True)
class Version:
    """One version of one file: the commit that made it and the diff to the last."""

    commit: str
    time: datetime
    author: str
    message: str
    trailers: dict[str, str]
    kind: Literal["add", "modify", "delete"]
    blob: str | None
    diff_text: str
    said: datetime | None = None  # the author date: when it was said (None: as ``time``)
    path: str = ""  # where the file was in this version (history follows moves)
    previous_path: str | None = None  # set on the version that moved it here from there


@dataclasses.dataclass(frozen=True)
class BlameCommit:
    """A commit that wrote lines of a blamed file, and the file as that commit left it
    (``content``: at most one memory file, so small) for its header's ``sources``."""

    commit: str
    time: datetime
    author: str
    message: str
    trailers: dict[str, str]
    blob: str
    content: bytes
    said: datetime | None = None  # the author date: when it was said (None: as ``time``)


@dataclasses.dataclass(frozen=True)
class BlameHunk:
    """Consecutive lines (1-based ``start``) last changed by the same ``commit``."""

    start: int
    lines: list[str]
    commit: str


@dataclasses.dataclass(frozen=True)
class Blame:
    """Each line of a file at ``commit`` (the head), with the commit that last changed
    it: ``hunks`` in file order, ``commits`` newest first, each once."""

    path: str
    commit: str
    blob: str
    hunks: list[BlameHunk]
    commits: list[BlameCommit]

    @property
    def line_count(self) -> int:
        return sum(len(hunk.lines) for hunk in self.hunks)


@dataclasses.dataclass(frozen=True)
class PathChange:
    """A file that differs between two commits, and the commit that last touched it."""

    path: str
    kind: Literal["add", "modify", "delete"]
    blob: str | None  # at the newer commit; None when deleted
    commit: str
    time: datetime
    trailers: dict[str, str]


@dataclasses.dataclass(frozen=True)
class ChangesPage:
    """One page of the files changed from ``since`` (None: the empty tree) to ``commit``,
    in path order; ``more`` when paths after the last one follow."""

    since: str | None
    commit: str
    changes: list[PathChange]
    more: bool


@dataclasses.dataclass(frozen=True)
class ConsolidateResult:
    packs_before: int
    packs_after: int
    merged_packs: int
    objects: int
    pack_bytes: int


@dataclasses.dataclass(frozen=True)
class PurgeResult:
    """What a purge did.  ``commit == previous`` means nothing matched (no change).

    ``replaced`` maps every commit id the rewrite replaced to its new id; ``dropped``
    lists the ``(path, blob)`` versions that are gone; ``changed`` the paths the purge
    commit itself changed; ``deleted`` the object-store keys deleted afterwards.
    """

    commit: str
    previous: str
    replaced: dict[str, str] = dataclasses.field(default_factory=dict)
    dropped: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    changed: list[str] = dataclasses.field(default_factory=list)
    pack: str = ""
    objects: int = 0
    attempts: int = 1
    deleted: list[str] = dataclasses.field(default_factory=list)

    @property
    def noop(self) -> bool:
        return self.commit == self.previous

    @property
    def paths(self) -> list[str]:
        return sorted({path for path, _blob in self.dropped})

    @classmethod
    def nothing(cls, commit: str, *, attempts: int = 1) -> PurgeResult:
        return cls(commit=commit, previous=commit, attempts=attempts)


@dataclasses.dataclass(frozen=True)
class GcResult:
    deleted: list[str]
    retired_pending: int


# =========================================================================== checks


def check_prefix(prefix: object) -> str:
    if not isinstance(prefix, str) or not _PREFIX_RE.fullmatch(prefix):
        raise InvalidPrefix(
            "Invalid repository prefix: expected '<account>#<namespace>/'.",
        )
    return prefix


def validate_path(path: object) -> str:
    """A file path the repository will store: relative, '/'-separated, plain names.

    Refused: empty segments, '.', '..', '.git' in any case, NUL and control
    characters, backslashes, '#' (a storage key separator), over-long paths.
    """
    if not isinstance(path, str) or not path:
        raise InvalidPath("A path must be a non-empty string.")
    try:
        encoded = path.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidPath("A path must be valid UTF-8.") from None
    if len(encoded) > MAX_PATH_LENGTH:
        raise InvalidPath("The path is too long.")
    if _CONTROL_RE.search(path) or "\\" in path or "#" in path:
        raise InvalidPath(f"Invalid character in path {path!r}.")
    for segment in path.split("/"):
        if segment in ("", ".", "..") or segment.lower() == ".git":
            raise InvalidPath(f"Invalid path {path!r}.")
        if len(segment.encode()) > 255:
            raise InvalidPath("A path segment is too long.")
    return path


def check_folder(folder: str) -> str:
    folder = folder.strip("/")
    if folder:
        validate_path(folder)
    return folder


def check_sha(value: object, *, what: str = "commit") -> str:
    if not isinstance(value, str) or not SHA_RE.fullmatch(value):
        raise (InvalidBlobId if what == "blob" else InvalidCommitId)(f"Invalid {what} id.")
    return value


def format_message(message: str, trailers: Mapping[str, str]) -> str:
    if not isinstance(message, str) or not message.strip():
        raise InvalidCommitMessage("A commit message is required.")
    if "\x00" in message or len(message) > 65536:
        raise InvalidCommitMessage("Invalid commit message.")
    lines = []
    for key, value in trailers.items():
        if not isinstance(key, str) or not _TRAILER_KEY_RE.fullmatch(key):
            raise InvalidTrailer(f"Invalid trailer name {key!r}.")
        if (
            not isinstance(value, str)
            or not value.strip()
            or _CONTROL_RE.search(value)
            or len(value) > 1000
        ):
            raise InvalidTrailer(f"Invalid value for trailer {key!r}.")
        lines.append(f"{key}: {value.strip()}")
    text = message.strip()
    if lines:
        text += "\n\n" + "\n".join(lines)
    return text + "\n"


MOVED_TRAILER = "Gitloom-Moved"
_MOVED_TRAILER_CHARS = 900  # under format_message's 1000 per trailer value


def moved_trailers(moved: Mapping[str, str]) -> dict[str, str]:
    """Trailers recording files that moved in a commit (``old -> new; ...``), as
    ``Gitloom-Moved``, ``Gitloom-Moved-2``, ... so history and blame can follow a file
    to where it was before (paths never hold ``;`` or spaces)."""
    values: list[str] = []
    for old, new in sorted(moved.items()):
        pair = f"{old} -> {new}"
        if values and len(values[-1]) + 2 + len(pair) <= _MOVED_TRAILER_CHARS:
            values[-1] += "; " + pair
        else:
            values.append(pair)
    return {
        MOVED_TRAILER if n == 1 else f"{MOVED_TRAILER}-{n}": value
        for n, value in enumerate(values, 1)
    }


def moves_of(trailers: Mapping[str, str]) -> dict[str, str]:
    """New path -> old path, from a commit's ``Gitloom-Moved`` trailers."""
    moves: dict[str, str] = {}
    for key, value in trailers.items():
        if key != MOVED_TRAILER and not key.startswith(MOVED_TRAILER + "-"):
            continue
        for pair in value.split(";"):
            old, arrow, new = pair.strip().partition(" -> ")
            if arrow and old and new:
                moves[new.strip()] = old.strip()
    return moves


def parse_message(text: str) -> tuple[str, dict[str, str]]:
    """Split a commit message into its text and its trailers (git's last paragraph)."""
    text = text.strip("\n")
    body, sep, last = text.rpartition("\n\n")
    if not sep:
        return text, {}
    trailers: dict[str, str] = {}
    for line in last.split("\n"):
        match = _TRAILER_LINE_RE.fullmatch(line)
        if not match:
            return text, {}
        trailers[match.group(1)] = match.group(2)
    return body.strip("\n"), trailers


def check_author(author: str) -> bytes:
    if not isinstance(author, str) or not _AUTHOR_RE.fullmatch(author):
        raise InvalidAuthor("Author must look like 'Name <email>'.")
    return author.encode()
