"""The dashboard's account pages, and the plumbing every dashboard page shares.

Every dashboard page calls the same service and selector functions as the API views
(``accounts.services``, ``namespaces.selectors`` ...). Access is checked where data is
fetched: a page receives the signed-in person's account and passes it to the selector,
which answers the same 404 for "missing" and "not yours".
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.errors import NoAccount
from accounts.forms import ApiKeyCreateForm, LoginForm, SignupForm
from accounts.models import Account
from accounts.selectors import account_for_user, api_key_get_for_account, api_key_list
from accounts.services import account_signup, api_key_create, api_key_revoke
from gitloom.errors import GitLoomError
from namespaces.selectors import namespace_list

TITLES = {
    400: "That did not work",
    403: "Not allowed",
    404: "Not found",
    409: "Conflict",
    413: "Too large",
    429: "Too many requests",
    503: "Temporarily unavailable",
}


def error_page(
    request: HttpRequest, *, error: GitLoomError, back_url: str = "", back_label: str = ""
) -> HttpResponse:
    """A GitLoomError as a page: its message for a person, its status for the browser."""
    title = TITLES.get(error.status, "Something went wrong" if error.status >= 500 else "Error")
    context = {"title": title, "message": error.message, "code": error.code}
    context.update(back_url=back_url, back_label=back_label)
    return render(request, "error.html", context, status=error.status)


def dashboard_view(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Sign-in required; passes the person's account; renders GitLoomError as a page.

    The account comes from the session's membership only, never from the URL, so a
    page can only ever ask selectors about the signed-in person's own account.
    """

    @login_required
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        account = account_for_user(user=request.user)
        if account is None:
            return error_page(
                request,
                error=NoAccount(
                    "This user belongs to no active account, so there is nothing to show. "
                    "Sign up for an account, or ask an operator to add you to one.",
                ),
            )
        try:
            return view(request, *args, account=account, **kwargs)
        except GitLoomError as exc:
            return error_page(request, error=exc)

    return wrapper


# --- Sign up, log in ---------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = account_signup(**form.cleaned_data)
        except GitLoomError as exc:
            form.add_error(None, exc.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "accounts/signup.html", {"form": form}, status=status)


class LoginView(auth_views.LoginView):
    # A signed-in person still gets the form (to switch user), not a redirect.
    form_class = LoginForm


# --- Account -----------------------------------------------------------------------


@dashboard_view
def home(request: HttpRequest, *, account: Account) -> HttpResponse:
    keys = api_key_list(account=account)
    context = {
        "section": "account",
        "account": account,
        "membership": request.user.memberships.filter(account=account).first(),
        "active_keys": sum(1 for key in keys if not key.is_revoked),
        "namespace_count": namespace_list(account=account).count(),
        "base_url": request.build_absolute_uri("/").rstrip("/"),
    }
    return render(request, "accounts/home.html", context)


# --- API keys ----------------------------------------------------------------------


@never_cache  # the response that carries a new secret must not sit in any cache
@require_http_methods(["GET", "POST"])
@dashboard_view
def keys(request: HttpRequest, *, account: Account) -> HttpResponse:
    form = ApiKeyCreateForm(request.POST or None)
    created = secret = None
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                created, secret = api_key_create(account=account, name=form.cleaned_data["name"])
            except GitLoomError as exc:
                form.add_error("name", exc.message)
            else:
                # Rendered in this response only (never redirected through the session),
                # so the secret is never stored anywhere: it is shown once, here.
                form = ApiKeyCreateForm()
                status = 201
        if form.errors:
            status = 400
    context = {
        "section": "keys",
        "account": account,
        "form": form,
        "keys": api_key_list(account=account),
        "created": created,
        "secret": secret,
        "base_url": request.build_absolute_uri("/").rstrip("/"),
    }
    return render(request, "accounts/keys.html", context, status=status)


@require_http_methods(["GET", "POST"])
@dashboard_view
def key_revoke(request: HttpRequest, key_id: int, *, account: Account) -> HttpResponse:
    if request.method == "POST":
        key = api_key_revoke(account=account, key_id=key_id)
        messages.success(
            request, f"Revoked “{key.name}” ({key.prefix}…). Requests using it are now refused."
        )
        return redirect("dash-keys")
    key = api_key_get_for_account(account=account, key_id=key_id)
    return render(request, "accounts/key_revoke.html", {"section": "keys", "key": key})
