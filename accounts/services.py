from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.authentication import KEY_PREFIX, hash_secret
from accounts.errors import AccountExists
from accounts.models import Account, ApiKey, Membership
from accounts.selectors import api_key_get_for_account
from gitloom.errors import Conflict, InvalidInput
from gitloom.slugs import validate_slug


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


@transaction.atomic
def account_signup(*, account_id: str, username: str, password: str, email: str = ""):
    """A person signs up: a user, a new account, and their owner membership."""
    validate_slug(account_id, what="account id")
    User = get_user_model()
    if User.objects.filter(username__iexact=username).exists():
        raise Conflict("That username is taken.", code="username_taken")
    user = User(username=username, email=email)
    try:
        validate_password(password, user=user)
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages), code="weak_password") from None
    account = account_create(account_id=account_id)
    user.set_password(password)
    user.save()
    Membership.objects.create(user=user, account=account, role=Membership.Role.OWNER)
    return user


def api_key_create(*, account: Account, name: str) -> tuple[ApiKey, str]:
    """Mint a key; the secret is returned here once and never stored."""
    name = name.strip()
    if not name or len(name) > 100:
        raise InvalidInput("A key name is 1-100 characters.", code="invalid_name")
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
