"""The dashboard's account pages: sign-up, sign-in, the account and its API keys.

They stand on the shared base in ``gitloom.core.dashboard`` (sign-in, the person's account,
errors as pages) and call the same services and selectors as the API views.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.forms import ApiKeyCreateForm, LoginForm, SignupForm
from accounts.models import Account
from accounts.selectors import api_key_get_for_account, api_key_list, signup_problems
from accounts.services import account_signup, api_key_create, api_key_revoke
from accounts.webhooks.selectors import endpoint_disabled_list
from gitloom.core.dashboard import dashboard_view, error_page
from gitloom.core.errors import GitLoomError, RateLimited
from gitloom.core.throttle import (
    LOGIN_PER_ADDRESS,
    LOGIN_PER_USER,
    SIGNUP_PER_ADDRESS,
    clear,
    client_address,
    forgive,
    record,
    refuse,
)
from namespaces.selectors import namespace_list

# --- Sign up, log in ---------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("home")
    if request.method == "POST":
        # Every attempt counts (taken names included), per client address: sign-up can
        # only tell a caller a name is taken, and only this many times an hour.
        wait = record(SIGNUP_PER_ADDRESS, client_address(request))
        if wait:
            return _too_many(request, refuse(wait, "sign-up attempts from this address"))
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        valid = form.is_valid()
        data = form.cleaned_data
        fields = ("account_id", "username", "password")
        checked = {field: data.get(field) for field in fields}
        for field, message in signup_problems(**checked, email=data.get("email") or "").items():
            form.add_error(field, message)
        if valid and not form.errors:
            try:
                user = account_signup(**form.cleaned_data)
            except GitLoomError as exc:
                form.add_error(_SIGNUP_FIELDS.get(exc.code), exc.message)
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                return redirect("home")
    status = 400 if form.errors else 200
    return render(request, "accounts/signup.html", {"form": form}, status=status)


# Which field a refusal of the sign-up service is about, to show it under that field.
_SIGNUP_FIELDS = {
    "account_exists": "account_id",
    "invalid_name": "account_id",
    "username_taken": "username",
    "weak_password": "password",
}


class LoginView(auth_views.LoginView):
    """Django's sign-in with brute-force throttling (gitloom.core.throttle): failed attempts
    are counted per user name and per client address; past either limit every attempt,
    the right password included, is 429 with Retry-After until the window ends.

    Every attempt is counted before its password is checked, so of attempts made at
    the same moment only those within the limit are checked at all; a successful one
    then clears its user's count and is taken back from its address's."""

    # A signed-in person still gets the form (to switch user), not a redirect.
    form_class = LoginForm

    def post(self, request, *args, **kwargs):
        user_wait = record(LOGIN_PER_USER, self._username())
        address_wait = record(LOGIN_PER_ADDRESS, client_address(request))
        if user_wait or address_wait:
            wait = max(user_wait or 0, address_wait or 0)
            return _too_many(request, refuse(wait, "failed sign-in attempts"))
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        clear(LOGIN_PER_USER, self._username())
        forgive(LOGIN_PER_ADDRESS, client_address(self.request))
        return super().form_valid(form)

    def _username(self) -> str:
        """The identity whose failures are counted: the name as the form cleans it
        before authenticating (Django's UsernameField: surrounding whitespace stripped,
        NFKC), casefolded, since no two users' names differ only in case
        (``account_signup``). So ``' carol'``, ``'carol\t'`` and ``'Carol'`` share
        ``carol``'s count and its lock."""
        field = self.get_form_class().base_fields["username"]
        return field.to_python(str(self.request.POST.get("username", "")))[:150].casefold()


def _too_many(request: HttpRequest, error: RateLimited) -> HttpResponse:
    response = error_page(request, error=error)
    response["Retry-After"] = str(error.retry_after)
    return response


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
        "disabled_webhooks": endpoint_disabled_list(account=account),
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
