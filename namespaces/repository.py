"""One git repository per namespace, kept in object storage, updated by compare-and-swap.

This is the only module that speaks git (dulwich).  Callers pass plain values —
a key prefix from ``namespaces.storage.namespace_prefix``, paths, bytes — and get
back plain dataclasses.

Storage layout under a namespace prefix ``<account>#<namespace>/``::

    head.json                      the manifest: head commit + the packs that hold
                                   every object reachable from it (mutable, CAS only)
    packs/pack-<sha1>.pack         immutable git pack files, named by their own
    packs/pack-<sha1>.idx          trailing checksum, with their v2 index

A write builds the new blobs, trees and one commit with dulwich objects (no index,
no working tree), writes them as one small pack, uploads pack + index, then swaps
``head.json`` with a conditional write against the exact version it read.  The loser
of a race reloads, re-applies its change to the new head and tries again, so two
writers both land, one after the other, and history stays linear.  Readers read one
manifest and see exactly that commit's tree: a whole snapshot or nothing.

Cost is proportional to the change: a write reads the manifest, opens packs from a
per-process local cache (``<store.cache_dir>/<prefix>/``, filled once per pack) and
touches only the trees on the changed paths.  Many small packs are merged
(``repository_consolidate``, geometric so merging stays cheap); objects left behind
by a lost race or a crash, and packs replaced by a merge, are deleted by
``repository_gc`` once older than a grace period, never while a reader may need them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import gzip
import hashlib
import io
import json
import logging
import os
import random
import re
import shutil
import stat
import struct
import tarfile
import tempfile
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from dulwich.diff_tree import CHANGE_ADD, CHANGE_DELETE, tree_changes
from dulwich.errors import ObjectFormatException
from dulwich.object_format import DEFAULT_OBJECT_FORMAT
from dulwich.objects import Blob, Commit, ShaFile, Tag, Tree
from dulwich.pack import (
    OFS_DELTA,
    REF_DELTA,
    Pack,
    PackData,
    PackInflater,
    load_pack_index,
    pack_object_header,
    unpack_object_at,
    write_pack_index_v2,
)

from gitloom.errors import (
    Conflict,
    InvalidInput,
    NamespaceNotFound,
    NotFound,
    PayloadTooLarge,
    ServiceUnavailable,
)
from namespaces.storage import ObjectStore, object_store

__all__ = [
    "AUTO_CONSOLIDATE_PACKS",
    "DEFAULT_AUTHOR",
    "CommitResult",
    "ConsolidateResult",
    "GcResult",
    "Snapshot",
    "TreeChange",
    "Version",
    "repository_commit",
    "repository_consolidate",
    "repository_delete",
    "repository_diff",
    "repository_export_bundle",
    "repository_export_tar",
    "repository_gc",
    "repository_head",
    "repository_import_bundle",
    "repository_init",
    "repository_path_log",
    "repository_snapshot",
    "validate_path",
]

logger = logging.getLogger(__name__)

DEFAULT_AUTHOR = "GitLoom <gitloom@localhost>"
HEAD_KEY = "head.json"
PACKS_DIR = "packs/"
MANIFEST_FORMAT = "gitloom-head/1"
BRANCH = b"refs/heads/main"
EMPTY_TREE = Tree().id.decode()

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

_FILE_MODE = 0o100644
_DIR_MODE = 0o040000
_ALLOWED_FILE_MODES = (0o100644, 0o100755)
_PREFIX_RE = re.compile(r"[a-z0-9-]{1,64}#[a-z0-9-]{1,64}/")
_SHA_RE = re.compile(r"[0-9a-f]{40}")
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


@dataclasses.dataclass(frozen=True)
class ConsolidateResult:
    packs_before: int
    packs_after: int
    merged_packs: int
    objects: int
    pack_bytes: int


@dataclasses.dataclass(frozen=True)
class GcResult:
    deleted: list[str]
    retired_pending: int


@dataclasses.dataclass(frozen=True)
class _PackRef:
    name: str
    objects: int
    size: int


@dataclasses.dataclass(frozen=True)
class _Manifest:
    commit: str
    packs: tuple[_PackRef, ...]
    retired: tuple[tuple[str, str], ...] = ()  # (pack name, ISO time it left `packs`)

    def to_bytes(self) -> bytes:
        body = {
            "format": MANIFEST_FORMAT,
            "commit": self.commit,
            "packs": [{"name": p.name, "objects": p.objects, "size": p.size} for p in self.packs],
            "retired": [{"name": n, "at": at} for n, at in self.retired],
        }
        return json.dumps(body, separators=(",", ":"), sort_keys=True).encode()

    @classmethod
    def from_bytes(cls, data: bytes) -> _Manifest:
        try:
            body = json.loads(data)
            if body.get("format") != MANIFEST_FORMAT:
                raise ValueError(f"unknown manifest format {body.get('format')!r}")
            commit = body["commit"]
            packs = tuple(
                _PackRef(name=p["name"], objects=int(p["objects"]), size=int(p["size"]))
                for p in body["packs"]
            )
            retired = tuple((r["name"], r["at"]) for r in body.get("retired", []))
        except (ValueError, KeyError, TypeError) as exc:
            raise ServiceUnavailable(
                f"The repository head is unreadable: {exc}", code="repository_corrupt"
            ) from exc
        for name in [commit, *(p.name for p in packs), *(n for n, _ in retired)]:
            if not isinstance(name, str) or not _SHA_RE.fullmatch(name):
                raise ServiceUnavailable(
                    "The repository head is unreadable.", code="repository_corrupt"
                )
        return cls(commit=commit, packs=packs, retired=retired)

    @property
    def pack_names(self) -> set[str]:
        return {p.name for p in self.packs}


# =========================================================================== validation


def _check_prefix(prefix: object) -> str:
    if not isinstance(prefix, str) or not _PREFIX_RE.fullmatch(prefix):
        raise InvalidInput(
            "Invalid repository prefix: expected '<account>#<namespace>/'.",
            code="invalid_prefix",
        )
    return prefix


def validate_path(path: object) -> str:
    """A file path the repository will store: relative, '/'-separated, plain names.

    Refused: empty segments, '.', '..', '.git' in any case, NUL and control
    characters, backslashes, '#' (a storage key separator), over-long paths.
    """
    if not isinstance(path, str) or not path:
        raise InvalidInput("A path must be a non-empty string.", code="invalid_path")
    try:
        encoded = path.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput("A path must be valid UTF-8.", code="invalid_path") from None
    if len(encoded) > MAX_PATH_LENGTH:
        raise InvalidInput("The path is too long.", code="invalid_path")
    if _CONTROL_RE.search(path) or "\\" in path or "#" in path:
        raise InvalidInput(f"Invalid character in path {path!r}.", code="invalid_path")
    for segment in path.split("/"):
        if segment in ("", ".", "..") or segment.lower() == ".git":
            raise InvalidInput(f"Invalid path {path!r}.", code="invalid_path")
        if len(segment.encode()) > 255:
            raise InvalidInput("A path segment is too long.", code="invalid_path")
    return path


def _check_folder(folder: str) -> str:
    folder = folder.strip("/")
    if folder:
        validate_path(folder)
    return folder


def _check_sha(value: object, *, what: str = "commit") -> str:
    if not isinstance(value, str) or not _SHA_RE.fullmatch(value):
        raise InvalidInput(f"Invalid {what} id.", code=f"invalid_{what}")
    return value


def _format_message(message: str, trailers: Mapping[str, str]) -> str:
    if not isinstance(message, str) or not message.strip():
        raise InvalidInput("A commit message is required.", code="invalid_message")
    if "\x00" in message or len(message) > 65536:
        raise InvalidInput("Invalid commit message.", code="invalid_message")
    lines = []
    for key, value in trailers.items():
        if not isinstance(key, str) or not _TRAILER_KEY_RE.fullmatch(key):
            raise InvalidInput(f"Invalid trailer name {key!r}.", code="invalid_trailer")
        if (
            not isinstance(value, str)
            or not value.strip()
            or _CONTROL_RE.search(value)
            or len(value) > 1000
        ):
            raise InvalidInput(f"Invalid value for trailer {key!r}.", code="invalid_trailer")
        lines.append(f"{key}: {value.strip()}")
    text = message.strip()
    if lines:
        text += "\n\n" + "\n".join(lines)
    return text + "\n"


def _parse_message(text: str) -> tuple[str, dict[str, str]]:
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


def _check_author(author: str) -> bytes:
    if not isinstance(author, str) or not _AUTHOR_RE.fullmatch(author):
        raise InvalidInput("Author must look like 'Name <email>'.", code="invalid_author")
    return author.encode()


# =========================================================================== packs


class _QuietPack(Pack):
    """A pack from the local cache.  Closed when dropped: readers may still hold a
    pack after the process cache evicts it, so eviction itself never closes."""

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


class _LRUCache:
    """A thread-safe least-recently-used cache whose capacity is a total weight
    (``weigh(value)``, 1 per value by default)."""

    def __init__(self, capacity: int, weigh: Callable[[Any], int] = lambda value: 1) -> None:
        self._capacity = capacity
        self._weigh = weigh
        self._weight = 0
        self._values: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            if key in self._values:
                self._values.move_to_end(key)
                return
            self._values[key] = value
            self._weight += self._weigh(value)
            while self._weight > self._capacity and len(self._values) > 1:
                _key, old = self._values.popitem(last=False)
                self._weight -= self._weigh(old)

    def drop_where(self, predicate: Callable[[Any], bool]) -> None:
        with self._lock:
            for key in [k for k in self._values if predicate(k)]:
                self._weight -= self._weigh(self._values.pop(key))

    def clear(self) -> None:
        with self._lock:
            self._values.clear()
            self._weight = 0


# Opened (mmapped) packs by local path: bounded so a process serving thousands of
# namespaces does not run out of file descriptors.
_pack_cache = _LRUCache(512)
# Parsed trees by id. Trees are immutable and the same folders are read by every write
# to a namespace; parsing a 200-entry tree costs more than finding it. Bounded by total
# entries (a parsed entry costs ~100 bytes of Python objects).
_tree_cache = _LRUCache(200_000, weigh=lambda tree: len(tree) + 1)


class _PackMissing(Exception):
    """A pack named by a manifest is not in the store (collected under a slow reader)."""


def _pack_key(prefix: str, name: str, ext: str) -> str:
    return f"{prefix}{PACKS_DIR}pack-{name}.{ext}"


def _cache_dir(store: ObjectStore, prefix: str) -> Path:
    return Path(store.cache_dir) / prefix.rstrip("/")


def _file_sha1_ok(path: Path, name: str) -> bool:
    """A pack file ends with the SHA-1 of everything before it; its name is that SHA."""
    size = path.stat().st_size
    if size < 32:
        return False
    digest = hashlib.sha1(usedforsecurity=False)
    with open(path, "rb") as f:
        remaining = size - 20
        while remaining:
            chunk = f.read(min(remaining, 1 << 20))
            if not chunk:
                return False
            digest.update(chunk)
            remaining -= len(chunk)
        trailer = f.read(20)
    return digest.digest() == trailer == bytes.fromhex(name)


def _write_cache_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _ensure_cached(store: ObjectStore, prefix: str, name: str) -> str:
    """Local path (without extension) of a verified copy of one pack and its index."""
    base = _cache_dir(store, prefix) / f"pack-{name}"
    pack_path, idx_path = base.with_suffix(".pack"), base.with_suffix(".idx")
    if pack_path.exists() and idx_path.exists():
        return str(base)
    for ext, path in (("pack", pack_path), ("idx", idx_path)):
        if path.exists():
            continue
        if not store.fetch_to_file(_pack_key(prefix, name, ext), path):
            raise _PackMissing(name)
    # Verify what came over the wire before anyone reads it: the pack's own trailer
    # must match its content-addressed name, and the index must describe that pack.
    ok = _file_sha1_ok(pack_path, name)
    if ok:
        try:
            index = load_pack_index(str(idx_path), DEFAULT_OBJECT_FORMAT)
            try:
                index.check()
                ok = index.get_pack_checksum() == bytes.fromhex(name)
            finally:
                index.close()
        except Exception:
            ok = False
    if not ok:
        for path in (pack_path, idx_path):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        raise ServiceUnavailable(f"Pack {name} failed verification.", code="repository_corrupt")
    return str(base)


def _open_pack(store: ObjectStore, prefix: str, name: str) -> _QuietPack:
    base = str(_cache_dir(store, prefix) / f"pack-{name}")
    pack = _pack_cache.get(base)
    if pack is not None:
        return pack
    _ensure_cached(store, prefix, name)
    pack = _QuietPack(base, object_format=DEFAULT_OBJECT_FORMAT)
    try:
        pack.index  # noqa: B018 — load both now so a bad cache file fails here
        pack.data  # noqa: B018
    except Exception:
        pack.close()
        # A cache file damaged after it was verified (a crash mid-rename, a full
        # disk): drop it and fetch again once.
        for ext in (".pack", ".idx"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(base + ext)
        _ensure_cached(store, prefix, name)
        pack = _QuietPack(base, object_format=DEFAULT_OBJECT_FORMAT)
    _pack_cache.put(base, pack)
    return pack


class _Objects:
    """Object lookup across one manifest's packs, plus objects not yet written.

    Duck-types the object-store interface dulwich's tree diff needs.
    """

    def __init__(self, packs: list[Pack]) -> None:
        self.packs = packs
        self.new: dict[bytes, ShaFile] = {}

    def _find(self, sha: bytes) -> ShaFile | None:
        obj = self.new.get(sha)
        if obj is not None:
            return obj
        tree = _tree_cache.get(sha)
        if tree is not None:
            return tree
        for pack in self.packs:
            if sha in pack:
                obj = pack[sha]
                if isinstance(obj, Tree):
                    _tree_cache.put(obj.id, obj)
                return obj
        return None

    def __getitem__(self, sha: bytes) -> ShaFile:
        obj = self._find(sha)
        if obj is None:
            raise KeyError(sha)
        return obj

    def __contains__(self, sha: bytes) -> bool:
        if sha in self.new:
            return True
        return any(sha in pack for pack in self.packs)

    def get_raw(self, sha: bytes) -> tuple[int, bytes]:
        obj = self[sha]
        return obj.type_num, obj.as_raw_string()

    def add(self, obj: ShaFile) -> None:
        """Remember a new object, unless the repository already has it."""
        if obj.id not in self.new and not any(obj.id in p for p in self.packs):
            self.new[obj.id] = obj

    def tree(self, sha: bytes) -> Tree:
        obj = self[sha]
        if not isinstance(obj, Tree):
            raise ServiceUnavailable("A tree object is not a tree.", code="repository_corrupt")
        return obj

    def commit(self, sha: bytes) -> Commit:
        obj = self[sha]
        if not isinstance(obj, Commit):
            raise NotFound("No such commit.", code="commit_not_found")
        return obj


# A pack entry ready to write: (binary object id, header + zlib-compressed body).
_Entry = tuple[bytes, bytes]


def _entry_of(obj: ShaFile) -> _Entry:
    raw = obj.as_raw_string()
    header = pack_object_header(obj.type_num, None, len(raw), DEFAULT_OBJECT_FORMAT)
    return obj.sha().digest(), bytes(header) + zlib.compress(raw)


def _pack_bytes(
    items: Iterable[ShaFile | _Entry],
) -> tuple[bytes, bytes, list[tuple[bytes, int, int]]]:
    """A git pack (v2, whole objects, no deltas) from objects or ready entries.

    Returns (pack bytes, trailing checksum, index entries).  Written here rather than
    with dulwich's generic writer: for a bulk load of 100,000 memories its per-chunk
    generators cost more than the compression; the format is the same.
    """
    out = bytearray(12)
    entries: list[tuple[bytes, int, int]] = []
    for item in items:
        sha, data = item if isinstance(item, tuple) else _entry_of(item)
        entries.append((sha, len(out), zlib.crc32(data)))
        out += data
    out[0:12] = b"PACK" + struct.pack(">LL", 2, len(entries))
    checksum = hashlib.sha1(out, usedforsecurity=False).digest()
    out += checksum
    return bytes(out), checksum, entries


def _build_pack(items: Iterable[ShaFile | _Entry]) -> tuple[str, bytes, bytes, int]:
    """One pack and its v2 index; returns (name, pack bytes, idx bytes, object count)."""
    pack, checksum, entries = _pack_bytes(items)
    entries.sort()
    idx = io.BytesIO()
    write_pack_index_v2(idx, entries, checksum)
    return checksum.hex(), pack, idx.getvalue(), len(entries)


def _upload_pack(store: ObjectStore, prefix: str, name: str, pack: bytes, idx: bytes) -> None:
    # Plain puts: the names are content addresses, so a repeat writes the same bytes
    # (and refreshes the object's age, which keeps gc's grace period honest).
    store.put_many({_pack_key(prefix, name, "pack"): pack, _pack_key(prefix, name, "idx"): idx})
    # This process will read the pack next; keep a copy rather than fetch it back.
    base = _cache_dir(store, prefix) / f"pack-{name}"
    _write_cache_file(base.with_suffix(".pack"), pack)
    _write_cache_file(base.with_suffix(".idx"), idx)


# =========================================================================== head


def _read_manifest(store: ObjectStore, prefix: str) -> tuple[_Manifest, str] | None:
    found = store.get_versioned(prefix + HEAD_KEY)
    if found is None:
        return None
    data, etag = found
    return _Manifest.from_bytes(data), etag


def _require_manifest(store: ObjectStore, prefix: str) -> tuple[_Manifest, str]:
    found = _read_manifest(store, prefix)
    if found is None:
        raise NamespaceNotFound("This namespace has no repository.")
    return found


def _swap_head(store: ObjectStore, prefix: str, manifest: _Manifest, etag: str) -> bool:
    """The commit point of every write: replace exactly the head we read, or lose."""
    return store.put_if_match(prefix + HEAD_KEY, manifest.to_bytes(), etag)


def _objects_for(store: ObjectStore, prefix: str, manifest: _Manifest) -> _Objects:
    # Newest packs first: recent trees and blobs are the ones a write reads.
    return _Objects([_open_pack(store, prefix, p.name) for p in manifest.packs])


def _load(store: ObjectStore, prefix: str) -> tuple[_Manifest, str, _Objects]:
    """Read the head and open its packs, re-reading the head if a pack vanished."""
    last_error: _PackMissing | None = None
    for _ in range(3):
        manifest, etag = _require_manifest(store, prefix)
        try:
            return manifest, etag, _objects_for(store, prefix, manifest)
        except _PackMissing as exc:
            last_error = exc
    raise ServiceUnavailable(
        f"The repository is missing pack {last_error}.", code="repository_corrupt"
    )


def _backoff(attempt: int) -> None:
    time.sleep(random.uniform(0, min(0.25, 0.002 * (2 ** min(attempt, 8)))))


# =========================================================================== snapshot


class Snapshot:
    """A whole, immutable view of one commit's tree."""

    def __init__(self, *, commit: str | None, tree: str, objects: _Objects) -> None:
        self.commit = commit
        self.tree = tree
        self._objects = objects

    def __repr__(self) -> str:
        return f"Snapshot(commit={self.commit!r}, tree={self.tree!r})"

    def _entry(self, path: str) -> tuple[int, bytes] | None:
        validate_path(path)
        mode, sha = _DIR_MODE, self.tree.encode()
        for segment in path.split("/"):
            if not stat.S_ISDIR(mode):
                return None
            tree = self._objects.tree(sha)
            name = segment.encode()
            if name not in tree:
                return None
            mode, sha = tree[name]
        return mode, sha

    def blob_id(self, path: str) -> str | None:
        """The blob hash of a file, or ``None`` if there is no file at ``path``."""
        entry = self._entry(path)
        if entry is None or stat.S_ISDIR(entry[0]):
            return None
        return entry[1].decode()

    def tree_id(self, path: str = "") -> str | None:
        """The tree hash of a folder (``""`` is the root), or ``None``."""
        folder = _check_folder(path)
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
        obj = self._objects._find(_check_sha(blob, what="blob").encode())
        if not isinstance(obj, Blob):
            raise NotFound("No such blob.", code="blob_not_found")
        return obj.as_raw_string()

    def changes_since(self, old: str | None) -> list[TreeChange]:
        """File changes from commit ``old`` (``None``: the empty tree) to this snapshot.

        Unchanged folders are skipped by tree id without being read.
        """
        old_tree = None
        if old:
            try:
                old_tree = self._objects.commit(_check_sha(old).encode()).tree.decode()
            except KeyError:
                raise NotFound(
                    "No such commit in this namespace.", code="commit_not_found"
                ) from None
        return _tree_changes(self._objects, old_tree, self.tree)

    def changes_to(self, files: Mapping[str, bytes]) -> dict[str, bytes | None]:
        """The change that makes this snapshot hold exactly ``files``: every given
        file written, every other file deleted.  For imports that replace a tree:
        ``repository_commit(apply=lambda s: s.changes_to(files), ...)``."""
        changes: dict[str, bytes | None] = {path: None for path, _ in self.walk()}
        changes.update(files)
        return changes

    def walk(self, prefix: str = "") -> Iterator[tuple[str, str]]:
        """Every file under a folder as ``(path, blob hash)``, in git's tree order."""
        folder = _check_folder(prefix)
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


# =========================================================================== trees


@dataclasses.dataclass
class _Changes:
    created: list[str] = dataclasses.field(default_factory=list)
    modified: list[str] = dataclasses.field(default_factory=list)
    deleted: list[str] = dataclasses.field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return sorted(self.created + self.modified + self.deleted)


def _nest(changes: Mapping[str, bytes | None]) -> dict[str, Any]:
    """``{"a/b/c.md": data}`` -> ``{"a": {"b": {"c.md": Blob}}}`` (None = delete)."""
    root: dict[str, Any] = {}
    for path, data in changes.items():
        validate_path(path)
        if data is not None and not isinstance(data, bytes | bytearray | memoryview):
            raise InvalidInput(
                f"Content for {path!r} must be bytes or None.", code="invalid_content"
            )
        *folders, name = path.split("/")
        node = root
        for folder in folders:
            child = node.setdefault(folder, {})
            if not isinstance(child, dict):
                raise InvalidInput(f"{path!r} is inside a file.", code="path_conflict")
            node = child
        if isinstance(node.get(name), dict):
            raise InvalidInput(f"{path!r} is also a folder.", code="path_conflict")
        node[name] = None if data is None else Blob.from_string(bytes(data))
    return root


def _write_tree(
    objects: _Objects, tree_id: bytes | None, node: dict[str, Any], base: str, out: _Changes
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
                raise InvalidInput(f"{path!r} is a file, not a folder.", code="path_conflict")
            sub = _write_tree(objects, existing[1] if existing else None, change, path + "/", out)
            if sub is None:
                if existing is not None:
                    del entries[key]
                    changed = True
            elif existing is None or existing[1] != sub:
                entries[key] = (_DIR_MODE, sub)
                changed = True
        elif change is None:
            if existing is None:
                continue
            if stat.S_ISDIR(existing[0]):
                raise InvalidInput(f"{path!r} is a folder, not a file.", code="path_conflict")
            del entries[key]
            out.deleted.append(path)
            changed = True
        else:
            if existing is not None and stat.S_ISDIR(existing[0]):
                raise InvalidInput(f"{path!r} is a folder, not a file.", code="path_conflict")
            if existing is not None and existing[1] == change.id:
                continue
            mode = existing[0] if existing is not None else _FILE_MODE
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


def _make_commit(
    *, tree: bytes, parents: list[bytes], message: str, author: bytes, when: int | None = None
) -> Commit:
    commit = Commit()
    commit.tree = tree
    commit.parents = parents
    commit.author = commit.committer = author
    commit.author_time = commit.commit_time = int(time.time()) if when is None else when
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = message.encode("utf-8")
    return commit


def _tree_changes(objects: _Objects, old_tree: str | None, new_tree: str) -> list[TreeChange]:
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


# =========================================================================== public API


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
    _check_prefix(prefix)
    store = object_store()
    existing = _read_manifest(store, prefix)
    if existing is not None:
        return existing[0].commit
    tree = Tree()
    commit = _make_commit(
        tree=tree.id,
        parents=[],
        message=_format_message(message, trailers or {}),
        author=_check_author(author),
    )
    name, pack, idx, _count = _build_pack([tree, commit])
    _upload_pack(store, prefix, name, pack, idx)
    manifest = _Manifest(commit=commit.id.decode(), packs=(_PackRef(name, 2, len(pack)),))
    if store.put_if_absent(prefix + HEAD_KEY, manifest.to_bytes()):
        return manifest.commit
    # Someone initialised it first; ours is an orphan pack for gc.
    return _require_manifest(store, prefix)[0].commit


def repository_head(*, prefix: str) -> str | None:
    """The head commit, or ``None`` if the namespace has no repository."""
    _check_prefix(prefix)
    found = _read_manifest(object_store(), prefix)
    return None if found is None else found[0].commit


def repository_snapshot(*, prefix: str, commit: str | None = None) -> Snapshot:
    """A whole view of the head (or of ``commit``, which must be in this repository)."""
    _check_prefix(prefix)
    manifest, _etag, objects = _load(object_store(), prefix)
    sha = manifest.commit if commit is None else _check_sha(commit)
    try:
        commit_obj = objects.commit(sha.encode())
    except KeyError:
        raise NotFound("No such commit in this namespace.", code="commit_not_found") from None
    return Snapshot(commit=sha, tree=commit_obj.tree.decode(), objects=objects)


def repository_commit(
    *,
    prefix: str,
    apply: Callable[[Snapshot], Mapping[str, bytes | None]],
    message: str,
    trailers: Mapping[str, str] | None = None,
    author: str = DEFAULT_AUTHOR,
) -> CommitResult:
    """Apply a change to the head and commit it; retried until it lands.

    ``apply`` receives the current snapshot and returns ``{path: bytes}`` to write
    files and ``{path: None}`` to delete them.  It may be called more than once (each
    time another writer got in first, with the newer snapshot), so it must compute its
    change from the snapshot it is given.  An empty mapping, or one that changes
    nothing, makes no commit.
    """
    _check_prefix(prefix)
    full_message = _format_message(message, trailers or {})
    author_bytes = _check_author(author)
    store = object_store()
    for attempt in range(1, MAX_WRITE_ATTEMPTS + 1):
        manifest, etag, objects = _load(store, prefix)
        head = objects.commit(manifest.commit.encode())
        snapshot = Snapshot(commit=manifest.commit, tree=head.tree.decode(), objects=objects)
        wanted = apply(snapshot)
        if not isinstance(wanted, Mapping):
            raise TypeError("apply() must return a mapping of path -> bytes | None")
        changes = _Changes()
        new_tree = _write_tree(objects, head.tree, _nest(wanted), "", changes)
        if new_tree is None:
            empty = Tree()
            objects.add(empty)
            new_tree = empty.id
        if not changes.paths:
            return CommitResult(
                commit=manifest.commit,
                parent=manifest.commit,
                created=[],
                modified=[],
                deleted=[],
                changed=[],
                attempts=attempt,
                pack_count=len(manifest.packs),
            )
        commit = _make_commit(
            tree=new_tree, parents=[head.id], message=full_message, author=author_bytes
        )
        objects.new[commit.id] = commit
        name, pack, idx, _count = _build_pack(objects.new.values())
        _upload_pack(store, prefix, name, pack, idx)
        new_manifest = _Manifest(
            commit=commit.id.decode(),
            packs=(_PackRef(name, len(objects.new), len(pack)), *manifest.packs),
            retired=manifest.retired,
        )
        if _swap_head(store, prefix, new_manifest, etag):
            uploaded = len(pack) + len(idx) + len(new_manifest.to_bytes())
            # The next write to this namespace reads these very trees.
            for obj in objects.new.values():
                if isinstance(obj, Tree):
                    _tree_cache.put(obj.id, obj)
            if len(new_manifest.packs) > AUTO_CONSOLIDATE_PACKS:
                try:
                    repository_consolidate(prefix=prefix)
                except Exception:  # the write landed; a failed merge is retried later
                    logger.exception("consolidating %s failed", prefix)
            return CommitResult(
                commit=commit.id.decode(),
                parent=manifest.commit,
                created=sorted(changes.created),
                modified=sorted(changes.modified),
                deleted=sorted(changes.deleted),
                changed=changes.paths,
                uploaded_bytes=uploaded,
                attempts=attempt,
                pack_count=len(new_manifest.packs),
            )
        _backoff(attempt)
    raise Conflict(
        "The namespace is too busy to write right now; try again.", code="write_conflict"
    )


def repository_diff(*, prefix: str, old: str | None, new: str) -> list[TreeChange]:
    """File changes from commit ``old`` (``None``: the empty tree) to commit ``new``."""
    return repository_snapshot(prefix=prefix, commit=new).changes_since(old)


def _blob_at(objects: _Objects, tree: bytes, path: str) -> bytes | None:
    mode, sha = _DIR_MODE, tree
    for segment in path.split("/"):
        if not stat.S_ISDIR(mode):
            return None
        t = objects.tree(sha)
        name = segment.encode()
        if name not in t:
            return None
        mode, sha = t[name]
    return None if stat.S_ISDIR(mode) else sha


def _decode_text(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


@dataclasses.dataclass(frozen=True)
class LogEntry:
    commit: str
    time: datetime
    message: str
    trailers: dict[str, str]


def repository_log(
    *, prefix: str, start: str | None = None, limit: int | None = None
) -> Iterator[LogEntry]:
    """Commits newest first from ``start`` (default: the head), following first parents."""
    _check_prefix(prefix)
    manifest, _etag, objects = _load(object_store(), prefix)
    sha: bytes | None = _check_sha(start).encode() if start else manifest.commit.encode()
    count = 0
    while sha is not None and (limit is None or count < limit):
        commit = objects.commit(sha)
        text, trailers = _parse_message(commit.message.decode("utf-8", errors="replace"))
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
    _check_prefix(prefix)
    validate_path(path)
    manifest, _etag, objects = _load(object_store(), prefix)
    versions: list[Version] = []
    commit = objects.commit(manifest.commit.encode())
    blob = _blob_at(objects, commit.tree, path)
    while True:
        parent = objects.commit(commit.parents[0]) if commit.parents else None
        parent_blob = _blob_at(objects, parent.tree, path) if parent is not None else None
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
            text, trailers = _parse_message(commit.message.decode("utf-8", errors="replace"))
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


def _reachable(objects: _Objects, head: bytes) -> list[bytes]:
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


def _copy_entries(packs: list[Pack], wanted: set[bytes] | None) -> Iterator[_Entry]:
    """Entries of ``packs`` (those in ``wanted`` if given, each once), keeping their
    compressed bytes so nothing is recompressed."""
    seen: set[bytes] = set()
    for pack in packs:
        for unpacked in pack.data.iter_unpacked(include_comp=True):
            if unpacked.pack_type_num in (OFS_DELTA, REF_DELTA):
                # Our packs hold whole objects only; a delta here would mean a pack
                # we did not write.  Resolve it through the pack and store it whole.
                by_offset = {offset: sha for sha, offset, _crc in pack.index.iterentries()}
                entry = _entry_of(pack[by_offset[unpacked.offset]])
            else:
                # The compressed chunks start after the entry header; rebuild it.
                header = pack_object_header(
                    unpacked.pack_type_num, None, unpacked.decomp_len or 0, DEFAULT_OBJECT_FORMAT
                )
                entry = (unpacked.sha(), bytes(header) + b"".join(unpacked.comp_chunks or []))
            hex_sha = entry[0].hex().encode()
            if hex_sha in seen or (wanted is not None and hex_sha not in wanted):
                continue
            seen.add(hex_sha)
            yield entry


def repository_export_bundle(*, prefix: str) -> bytes:
    """The whole repository as a git bundle (v2) that ``git clone`` accepts.

    Refs: ``refs/heads/main`` and ``HEAD``, both at the head commit.
    """
    _check_prefix(prefix)
    manifest, _etag, objects = _load(object_store(), prefix)
    head = manifest.commit.encode()
    wanted = set(_reachable(objects, head))
    pack, _checksum, entries = _pack_bytes(_copy_entries(objects.packs, wanted))
    if len(entries) != len(wanted):
        raise ServiceUnavailable(
            f"The repository is missing {len(wanted) - len(entries)} objects.",
            code="repository_corrupt",
        )
    header = b"# v2 git bundle\n" + head + b" " + BRANCH + b"\n" + head + b" HEAD\n\n"
    return header + pack


def repository_export_tar(*, prefix: str) -> bytes:
    """The files at head as a tar.gz (paths as in the repository)."""
    _check_prefix(prefix)
    snapshot = repository_snapshot(prefix=prefix)
    commit_time = snapshot._objects.commit(snapshot.commit.encode()).commit_time
    raw = io.BytesIO()
    # Fixed times and owners: the same head always exports the same bytes.
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=commit_time) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path, blob in sorted(snapshot.walk()):
            data = snapshot.read_blob(blob)
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = 0o644
            info.mtime = commit_time
            tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


# --------------------------------------------------------------------------- import


def _read_varint_header(contents: bytes, offset: int) -> tuple[int, int]:
    """Type and declared size of the pack entry at ``offset``."""
    if offset >= len(contents):
        raise InvalidInput("The bundle's pack is truncated.", code="invalid_bundle")
    byte = contents[offset]
    type_num, size, shift = (byte >> 4) & 7, byte & 15, 4
    while byte & 0x80:
        offset += 1
        if offset >= len(contents) or shift > 56:
            raise InvalidInput("The bundle's pack is malformed.", code="invalid_bundle")
        byte = contents[offset]
        size |= (byte & 0x7F) << shift
        shift += 7
    return type_num, size


def _delta_target_size(delta: bytes) -> int:
    index = 0
    for _ in range(2):  # source size, then target size
        size, shift = 0, 0
        while True:
            if index >= len(delta) or shift > 56:
                raise InvalidInput("The bundle holds a malformed delta.", code="invalid_bundle")
            byte = delta[index]
            index += 1
            size |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
    return size


def _scan_pack(
    contents: bytes, *, max_object_bytes: int, max_total_bytes: int, max_objects: int
) -> int:
    """Walk an untrusted pack checking every declared size before anything is
    inflated in full: a small bundle must not expand into gigabytes."""
    if len(contents) < 32 or contents[:4] != b"PACK":
        raise InvalidInput("The bundle holds no pack.", code="invalid_bundle")
    version = int.from_bytes(contents[4:8], "big")
    count = int.from_bytes(contents[8:12], "big")
    if version not in (2, 3):
        raise InvalidInput("Unsupported pack version.", code="invalid_bundle")
    if count > max_objects:
        raise PayloadTooLarge("The bundle holds too many objects.", code="bundle_too_large")
    if hashlib.sha1(contents[:-20], usedforsecurity=False).digest() != contents[-20:]:
        raise InvalidInput("The bundle's pack checksum does not match.", code="invalid_bundle")
    offset, total = 12, 0
    for _ in range(count):
        type_num, size = _read_varint_header(contents, offset)
        if type_num not in (1, 2, 3, 4, OFS_DELTA, REF_DELTA):
            raise InvalidInput("The bundle holds an unknown object type.", code="invalid_bundle")
        if size > max_object_bytes:
            raise PayloadTooLarge("An object in the bundle is too large.", code="bundle_too_large")
        try:
            unpacked, offset = unpack_object_at(contents, offset, DEFAULT_OBJECT_FORMAT.hash_func)
        except (zlib.error, AssertionError, IndexError, ValueError) as exc:
            raise InvalidInput(
                f"The bundle's pack is malformed: {exc}", code="invalid_bundle"
            ) from exc
        if type_num in (OFS_DELTA, REF_DELTA):
            size = _delta_target_size(b"".join(unpacked.decomp_chunks))
            if size > max_object_bytes:
                raise PayloadTooLarge(
                    "An object in the bundle is too large.", code="bundle_too_large"
                )
        total += size
        if total > max_total_bytes:
            raise PayloadTooLarge("The bundle expands too far.", code="bundle_too_large")
        if offset > len(contents) - 20:
            raise InvalidInput("The bundle's pack is truncated.", code="invalid_bundle")
    if offset != len(contents) - 20:
        raise InvalidInput("The bundle's pack has trailing data.", code="invalid_bundle")
    return count


def _parse_bundle(data: bytes) -> tuple[dict[bytes, bytes], list[bytes], bytes]:
    """(refs, prerequisites, pack bytes) from a v2/v3 bundle."""
    if not isinstance(data, bytes | bytearray):
        raise InvalidInput("A bundle must be bytes.", code="invalid_bundle")
    data = bytes(data)
    header_end = data.find(b"\n\n")
    if header_end < 0 or header_end > 1 << 20:
        raise InvalidInput("Not a git bundle.", code="invalid_bundle")
    lines = data[:header_end].split(b"\n")
    if lines[0] not in (b"# v2 git bundle", b"# v3 git bundle"):
        raise InvalidInput("Not a git bundle (v2 or v3).", code="invalid_bundle")
    refs: dict[bytes, bytes] = {}
    prerequisites: list[bytes] = []
    for line in lines[1:]:
        if line.startswith(b"@"):
            if lines[0] != b"# v3 git bundle":
                raise InvalidInput("Capabilities in a v2 bundle.", code="invalid_bundle")
            key, _, value = line[1:].partition(b"=")
            if key == b"object-format" and value != b"sha1":
                raise InvalidInput(
                    "Only SHA-1 repositories can be imported.", code="invalid_bundle"
                )
            if key not in (b"object-format", b"filter"):
                raise InvalidInput("Unknown bundle capability.", code="invalid_bundle")
            if key == b"filter":
                raise InvalidInput("Partial bundles cannot be imported.", code="invalid_bundle")
            continue
        if line.startswith(b"-"):
            sha = line[1:41]
            if not _SHA_RE.fullmatch(sha.decode("ascii", "replace")):
                raise InvalidInput("Malformed bundle prerequisite.", code="invalid_bundle")
            prerequisites.append(sha)
            continue
        sha, _, ref = line.partition(b" ")
        if not _SHA_RE.fullmatch(sha.decode("ascii", "replace")) or not ref:
            raise InvalidInput("Malformed bundle reference.", code="invalid_bundle")
        refs[ref] = sha
    if not refs:
        raise InvalidInput("The bundle has no references.", code="invalid_bundle")
    return refs, prerequisites, data[header_end + 2 :]


def _bundle_head(refs: dict[bytes, bytes]) -> bytes:
    for name in (b"HEAD", BRANCH, b"refs/heads/master"):
        if name in refs:
            return refs[name]
    if len(set(refs.values())) == 1:
        return next(iter(refs.values()))
    raise InvalidInput(
        "The bundle has several branches and no HEAD; bundle one branch.",
        code="invalid_bundle",
    )


def _inflate_bundle(pack: bytes, objects: _Objects) -> dict[bytes, ShaFile]:
    def resolve_ext_ref(sha: bytes) -> tuple[int, bytes]:
        # Thin bundles (with prerequisites) may delta against objects we hold.
        key = sha if len(sha) == 40 else sha.hex().encode()
        return objects.get_raw(key)

    data = PackData.from_file(io.BytesIO(pack), DEFAULT_OBJECT_FORMAT)
    inflated: dict[bytes, ShaFile] = {}
    try:
        for obj in PackInflater.for_pack_data(data, resolve_ext_ref=resolve_ext_ref):
            try:
                obj.check()
            except ObjectFormatException as exc:
                raise InvalidInput(
                    f"The bundle holds a malformed object: {exc}", code="invalid_bundle"
                ) from exc
            inflated[obj.id] = obj
    except InvalidInput:
        raise
    except Exception as exc:  # unresolved deltas, corrupt entries
        raise InvalidInput(
            f"The bundle's pack is unreadable: {exc}", code="invalid_bundle"
        ) from exc
    finally:
        data.close()
    return inflated


def _verify_bundle_history(objects: _Objects, head: bytes) -> None:
    """Every commit, tree and blob reachable from the bundle head exists, and every
    tree holds only plain files and folders with safe names."""
    seen: set[bytes] = set()
    commits = [head]
    while commits:
        sha = commits.pop()
        if sha in seen:
            continue
        seen.add(sha)
        try:
            obj = objects[sha]
        except KeyError:
            raise InvalidInput("The bundle is missing a commit.", code="invalid_bundle") from None
        if isinstance(obj, Tag):
            raise InvalidInput("Tags cannot be imported; bundle a branch.", code="invalid_bundle")
        if not isinstance(obj, Commit):
            raise InvalidInput("A bundle reference is not a commit.", code="invalid_bundle")
        commits.extend(obj.parents)
        trees: list[tuple[bytes, str]] = [(obj.tree, "")]
        while trees:
            tree_sha, base = trees.pop()
            if tree_sha in seen:
                continue
            seen.add(tree_sha)
            try:
                tree = objects[tree_sha]
            except KeyError:
                raise InvalidInput("The bundle is missing a tree.", code="invalid_bundle") from None
            if not isinstance(tree, Tree):
                raise InvalidInput("A tree entry is not a tree.", code="invalid_bundle")
            for entry in tree.iteritems():
                try:
                    name = entry.path.decode("utf-8")
                except UnicodeDecodeError:
                    raise InvalidInput("A file name is not UTF-8.", code="invalid_path") from None
                path = base + name
                validate_path(path)
                if stat.S_ISDIR(entry.mode):
                    trees.append((entry.sha, path + "/"))
                elif entry.mode in _ALLOWED_FILE_MODES:
                    if entry.sha not in seen:
                        if entry.sha not in objects or not isinstance(objects[entry.sha], Blob):
                            raise InvalidInput(
                                f"The bundle is missing the content of {path!r}.",
                                code="invalid_bundle",
                            )
                        seen.add(entry.sha)
                else:
                    raise InvalidInput(
                        f"{path!r} is not a plain file (symlinks and submodules are refused).",
                        code="invalid_path",
                    )


def _is_ancestor(objects: _Objects, ancestor: bytes, descendant: bytes) -> bool:
    seen: set[bytes] = set()
    todo = [descendant]
    while todo:
        sha = todo.pop()
        if sha == ancestor:
            return True
        if sha in seen:
            continue
        seen.add(sha)
        todo.extend(objects.commit(sha).parents)
    return False


def repository_import_bundle(
    *,
    prefix: str,
    data: bytes,
    message: str = "Import bundle",
    trailers: Mapping[str, str] | None = None,
    author: str = DEFAULT_AUTHOR,
    validate: Callable[[Snapshot], None] | None = None,
    max_object_bytes: int = MAX_IMPORT_OBJECT_BYTES,
    max_total_bytes: int = MAX_IMPORT_TOTAL_BYTES,
    max_objects: int = MAX_IMPORT_OBJECTS,
) -> CommitResult:
    """Bring a git bundle's branch into the namespace, all or nothing.

    The bundle is checked before anything is uploaded: pack checksum, declared sizes
    (no decompression bombs), every object well-formed, the history complete, only
    plain files with safe paths, then ``validate`` (the caller's per-file checks) on
    the bundle head's snapshot.  Then, by the namespace's state:

    - fresh (only the root commit ``repository_init`` made, no files): the bundle's
      history becomes the namespace's history;
    - the head is in the bundle's history: fast-forward to the bundle head;
    - the bundle head is already in the namespace's history: nothing to do;
    - otherwise: one new commit on the head whose tree is the bundle head's tree
      (the bundle replaces the files; earlier versions stay in history).
    """
    _check_prefix(prefix)
    full_message = _format_message(message, trailers or {})
    author_bytes = _check_author(author)
    refs, prerequisites, pack = _parse_bundle(data)
    bundle_head = _bundle_head(refs)
    _scan_pack(
        pack,
        max_object_bytes=max_object_bytes,
        max_total_bytes=max_total_bytes,
        max_objects=max_objects,
    )
    store = object_store()
    manifest, etag, objects = _load(store, prefix)
    for sha in prerequisites:
        if sha not in objects:
            raise InvalidInput(
                "The bundle needs commits this namespace does not have.", code="invalid_bundle"
            )
    inflated = _inflate_bundle(pack, objects)
    bundle_objects = _Objects(objects.packs)
    bundle_objects.new.update(inflated)
    _verify_bundle_history(bundle_objects, bundle_head)
    bundle_tree = bundle_objects.commit(bundle_head).tree
    if validate is not None:
        validate(
            Snapshot(commit=bundle_head.decode(), tree=bundle_tree.decode(), objects=bundle_objects)
        )

    for attempt in range(1, MAX_WRITE_ATTEMPTS + 1):
        head = objects.commit(manifest.commit.encode())
        fresh = not head.parents and head.tree.decode() == EMPTY_TREE
        retired = manifest.retired
        if fresh:
            # Adopt the bundle's history whole; the root commit we made is retired.
            new_head = bundle_head
            wanted = set(_reachable(bundle_objects, bundle_head))
            records = [bundle_objects[s] for s in sorted(wanted)]
            now = _now_iso()
            retired = manifest.retired + tuple((p.name, now) for p in manifest.packs)
            keep: tuple[_PackRef, ...] = ()
        elif bundle_head == head.id or _is_ancestor(bundle_objects, bundle_head, head.id):
            return CommitResult(
                commit=manifest.commit,
                parent=manifest.commit,
                created=[],
                modified=[],
                deleted=[],
                changed=[],
                attempts=attempt,
                pack_count=len(manifest.packs),
            )
        elif _is_ancestor(bundle_objects, head.id, bundle_head):
            new_head = bundle_head
            wanted = set(_reachable(bundle_objects, bundle_head))
            records = [inflated[s] for s in sorted(wanted) if s not in objects]
            keep = manifest.packs
        else:
            commit = _make_commit(
                tree=bundle_tree, parents=[head.id], message=full_message, author=author_bytes
            )
            new_head = commit.id
            tree_objects = set(_reachable_tree(bundle_objects, bundle_tree))
            records = [inflated[s] for s in sorted(tree_objects) if s not in objects]
            records.append(commit)
            bundle_objects.new[commit.id] = commit
            keep = manifest.packs
        name, pack_bytes, idx_bytes, count = _build_pack(records)
        _upload_pack(store, prefix, name, pack_bytes, idx_bytes)
        new_manifest = _Manifest(
            commit=new_head.decode(),
            packs=(_PackRef(name, count, len(pack_bytes)), *keep),
            retired=retired,
        )
        if _swap_head(store, prefix, new_manifest, etag):
            changes = _tree_changes(bundle_objects, head.tree.decode(), bundle_tree.decode())
            created = sorted(c.path for c in changes if c.kind == "add")
            modified = sorted(c.path for c in changes if c.kind == "modify")
            deleted = sorted(c.path for c in changes if c.kind == "delete")
            return CommitResult(
                commit=new_manifest.commit,
                parent=manifest.commit,
                created=created,
                modified=modified,
                deleted=deleted,
                changed=sorted(created + modified + deleted),
                uploaded_bytes=len(pack_bytes) + len(idx_bytes) + len(new_manifest.to_bytes()),
                attempts=attempt,
                pack_count=len(new_manifest.packs),
            )
        _backoff(attempt)
        manifest, etag, objects = _load(store, prefix)
        bundle_objects = _Objects(objects.packs)
        bundle_objects.new.update(inflated)
    raise Conflict(
        "The namespace is too busy to write right now; try again.", code="write_conflict"
    )


def _reachable_tree(objects: _Objects, tree: bytes) -> list[bytes]:
    out: list[bytes] = []
    _walk_tree(objects, tree, set(), out)
    return out


def _walk_tree(objects: _Objects, tree: bytes, seen: set[bytes], out: list[bytes]) -> None:
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


# --------------------------------------------------------------------------- upkeep


def _now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _geometric_selection(packs: tuple[_PackRef, ...], factor: int = 2) -> list[_PackRef]:
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
    _check_prefix(prefix)
    store = object_store()
    if full:
        manifest, etag, objects = _load(store, prefix)
        selected = list(manifest.packs)
        wanted: set[bytes] | None = set(_reachable(objects, manifest.commit.encode()))
        total = sum(p.objects for p in selected)
        if len(selected) == 1 and wanted is not None and total == len(wanted):
            return None
    else:
        # Only the small packs are read: the head names them, no other pack is opened
        # (on S3, fetched) for an hourly upkeep that may merge nothing.
        manifest, etag = _require_manifest(store, prefix)
        selected = _geometric_selection(manifest.packs)
        wanted = None
        if len(selected) < 2:
            return None
    packs = [_open_pack(store, prefix, p.name) for p in selected]
    name, pack_bytes, idx_bytes, count = _build_pack(_copy_entries(packs, wanted))
    if wanted is not None and count != len(wanted):
        raise ServiceUnavailable("The repository is missing objects.", code="repository_corrupt")
    _upload_pack(store, prefix, name, pack_bytes, idx_bytes)
    selected_names = {p.name for p in selected}
    for attempt in range(1, MAX_WRITE_ATTEMPTS + 1):
        now = _now_iso()
        keep = tuple(p for p in manifest.packs if p.name not in selected_names)
        new_manifest = _Manifest(
            commit=manifest.commit,
            packs=(*keep, _PackRef(name, count, len(pack_bytes))),
            retired=manifest.retired + tuple((n, now) for n in sorted(selected_names)),
        )
        if _swap_head(store, prefix, new_manifest, etag):
            return ConsolidateResult(
                packs_before=len(manifest.packs),
                packs_after=len(new_manifest.packs),
                merged_packs=len(selected),
                objects=count,
                pack_bytes=len(pack_bytes),
            )
        _backoff(attempt)
        found = _read_manifest(store, prefix)
        if found is None:
            return None
        previous_commit = manifest.commit
        manifest, etag = found
        if not selected_names <= manifest.pack_names:
            return None  # another merge got there first; ours is an orphan for gc
        if full and manifest.commit != previous_commit:
            # A write that landed meanwhile may rely on an object we dropped as
            # unreachable; start over rather than risk it.
            return None
    return None


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
    _check_prefix(prefix)
    store = object_store()
    now = now or datetime.now(UTC)
    cutoff = now - grace
    found = _read_manifest(store, prefix)
    manifest, etag = found if found is not None else (None, None)
    referenced = manifest.pack_names if manifest is not None else set()
    retired = dict(manifest.retired) if manifest is not None else {}
    expired_retired = {
        name for name, at in retired.items() if _parse_iso(at) <= cutoff and name not in referenced
    }
    if manifest is not None and expired_retired and etag is not None:
        trimmed = dataclasses.replace(
            manifest, retired=tuple((n, a) for n, a in manifest.retired if n not in expired_retired)
        )
        if not _swap_head(store, prefix, trimmed, etag):
            expired_retired = set()  # the head moved; try again next time
    deleted: list[str] = []
    for obj in store.list(prefix + PACKS_DIR):
        filename = obj.key.rsplit("/", 1)[-1]
        match = re.fullmatch(r"pack-([0-9a-f]{40})\.(pack|idx)", filename)
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
    _prune_cache(store, prefix, keep=referenced | set(retired) - expired_retired, cutoff=cutoff)
    return GcResult(deleted=deleted, retired_pending=len(retired) - len(expired_retired))


def _parse_iso(value: str) -> datetime:
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return datetime.max.replace(tzinfo=UTC)  # unreadable: never delete


def _prune_cache(store: ObjectStore, prefix: str, *, keep: set[str], cutoff: datetime) -> None:
    directory = _cache_dir(store, prefix)
    if not directory.is_dir():
        return
    for path in directory.iterdir():
        match = re.fullmatch(r"pack-([0-9a-f]{40})\.(pack|idx)", path.name)
        if not match or match.group(1) in keep:
            continue
        with contextlib.suppress(FileNotFoundError):
            if datetime.fromtimestamp(path.stat().st_mtime, tz=UTC) <= cutoff:
                path.unlink()


def repository_delete(*, prefix: str) -> int:
    """Delete the namespace's repository: head first (so it reads as gone at once),
    then every object under the prefix, then this process's cache of it."""
    _check_prefix(prefix)
    store = object_store()
    store.delete(prefix + HEAD_KEY)
    count = store.delete_prefix(prefix)
    directory = _cache_dir(store, prefix)
    _pack_cache.drop_where(lambda path: path.startswith(str(directory) + os.sep))
    shutil.rmtree(directory, ignore_errors=True)
    return count
