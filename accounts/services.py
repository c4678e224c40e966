from __future__ import annotations

import secrets
import unicodedata

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import CharField, F, Func, Value
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.authentication import KEY_PREFIX, hash_secret
from accounts.errors import (
    AccountExists,
    AlreadyMember,
    InvalidUsername,
    PasswordRequired,
    UsernameTaken,
    WeakPassword,
)
from accounts.models import Account, ApiKey, Membership
from accounts.selectors import api_key_get_for_account
from gitloom.core.errors import InvalidName
from gitloom.core.slugs import validate_slug


@transaction.atomic
def account_create(*, account_id: str) -> Account:
    validate_slug(account_id, what="account id")
    if Account.objects.filter(id=account_id).exists():
        raise AccountExists()
    try:
        with transaction.atomic():
            return Account.objects.create(id=account_id)
    except IntegrityError:
        raise AccountExists() from None


# Characters that show as nothing (zero-width spaces and joiners, the soft hyphen, BOM,
# bidi marks: Unicode's "format" class) or are controls: a name holding one looks like
# another person's.
_INVISIBLE = {"Cc", "Cf", "Co", "Cn", "Zl", "Zp"}


def username_clean(username: str) -> str:
    """A new username as it is stored: NFKC-normalised (fullwidth ``ＤＡＶＥ`` is
    ``DAVE``, as sign-in reads it), with no invisible character; else
    ``InvalidUsername``. Existing users' names are never rewritten."""
    name = unicodedata.normalize("NFKC", str(username)).strip()
    if any(unicodedata.category(char) in _INVISIBLE for char in name):
        raise InvalidUsername("A username cannot hold invisible or control characters.")
    return name


def _username_taken(username: str) -> bool:
    """Whether a user's name equals ``username`` once both are NFKC-normalised and
    case-folded (Postgres's ``normalize`` and ``lower``), so ``carol``, ``Carol`` and
    ``ｃａｒｏｌ`` are one name."""
    User = get_user_model()

    def key(expression):
        return Lower(
            Func(expression, function="normalize", template="%(function)s(%(expressions)s, NFKC)")
        )

    return (
        User.objects.annotate(name_key=key(F("username")))
        .filter(name_key=key(Value(username, output_field=CharField())))
        .exists()
    )


@transaction.atomic
def account_signup(*, account_id: str, username: str, password: str, email: str = ""):
    """A person signs up: a user, a new account, and their owner membership."""
    validate_slug(account_id, what="account id")
    User = get_user_model()
    username = username_clean(username)
    if _username_taken(username):
        raise UsernameTaken()
    user = User(username=username, email=email)
    _check_password(password, user=user)
    account = account_create(account_id=account_id)
    user.set_password(password)
    user.save()
    Membership.objects.create(user=user, account=account, role=Membership.Role.OWNER)
    return user


def _check_password(password: str, *, user) -> None:
    try:
        validate_password(password, user=user)
    except ValidationError as exc:
        raise WeakPassword(" ".join(exc.messages)) from None


@transaction.atomic
def membership_add(
    *,
    account: Account,
    username: str,
    password: str | None = None,
    email: str = "",
    role: str = Membership.Role.OWNER,
) -> Membership:
    """Let a person sign in to an account's dashboard (an operator's command-line step for
    an account made without sign-up).

    A new username becomes a user with ``password`` (the sign-up rules apply); an existing
    user keeps their password and gains this account. A username that differs from an
    existing one only in case is refused, as at sign-up.
    """
    User = get_user_model()
    user = User.objects.filter(username=username).first()
    if user is None:
        username = username_clean(username)
        user = User.objects.filter(username=username).first()
    if user is None:
        if _username_taken(username):
            raise UsernameTaken()
        if not username or len(username) > 150:
            raise InvalidUsername("A username is 1-150 characters.")
        try:
            User._meta.get_field("username").run_validators(username)
        except ValidationError as exc:
            raise InvalidUsername(" ".join(exc.messages)) from None
        if not password:
            raise PasswordRequired()
        user = User(username=username, email=email)
        _check_password(password, user=user)
        user.set_password(password)
        user.save()
    elif Membership.objects.filter(user=user, account=account).exists():
        raise AlreadyMember()
    return Membership.objects.create(user=user, account=account, role=role)


def api_key_create(*, account: Account, name: str) -> tuple[ApiKey, str]:
    """Mint a key; the secret is returned here once and never stored."""
    name = name.strip()
    if not name or len(name) > 100:
        raise InvalidName("A key name is 1-100 characters.")
    secret = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey.objects.create(
        account=account, name=name, prefix=secret[:12], key_hash=hash_secret(secret)
    )
    return key, secret


def api_key_revoke(*, account: Account, key_id: int) -> ApiKey:
    key = api_key_get_for_account(account=account, key_id=key_id)
    if key.revoked is None:
        key.revoked = timezone.now()
        key.save(update_fields=["revoked"])
    return key
