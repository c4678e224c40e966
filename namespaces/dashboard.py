"""The dashboard's namespace pages resolve their namespace in one place.

In the manner of ``NamespaceScopedApi``: :func:`namespace_page` is ``dashboard_view``
plus the lookup of the ``<name>`` URL argument for the signed-in person's account (the
same 404 page for "missing" and "not yours"); the page receives the ``Namespace``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.http import HttpRequest, HttpResponse

from gitloom.core.dashboard import dashboard_view
from namespaces.selectors import namespace_get_for_account


def namespace_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A dashboard page of one namespace: called with ``namespace=`` and ``account=``
    in place of the route's ``name``."""

    @dashboard_view
    @wraps(view)
    def page(request: HttpRequest, *args, account, name: str, **kwargs) -> HttpResponse:
        namespace = namespace_get_for_account(account=account, name=name)
        return view(request, *args, namespace=namespace, account=account, **kwargs)

    return page
