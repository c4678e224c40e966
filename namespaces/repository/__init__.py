"""One git repository per namespace, kept in object storage, updated by compare-and-swap.

This is the only package that speaks git (dulwich).  Callers import from
``namespaces.repository`` only, pass plain values — a key prefix from
``namespaces.storage.namespace_prefix``, paths, bytes — and get back plain dataclasses.

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

The modules, each importing only those above it:

    values     limits, result dataclasses, checks of what callers pass
    packs      pack files: build, upload, verified local cache, object lookup
    manifest   head.json, and ``update_head``: the one compare-and-swap loop that
               commits, bundle imports and merges all go through
    trees      applying a change to a tree, diffs, reachability
    snapshot   ``Snapshot``, a whole view of one commit; head, snapshot, diff
    upkeep     consolidation, gc, delete
    commits    init and commit
    history    log, the versions of one file, blame, changes since a commit
    purge      rewriting history without some file versions, deleting what held them
    export     bundle and tar export
    bundle     untrusted bundle import
    revert     what undoing one commit at the head would change, and what is in the way
"""

from namespaces.repository.bundle import bundle_check, is_bundle, repository_import_bundle
from namespaces.repository.commits import repository_commit, repository_init
from namespaces.repository.export import repository_export_bundle, repository_export_tar
from namespaces.repository.history import (
    repository_blame,
    repository_changes,
    repository_log,
    repository_path_log,
)
from namespaces.repository.packs import clear_pack_cache
from namespaces.repository.purge import repository_purge
from namespaces.repository.revert import RevertFile, RevertPlan, repository_revert_plan
from namespaces.repository.snapshot import (
    Snapshot,
    repository_diff,
    repository_head,
    repository_snapshot,
)
from namespaces.repository.upkeep import repository_consolidate, repository_delete, repository_gc
from namespaces.repository.values import (
    AUTO_CONSOLIDATE_PACKS,
    DEFAULT_AUTHOR,
    DEFAULT_GC_GRACE,
    MAX_IMPORT_OBJECT_BYTES,
    MAX_IMPORT_OBJECTS,
    MAX_IMPORT_TOTAL_BYTES,
    MAX_PATH_LENGTH,
    MAX_WRITE_ATTEMPTS,
    MOVED_TRAILER,
    SHA_RE,
    Blame,
    BlameCommit,
    BlameHunk,
    ChangesPage,
    CommitResult,
    ConsolidateResult,
    GcResult,
    LogEntry,
    PathChange,
    PurgeResult,
    TreeChange,
    Version,
    moved_trailers,
    moves_of,
    validate_path,
)

__all__ = [
    "MOVED_TRAILER",
    "moved_trailers",
    "moves_of",
    "AUTO_CONSOLIDATE_PACKS",
    "DEFAULT_AUTHOR",
    "DEFAULT_GC_GRACE",
    "MAX_IMPORT_OBJECTS",
    "MAX_IMPORT_OBJECT_BYTES",
    "MAX_IMPORT_TOTAL_BYTES",
    "MAX_PATH_LENGTH",
    "MAX_WRITE_ATTEMPTS",
    "SHA_RE",
    "Blame",
    "BlameCommit",
    "BlameHunk",
    "ChangesPage",
    "CommitResult",
    "ConsolidateResult",
    "GcResult",
    "LogEntry",
    "PathChange",
    "RevertFile",
    "RevertPlan",
    "PurgeResult",
    "Snapshot",
    "TreeChange",
    "Version",
    "clear_pack_cache",
    "bundle_check",
    "is_bundle",
    "repository_commit",
    "repository_blame",
    "repository_changes",
    "repository_consolidate",
    "repository_delete",
    "repository_diff",
    "repository_export_bundle",
    "repository_export_tar",
    "repository_gc",
    "repository_head",
    "repository_import_bundle",
    "repository_init",
    "repository_log",
    "repository_path_log",
    "repository_revert_plan",
    "repository_purge",
    "repository_snapshot",
    "validate_path",
]
