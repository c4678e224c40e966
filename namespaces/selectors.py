from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import Account, ApiKey
from gitloom.core.errors import NamespaceNotFound
from gitloom.core.rows import columns, fetch_instances
from gitloom.core.slugs import is_slug
from namespaces.errors import CommitPurged
from namespaces.models import Namespace, ReplacedCommit

DEFAULT_NAMESPACE = "default"


def namespace_name(name: str | None) -> str:
    """The namespace a request means by the name it gives: none (or "") is ``default``."""
    return DEFAULT_NAMESPACE if name in (None, "") else name


def namespace_get_for_account(*, account: Account, name: str | None) -> Namespace:
    """The caller's namespace by name; missing and not-yours are the same 404. The one
    resolver of a namespace name: API views (``NamespaceScopedApi``), job views (through
    it) and dashboard pages (``namespaces.dashboard.namespace_page``) all call it."""
    name = namespace_name(name)
    if not is_slug(name):
        raise NamespaceNotFound()
    # Written out in SQL: every namespace-scoped request runs it (gitloom.core.rows says why).
    found = fetch_instances(
        f"SELECT {columns(Namespace, 'n')} FROM namespaces_namespace n"  # noqa: S608 - model columns
        " WHERE n.account_id = %s AND n.name = %s",
        [account.pk, name],
        (Namespace,),
    )
    if found is None:
        raise NamespaceNotFound()
    (namespace,) = found
    namespace.account = account
    return namespace


def api_key_with_namespace(*, key_hash: str, name: str) -> tuple[ApiKey, Namespace | None] | None:
    """The unrevoked key with this secret hash, its account loaded, and that account's
    namespace ``name`` (None when it has none by that name), in one statement: a
    namespace-scoped API request needs both, and each round trip is on every request's
    path. None without such a key. The caller checks the name is a slug."""
    found = fetch_instances(
        f"SELECT {columns(ApiKey, 'k')}, {columns(Account, 'a')}, {columns(Namespace, 'n')}"  # noqa: S608 - model columns
        " FROM accounts_apikey k JOIN accounts_account a ON a.id = k.account_id"
        " LEFT JOIN namespaces_namespace n ON n.account_id = k.account_id AND n.name = %s"
        " WHERE k.key_hash = %s AND k.revoked IS NULL",
        [name, key_hash],
        (ApiKey, Account, Namespace),
    )
    if found is None:
        return None
    key, account, namespace = found
    key.account = account
    if namespace.pk is None:  # the account has no namespace by that name
        return key, None
    namespace.account = account
    return key, namespace


def namespace_list(*, account: Account) -> QuerySet[Namespace]:
    return Namespace.objects.filter(account=account).order_by("name")


def commit_replaced(*, namespace: Namespace | int, commit: str) -> str | None:
    """The commit that now stands for ``commit`` if a purge rewrote it (following
    later purges' rewrites to the newest id), else ``None``."""
    current, seen = commit, set()
    while True:
        new = (
            ReplacedCommit.objects.filter(namespace=namespace, old=current)
            .values_list("new", flat=True)
            .first()
        )
        if new is None or new in seen:
            return None if current == commit else current
        seen.add(current)
        current = new


def commit_check(*, namespace: Namespace, commit: str) -> str:
    """``commit``, unless a purge replaced it: then ``410 commit_purged`` with
    ``details.replaced_by``. For every endpoint that takes a commit id."""
    replaced_by = commit_replaced(namespace=namespace, commit=commit)
    if replaced_by is not None:
        raise CommitPurged(
            f"Commit {commit} was rewritten by a purge; its history now continues at "
            f"{replaced_by}.",
            replaced_by=replaced_by,
        )
    return commit


def commit_current(*, namespace: Namespace | int, commit: str) -> str:
    """``commit``, or the commit that replaced it (for rows that record commits)."""
    if not commit:
        return commit
    return commit_replaced(namespace=namespace, commit=commit) or commit
