from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import Account
from gitloom.errors import NamespaceNotFound
from gitloom.slugs import is_slug
from namespaces.models import Namespace

DEFAULT_NAMESPACE = "default"


def namespace_get_for_account(*, account: Account, name: str | None) -> Namespace:
    """The caller's namespace by name; missing and not-yours are the same 404."""
    name = DEFAULT_NAMESPACE if name in (None, "") else name
    if not is_slug(name):
        raise NamespaceNotFound()
    try:
        return Namespace.objects.select_related("account").get(account=account, name=name)
    except Namespace.DoesNotExist:
        raise NamespaceNotFound() from None


def namespace_list(*, account: Account) -> QuerySet[Namespace]:
    return Namespace.objects.filter(account=account).order_by("name")
