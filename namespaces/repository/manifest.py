"""The head manifest, and the one compare-and-swap loop every change of it goes through.

``head.json`` names the head commit and the packs that hold every object reachable
from it (and packs retired by a merge, with when).  It is the only mutable object of
a repository: replaced by a conditional write against the exact version a writer
read, never overwritten blind.
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Generic, TypeVar

from gitloom.core.errors import NamespaceNotFound
from namespaces.errors import RepositoryCorrupt, WriteConflict
from namespaces.repository.packs import (
    Objects,
    PackFile,
    PackMissing,
    PackRef,
    is_open,
    open_pack,
    refresh_local_copies,
    upload_pack,
)
from namespaces.repository.values import MAX_WRITE_ATTEMPTS, SHA_RE
from namespaces.storage import ObjectStore

HEAD_KEY = "head.json"
MANIFEST_FORMAT = "gitloom-head/1"

R = TypeVar("R")


@dataclasses.dataclass(frozen=True)
class Manifest:
    commit: str
    packs: tuple[PackRef, ...]
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
    def from_bytes(cls, data: bytes) -> Manifest:
        try:
            body = json.loads(data)
            if body.get("format") != MANIFEST_FORMAT:
                raise ValueError(f"unknown manifest format {body.get('format')!r}")
            commit = body["commit"]
            packs = tuple(
                PackRef(name=p["name"], objects=int(p["objects"]), size=int(p["size"]))
                for p in body["packs"]
            )
            retired = tuple((r["name"], r["at"]) for r in body.get("retired", []))
        except (ValueError, KeyError, TypeError) as exc:
            raise RepositoryCorrupt(f"The repository head is unreadable: {exc}") from exc
        for name in [commit, *(p.name for p in packs), *(n for n, _ in retired)]:
            if not isinstance(name, str) or not SHA_RE.fullmatch(name):
                raise RepositoryCorrupt("The repository head is unreadable.")
        return cls(commit=commit, packs=packs, retired=retired)

    @property
    def pack_names(self) -> set[str]:
        return {p.name for p in self.packs}


def now_iso() -> str:
    """The time a pack is retired, as the manifest records it."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_iso(value: str) -> datetime:
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        return datetime.max.replace(tzinfo=UTC)  # unreadable: never delete


# =========================================================================== reading


@dataclasses.dataclass(frozen=True)
class Head:
    """One read of the head: the manifest and the version of it that was read."""

    manifest: Manifest
    etag: str


@dataclasses.dataclass(frozen=True)
class LoadedHead(Head):
    """A head with its packs open, newest first."""

    objects: Objects


def find_head(store: ObjectStore, prefix: str) -> Head | None:
    found = store.get_versioned(prefix + HEAD_KEY)
    if found is None:
        return None
    data, etag = found
    return Head(Manifest.from_bytes(data), etag)


def read_head(store: ObjectStore, prefix: str) -> Head:
    head = find_head(store, prefix)
    if head is None:
        raise NamespaceNotFound("This namespace has no repository.")
    return head


def load_head(store: ObjectStore, prefix: str) -> LoadedHead:
    """Read the head and open its packs, re-reading the head if a pack vanished."""
    last_error: PackMissing | None = None
    for _ in range(3):
        head = read_head(store, prefix)
        manifest = head.manifest
        new_pack = not all(is_open(store, prefix, p.name) for p in manifest.packs)
        try:
            # Newest packs first: recent trees and blobs are the ones a write reads.
            packs = [open_pack(store, prefix, p.name) for p in manifest.packs]
        except PackMissing as exc:
            last_error = exc
            continue
        if new_pack:
            # A head this process has not seen: forget packs no head names any more
            # (merged, collected, or deleted by a purge on another node).
            refresh_local_copies(
                store, prefix, keep=manifest.pack_names | {name for name, _at in manifest.retired}
            )
        return LoadedHead(manifest, head.etag, Objects(packs))
    raise RepositoryCorrupt(f"The repository is missing pack {last_error}.")


# =========================================================================== writing


def swap_head(store: ObjectStore, prefix: str, manifest: Manifest, etag: str) -> bool:
    """The commit point of every write: replace exactly the head we read, or lose."""
    return store.put_if_match(prefix + HEAD_KEY, manifest.to_bytes(), etag)


def backoff(attempt: int) -> None:
    time.sleep(random.uniform(0, min(0.25, 0.002 * (2 ** min(attempt, 8)))))


@dataclasses.dataclass(frozen=True)
class NewHead(Generic[R]):
    """What one round of ``update_head`` wants the head to become."""

    manifest: Manifest
    pack: PackFile | None  # must be in the store before the swap; None: nothing new
    landed: Callable[[], R]  # the caller's result, called once the swap has won


H = TypeVar("H", bound=Head)


def update_head(
    store: ObjectStore,
    prefix: str,
    step: Callable[[H, int], NewHead[R] | R],
    *,
    read: Callable[[ObjectStore, str], H],
    head: H | None = None,
    exhausted: Callable[[], R] | None = None,
) -> R:
    """Change the head by compare-and-swap, retried until it lands: the one retry
    loop around ``head.json`` (besides it, ``repository_init`` creates the head and
    ``repository_gc`` makes one try at trimming it).

    Each round reads the head with ``read`` (the first round uses ``head`` if the
    caller has read it already) and calls ``step(head, attempt)``.  A step returns a
    ``NewHead`` — the manifest to put in place of the one it was given and the pack
    that manifest needs — or any other value, which ends the loop as its result
    (nothing to change, or no point trying).  The pack is uploaded, then the head is
    swapped against the exact version read.  The winner's result is
    ``NewHead.landed()``; the loser backs off and goes round again with the newer
    head, so two writers both land, one after the other, and history stays linear.
    After ``MAX_WRITE_ATTEMPTS`` lost rounds: ``exhausted()``, or by default a
    ``Conflict`` telling the caller to try again.
    """
    uploaded: PackFile | None = None
    for attempt in range(1, MAX_WRITE_ATTEMPTS + 1):
        current = head if head is not None and attempt == 1 else read(store, prefix)
        new = step(current, attempt)
        if not isinstance(new, NewHead):
            return new
        # A step may offer the very pack it offered last round (a merge does, its
        # pack does not depend on the head); that one is in the store already.
        if new.pack is not None and new.pack is not uploaded:
            upload_pack(store, prefix, new.pack)
            uploaded = new.pack
        if swap_head(store, prefix, new.manifest, current.etag):
            return new.landed()
        backoff(attempt)
    if exhausted is not None:
        return exhausted()
    raise WriteConflict("The namespace is too busy to write right now; try again.")
