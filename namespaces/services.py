from __future__ import annotations

import contextlib
import uuid

from django.db import IntegrityError, transaction

from accounts.models import Account
from accounts.webhooks.events import webhook_emit
from gitloom.core.errors import NamespaceNotFound
from gitloom.core.slugs import validate_slug
from namespaces import repository
from namespaces.errors import NamespaceExists
from namespaces.models import Namespace, Purge, ReplacedCommit
from namespaces.signals import namespace_created, namespace_deleting


def namespace_create(*, account: Account, name: str) -> Namespace:
    validate_slug(name, what="namespace name")
    try:
        with transaction.atomic():
            namespace = Namespace.objects.create(account=account, name=name)
            _after_create(namespace)
    except IntegrityError:
        raise NamespaceExists() from None
    return namespace


def _after_create(namespace: Namespace) -> None:
    # Inside the creating transaction: if the repository cannot be initialised (or the
    # index, a receiver of namespace_created, cannot be prepared) the namespace does not
    # exist either. namespace_delete purges a repository before its row goes, but a row
    # can go without it (its account deleted in one cascade): whatever a new namespace
    # finds at its prefix is such a leftover and must never come back to life under the
    # new owner, so it is purged first.
    repository.repository_delete(prefix=namespace.storage_prefix)
    # The head is the empty root commit from the start: the API and the dashboard both
    # name it (last_write stays null until a write).
    namespace.head_commit = repository.repository_init(prefix=namespace.storage_prefix)
    namespace.save(update_fields=["head_commit"])
    namespace_created.send(sender=Namespace, namespace=namespace)
    webhook_emit(
        account_id=namespace.account_id, type="namespace.created", namespace=namespace.name
    )


def namespace_delete(*, namespace: Namespace) -> None:
    """Forget a whole namespace: its index rows, its repository, then its row.

    Of two deletes at once, the one that waited for the lock finds the row gone and
    raises ``NamespaceNotFound`` (404), as if it had come a moment later."""
    with transaction.atomic():
        try:
            locked = Namespace.objects.select_for_update().get(pk=namespace.pk)
        except Namespace.DoesNotExist:
            raise NamespaceNotFound() from None
        namespace_deleting.send(sender=Namespace, namespace=locked)
        repository.repository_delete(prefix=locked.storage_prefix)
        webhook_emit(account_id=locked.account_id, type="namespace.deleted", namespace=locked.name)
        locked.delete()


def account_delete(*, account: Account) -> None:
    """Delete an account with everything it owns: each namespace as namespace_delete
    does (index rows, repository in object storage), then the account's rows."""
    for namespace in account.namespaces.all():
        with contextlib.suppress(NamespaceNotFound):  # deleted meanwhile: gone either way
            namespace_delete(namespace=namespace)
    account.delete()


def namespace_upkeep_all() -> int:
    """Merge small packs and collect garbage in every repository (scheduled hourly)."""
    count = 0
    for namespace in Namespace.objects.select_related("account").iterator():
        repository.repository_consolidate(prefix=namespace.storage_prefix)
        repository.repository_gc(prefix=namespace.storage_prefix)
        count += 1
    return count


def purge_record(
    *,
    namespace: Namespace,
    public_id: uuid.UUID,
    kind: str,
    credential: str,
    paths: list[str],
    result: repository.PurgeResult,
) -> Purge:
    """Record a purge that has landed (never its content) and the commit ids its
    rewrite replaced, which from now on answer ``410 commit_purged``."""
    with transaction.atomic():
        purge = Purge.objects.create(
            public_id=public_id,
            namespace=namespace,
            kind=kind,
            credential=credential[:200],
            paths=paths,
            versions=len(result.dropped),
            previous_commit=result.previous,
            commit=result.commit,
            commits_replaced=len(result.replaced),
            objects_deleted=len(result.deleted),
        )
        ReplacedCommit.objects.bulk_create(
            [
                ReplacedCommit(namespace=namespace, purge=purge, old=old, new=new)
                for old, new in result.replaced.items()
            ],
            batch_size=1000,
            # An id replaced before can be replaced again only if an import brought the
            # old history back; the newest rewrite is the one that counts.
            update_conflicts=True,
            unique_fields=["namespace", "old"],
            update_fields=["new", "purge"],
        )
        # Paths only, never the purge's match string: that is memory content.
        webhook_emit(
            account_id=namespace.account_id,
            type="memory.purged",
            namespace=namespace.name,
            commit=result.commit,
            paths=paths,
            purge=str(public_id),
        )
    return purge
