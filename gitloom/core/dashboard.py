"""The dashboard's shared base: what every app's pages stand on.

Each app owns its pages (``<app>/views.py``) and their routes (``<app>/urls_dashboard.py``,
mounted at "/" by ``server/urls.py``); they share :func:`dashboard_view` and
:func:`error_page` from here. Route names start with ``dash-`` so they never clash
with the /v1/ API's.

Which account a signed-in person acts for is the accounts app's decision, named by the
``DASHBOARD_ACCOUNT`` setting (a dotted path, like ``AUTH_USER_MODEL``), so the core
imports no app above it. Every page receives that account and passes it to the
selectors, which check access where they fetch and answer the same 404 for "missing"
and "not yours".
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, wraps

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.module_loading import import_string

from gitloom.core.errors import GitLoomError, NoAccount

# The URL prefix of a namespace's pages, shared by the apps that have some.
NAMESPACE_PAGES = "namespaces/<str:name>/"

TITLES = {
    400: "That did not work",
    403: "Not allowed",
    404: "Not found",
    409: "Conflict",
    410: "Gone",
    413: "Too large",
    429: "Too many requests",
    503: "Temporarily unavailable",
}


def error_page(
    request: HttpRequest,
    *,
    error: GitLoomError,
    back_url: str = "",
    back_label: str = "",
    without_account: bool = False,
) -> HttpResponse:
    """A GitLoomError as a page: its message for a person, its status for the browser.
    ``without_account``: the person has no account, so no link to the account's pages
    (they would answer this page again); log out and sign up instead."""
    title = TITLES.get(error.status, "Something went wrong" if error.status >= 500 else "Error")
    context = {"title": title, "message": error.message, "code": error.code}
    context.update(back_url=back_url, back_label=back_label, without_account=without_account)
    return render(request, "error.html", context, status=error.status)


@cache
def _account_for() -> Callable[..., object]:
    return import_string(settings.DASHBOARD_ACCOUNT)


def dashboard_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Sign-in required; passes the person's account; renders GitLoomError as a page.

    The account comes from the session's membership only, never from the URL, so a
    page can only ever ask selectors about the signed-in person's own account.
    """

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            account = _account_for()(user=request.user)
        except NoAccount as exc:
            if request.user.is_staff:
                # An operator (createsuperuser) belongs to no account: their page is
                # the admin, where accounts and their members are managed.
                return redirect("admin:index")
            return error_page(request, error=exc, without_account=True)
        try:
            return view(request, *args, account=account, **kwargs)
        except GitLoomError as exc:
            return error_page(request, error=exc)

    return wrapper
