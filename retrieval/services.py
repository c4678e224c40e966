"""Writes to the index: the step after every repository change, namespace lifecycle
hooks, and the indexer entry point.

``after_repository_change`` is the one step every writer (ingestion jobs, forgetting,
imports) and ``reindex`` calls after a namespace's repository moved: it records the
head on the namespace row and brings the index up to it.

``index_namespace_create`` / ``index_namespace_drop`` run inside the transaction that
creates or deletes the namespace: ``namespaces.services`` sends ``namespace_created`` /
``namespace_deleting`` (``namespaces.signals``) and ``RetrievalConfig.ready`` connects
them here, so the namespaces app never imports the index derived from it.
``index_namespace`` (re-exported from ``retrieval.indexer``) is called after every
commit to a namespace's repository.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import connection, transaction
from django.utils import timezone

from namespaces.models import Namespace
from retrieval.indexer import IndexResult, index_namespace
from retrieval.models import cue_partition

logger = logging.getLogger("gitloom.retrieval")

__all__ = [
    "IndexResult",
    "after_repository_change",
    "cue_partition_drop",
    "index_namespace",
    "index_namespace_create",
    "index_namespace_drop",
    "index_orphans_drop",
]


def after_repository_change(
    *,
    namespace: Namespace,
    commit: str | None = None,
    rebuild: bool = False,
    reuse_vectors: bool = False,
    deadline: float | None = None,
    announce: Callable[[], object] | None = None,
) -> IndexResult:
    """Bring ``Namespace.head_commit`` and the index up to the repository's head.

    A writer passes the ``commit`` it made: it is recorded (with ``last_write``) before
    indexing, so a write whose indexing fails, or whose process dies first, leaves a
    namespace whose head is ahead of its index, and ``/v1/retrieve`` says so (``commit``
    vs ``indexed_commit``) instead of quietly answering from the older commit. Then the
    index is brought up to the head (``rebuild=True``: rebuilt from the repository
    alone, ``manage.py reindex``), and the head it reached is recorded too: another
    writer's commit may have landed on top, or a crashed writer never recorded its own.
    ``reuse_vectors`` keeps the vectors of cue texts through a rebuild (a purge's; see
    ``index_namespace``). ``deadline`` (``time.monotonic()``) lets a large commit's
    indexing stop between two steps once passed (``IndexResult.complete`` is then
    False); calling again goes on from there. ``announce`` runs in the transaction that
    records the writer's commit (the webhook outbox: the change and its event together).
    """
    if commit:
        with transaction.atomic():
            _record_head(namespace, commit, wrote=True)
            if announce is not None:
                announce()
    indexed = index_namespace(
        namespace=namespace, rebuild=rebuild, reuse_vectors=reuse_vectors, deadline=deadline
    )
    _record_head(namespace, indexed.target or indexed.commit, wrote=commit is not None)
    return indexed


def _record_head(namespace: Namespace, commit: str | None, *, wrote: bool) -> None:
    if commit and commit != namespace.head_commit:
        fields = {"head_commit": commit}
        if wrote:
            fields["last_write"] = timezone.now()
        Namespace.objects.filter(pk=namespace.pk).update(**fields)
        namespace.head_commit = commit


def index_namespace_create(*, namespace) -> None:
    """Prepare a new namespace's index: its cue partition (with its own HNSW index) and
    its index state at the repository's first commit. Runs in the caller's transaction,
    so a namespace whose creation rolls back leaves no partition behind. Creating is not
    a write: the namespace row holds its root commit as head and no ``last_write``
    (so ``after_repository_change`` is not the step here)."""
    index_namespace(namespace=namespace)


def on_namespace_created(sender, *, namespace, **kwargs) -> None:
    index_namespace_create(namespace=namespace)


def on_namespace_deleting(sender, *, namespace, **kwargs) -> None:
    index_namespace_drop(namespace=namespace)


def index_namespace_drop(*, namespace) -> None:
    """Drop a namespace's cue partition once the caller's transaction commits.

    Its index rows go with the namespace row itself: the ``retrieval_namespace_forget``
    trigger (migration 0002) deletes them and truncates the partition in the same
    transaction. Dropping or plainly detaching a partition locks the whole cue table,
    which would stall every other namespace's retrieval for as long as the deleting
    transaction runs, so that waits for the commit.
    """
    namespace_id = int(namespace.pk)
    transaction.on_commit(lambda: cue_partition_drop(namespace_id), robust=True)


def cue_partition_drop(namespace_id: int) -> None:
    """Detach (without locking the parent against readers) and drop a cue partition.
    Outside a transaction only (``DETACH ... CONCURRENTLY``)."""
    partition = cue_partition(namespace_id)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT inhdetachpending FROM pg_inherits"
            " WHERE inhparent = 'retrieval_cue'::regclass AND inhrelid = to_regclass(%s)",
            [partition],
        )
        row = cursor.fetchone()
        if row is not None:
            # CONCURRENTLY cannot run inside a transaction block; on_commit callbacks
            # run in autocommit. A detach interrupted half-way is finished by FINALIZE.
            mode = "FINALIZE" if row[0] else "CONCURRENTLY"
            cursor.execute(f'ALTER TABLE retrieval_cue DETACH PARTITION "{partition}" {mode}')
        cursor.execute(f'DROP TABLE IF EXISTS "{partition}"')


def index_orphans_drop() -> list[str]:
    """Drop cue partitions whose namespace no longer exists (a delete that crashed
    between its commit and the partition drop, or a whole account deleted). Detaching
    without blocking readers must run outside a transaction; inside one this does
    nothing and says so."""
    if connection.in_atomic_block:
        logger.warning("not dropping orphaned cue partitions inside a transaction")
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c"
            " WHERE c.relname ~ '^retrieval_cue_ns_[0-9]+$'"
            "   AND NOT EXISTS (SELECT 1 FROM namespaces_namespace n"
            "                   WHERE c.relname = 'retrieval_cue_ns_' || n.id)"
        )
        orphans = [row[0] for row in cursor.fetchall()]
    for name in orphans:
        try:
            cue_partition_drop(int(name.rsplit("_", 1)[1]))
        except Exception:
            logger.exception("dropping orphaned cue partition %s failed", name)
    return orphans
