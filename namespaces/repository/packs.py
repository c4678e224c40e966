"""Git pack files: built, uploaded, fetched into a verified local cache, opened, and
read as one object store.

A pack is immutable and named by its own trailing checksum, so a local copy never
goes stale: it is fetched once per process's cache directory, checked against its
name, and kept open (bounded) across writes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import os
import re
import shutil
import struct
import tempfile
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from dulwich.object_format import DEFAULT_OBJECT_FORMAT
from dulwich.objects import Commit, ShaFile, Tree
from dulwich.pack import (
    OFS_DELTA,
    REF_DELTA,
    Pack,
    load_pack_index,
    pack_object_header,
    write_pack_index_v2,
)

from namespaces.errors import CommitNotFound, RepositoryCorrupt
from namespaces.storage import ObjectStore

PACKS_DIR = "packs/"
PACK_FILE_RE = re.compile(r"pack-([0-9a-f]{40})\.(pack|idx)")


@dataclasses.dataclass(frozen=True)
class PackRef:
    """A pack as a manifest names it."""

    name: str
    objects: int
    size: int


@dataclasses.dataclass(frozen=True)
class PackFile:
    """A pack built in memory: its name (the trailing checksum), bytes and v2 index."""

    name: str
    data: bytes
    index: bytes
    objects: int

    @property
    def ref(self) -> PackRef:
        return PackRef(self.name, self.objects, len(self.data))


# =========================================================================== caches


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


def clear_pack_cache() -> None:
    """Forget every pack this process has open, as a freshly started process would.

    The verified copies on local disk stay; the next read opens them again.  For
    benchmarks and tests that measure or exercise a cold reader.
    """
    _pack_cache.clear()


# =========================================================================== local copies


class PackMissing(Exception):
    """A pack named by a manifest is not in the store (collected under a slow reader)."""


def pack_key(prefix: str, name: str, ext: str) -> str:
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
        if not store.fetch_to_file(pack_key(prefix, name, ext), path):
            raise PackMissing(name)
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
        raise RepositoryCorrupt(f"Pack {name} failed verification.")
    return str(base)


def open_pack(store: ObjectStore, prefix: str, name: str) -> Pack:
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


def upload_pack(store: ObjectStore, prefix: str, pack: PackFile) -> None:
    # Plain puts: the names are content addresses, so a repeat writes the same bytes
    # (and refreshes the object's age, which keeps gc's grace period honest).
    store.put_many(
        {
            pack_key(prefix, pack.name, "pack"): pack.data,
            pack_key(prefix, pack.name, "idx"): pack.index,
        }
    )
    # This process will read the pack next; keep a copy rather than fetch it back.
    base = _cache_dir(store, prefix) / f"pack-{pack.name}"
    _write_cache_file(base.with_suffix(".pack"), pack.data)
    _write_cache_file(base.with_suffix(".idx"), pack.index)


def prune_local_copies(
    store: ObjectStore, prefix: str, *, keep: set[str], cutoff: datetime
) -> None:
    """Delete this process's copies of packs not in ``keep`` and older than ``cutoff``."""
    directory = _cache_dir(store, prefix)
    if not directory.is_dir():
        return
    for path in directory.iterdir():
        match = PACK_FILE_RE.fullmatch(path.name)
        if not match or match.group(1) in keep:
            continue
        with contextlib.suppress(FileNotFoundError):
            if datetime.fromtimestamp(path.stat().st_mtime, tz=UTC) <= cutoff:
                path.unlink()


def forget_local_copies(store: ObjectStore, prefix: str, *, keep: set[str]) -> None:
    """Close and delete this node's copies of one namespace's packs not in ``keep``,
    whatever their age (a purge: they may hold what was purged)."""
    directory = _cache_dir(store, prefix)
    kept = {str(directory / f"pack-{name}") for name in keep}
    _pack_cache.drop_where(
        lambda path: path.startswith(str(directory) + os.sep) and path not in kept
    )
    if not directory.is_dir():
        return
    for path in directory.iterdir():
        match = PACK_FILE_RE.fullmatch(path.name)
        if match is not None and match.group(1) in keep:
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


# A local copy younger than this is never pruned by a reader: it may be a pack another
# process of the node just fetched for a newer head than the one this reader saw.
LOCAL_COPY_MIN_AGE = timedelta(minutes=1)


def is_open(store: ObjectStore, prefix: str, name: str) -> bool:
    """Whether this process has the pack open already (no disk or network needed)."""
    return _pack_cache.get(str(_cache_dir(store, prefix) / f"pack-{name}")) is not None


def refresh_local_copies(store: ObjectStore, prefix: str, *, keep: set[str]) -> None:
    """Forget the packs of one namespace that a head no longer names: closed once no
    reader holds them, and their local copies older than ``LOCAL_COPY_MIN_AGE``
    deleted.  Run when a reader meets a pack it has not opened (a new head), so a
    purge on another node reaches this node's cache at its next read of the namespace."""
    directory = _cache_dir(store, prefix)
    kept = {str(directory / f"pack-{name}") for name in keep}
    _pack_cache.drop_where(
        lambda path: path.startswith(str(directory) + os.sep) and path not in kept
    )
    prune_local_copies(store, prefix, keep=keep, cutoff=datetime.now(UTC) - LOCAL_COPY_MIN_AGE)


def drop_tree_cache(trees: set[bytes]) -> None:
    """Forget these parsed trees (a purge: their entries name what was purged)."""
    _tree_cache.drop_where(lambda sha: sha in trees)


def drop_local_copies(store: ObjectStore, prefix: str) -> None:
    """Close and delete everything this process holds of one namespace's packs."""
    directory = _cache_dir(store, prefix)
    _pack_cache.drop_where(lambda path: path.startswith(str(directory) + os.sep))
    shutil.rmtree(directory, ignore_errors=True)


# =========================================================================== objects


class Objects:
    """Object lookup across one manifest's packs, plus objects not yet written.

    Duck-types the object-store interface dulwich's tree diff needs.
    """

    def __init__(self, packs: list[Pack]) -> None:
        self.packs = packs
        self.new: dict[bytes, ShaFile] = {}

    def find(self, sha: bytes) -> ShaFile | None:
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
        obj = self.find(sha)
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
            raise RepositoryCorrupt("A tree object is not a tree.")
        return obj

    def commit(self, sha: bytes) -> Commit:
        obj = self[sha]
        if not isinstance(obj, Commit):
            raise CommitNotFound("No such commit.")
        return obj

    def cache_new_trees(self) -> None:
        """Keep the new trees parsed: the next write to this namespace reads them."""
        for obj in self.new.values():
            if isinstance(obj, Tree):
                _tree_cache.put(obj.id, obj)


# =========================================================================== writing


# A pack entry ready to write: (binary object id, header + zlib-compressed body).
Entry = tuple[bytes, bytes]


def _entry_of(obj: ShaFile) -> Entry:
    raw = obj.as_raw_string()
    header = pack_object_header(obj.type_num, None, len(raw), DEFAULT_OBJECT_FORMAT)
    return obj.sha().digest(), bytes(header) + zlib.compress(raw)


def pack_bytes(
    items: Iterable[ShaFile | Entry],
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


def build_pack(items: Iterable[ShaFile | Entry]) -> PackFile:
    """One pack and its v2 index."""
    data, checksum, entries = pack_bytes(items)
    entries.sort()
    idx = io.BytesIO()
    write_pack_index_v2(idx, entries, checksum)
    return PackFile(name=checksum.hex(), data=data, index=idx.getvalue(), objects=len(entries))


def copy_entries(packs: list[Pack], wanted: set[bytes] | None) -> Iterator[Entry]:
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
