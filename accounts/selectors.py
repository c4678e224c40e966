from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from accounts.errors import AccountNotFound, ApiKeyNotFound, NoAccount
from accounts.models import Account, ApiKey
from gitloom.core.rows import columns, fetch_instances


def account_get(*, account_id: str) -> Account:
    try:
        return Account.objects.get(id=account_id)
    except Account.DoesNotExist:
        raise AccountNotFound() from None


def api_key_for_hash(*, key_hash: str) -> ApiKey | None:
    """The unrevoked key with this secret hash, its account loaded; None if there is
    none. Written out in SQL: it runs on every API request (gitloom.core.rows says why)."""
    found = fetch_instances(
        f"SELECT {columns(ApiKey, 'k')}, {columns(Account, 'a')}"  # noqa: S608 - model columns
        " FROM accounts_apikey k JOIN accounts_account a ON a.id = k.account_id"
        " WHERE k.key_hash = %s AND k.revoked IS NULL",
        [key_hash],
        (ApiKey, Account),
    )
    if found is None:
        return None
    key, account = found
    key.account = account
    return key


def signup_problems(
    *, account_id: str | None, username: str | None, password: str | None, email: str = ""
) -> dict[str, str]:
    """What ``account_signup`` would refuse, every field at once (a field given as None
    is not checked): the form shows each under its field, where one refusal at a time
    sent people round the form again and again. The service still checks (a race)."""
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    from accounts.errors import AccountExists, UsernameTaken

    User = get_user_model()
    problems = {}
    if account_id is not None and Account.objects.filter(id=account_id).exists():
        problems["account_id"] = AccountExists.message
    if username is not None and User.objects.filter(username__iexact=username).exists():
        problems["username"] = UsernameTaken.message
    if password is not None:
        try:
            validate_password(password, user=User(username=username or "", email=email))
        except ValidationError as exc:
            problems["password"] = " ".join(exc.messages)
    return problems


def user_exists(*, username: str) -> bool:
    """Whether a person signs in with exactly this username."""
    return get_user_model().objects.filter(username=username).exists()


def account_for_user(*, user) -> Account | None:
    membership = (
        user.memberships.select_related("account")
        .filter(account__is_active=True)
        .order_by("created", "id")
        .first()
    )
    return membership.account if membership else None


def account_for_dashboard(*, user) -> Account:
    """The account a signed-in person's dashboard pages act for (the ``DASHBOARD_ACCOUNT``
    setting names this for ``gitloom.core.dashboard``); ``NoAccount`` when there is none."""
    account = account_for_user(user=user)
    if account is None:
        raise NoAccount(
            "This user belongs to no active account, so there is nothing to show. "
            "Sign up for an account, or ask an operator to add you to one."
        )
    return account


def api_key_list(*, account: Account) -> QuerySet[ApiKey]:
    return ApiKey.objects.filter(account=account).order_by("-created", "-id")


def api_key_get_for_account(*, account: Account, key_id: int) -> ApiKey:
    try:
        return ApiKey.objects.get(account=account, pk=key_id)
    except ApiKey.DoesNotExist:
        raise ApiKeyNotFound() from None
