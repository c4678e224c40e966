"""Handing a namespace back: the whole repository as a git bundle, or the files at
head as a tar.gz."""

from __future__ import annotations

import gzip
import io
import tarfile

from namespaces.errors import RepositoryCorrupt
from namespaces.repository.manifest import load_head
from namespaces.repository.packs import copy_entries, pack_bytes
from namespaces.repository.snapshot import snapshot_at
from namespaces.repository.trees import reachable
from namespaces.repository.values import BRANCH, check_prefix
from namespaces.storage import object_store


def repository_export_bundle(*, prefix: str) -> bytes:
    """The whole repository as a git bundle (v2) that ``git clone`` accepts.

    Refs: ``refs/heads/main`` and ``HEAD``, both at the head commit.
    """
    check_prefix(prefix)
    head = load_head(object_store(), prefix)
    commit = head.manifest.commit.encode()
    wanted = set(reachable(head.objects, commit))
    pack, _checksum, entries = pack_bytes(copy_entries(head.objects.packs, wanted))
    if len(entries) != len(wanted):
        raise RepositoryCorrupt(
            f"The repository is missing {len(wanted) - len(entries)} objects.",
        )
    header = b"# v2 git bundle\n" + commit + b" " + BRANCH + b"\n" + commit + b" HEAD\n\n"
    return header + pack


def repository_export_tar(*, prefix: str) -> bytes:
    """The files at head as a tar.gz (paths as in the repository)."""
    check_prefix(prefix)
    head = load_head(object_store(), prefix)
    snapshot, commit = snapshot_at(head.objects, head.manifest.commit)
    commit_time = commit.commit_time
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
