"""API-key and dashboard-session authentication; both resolve to one account.

The key class comes first so an unauthenticated call gets 401 with WWW-Authenticate;
it returns None without a Bearer header so the session class can try next. The session
class keeps DRF's CSRF enforcement.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import timedelta

from django.utils import timezone
from rest_framework.authentication import BaseAuthentication, SessionAuthentication
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.credentials import Credential
from accounts.models import ApiKey
from accounts.selectors import api_key_for_hash
from gitloom.core.errors import AuthenticationFailed, NoAccount, NotAuthenticated
from gitloom.core.throttle import API_KEY_PER_ADDRESS, client_address, record, refuse

KEY_PREFIX = "glk_"
# Writing last_used on every request would put a write on the retrieval hot path.
LAST_USED_GRANULARITY = timedelta(seconds=60)


def hash_secret(secret: str) -> str:
    # SHA-256 is right for long random secrets: no dictionary to slow down.
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiKeyUser:
    """The request.user of an API-key request: the key's account, not a person."""

    is_authenticated = True
    is_anonymous = False
    is_staff = False

    def __init__(self, api_key: ApiKey):
        self.api_key = api_key
        self.pk = None

    def __str__(self) -> str:
        return f"api-key:{self.api_key.prefix}"


def _failed(request, error: AuthenticationFailed) -> Exception:
    """A failed key attempt is counted per client address; past the limit it is 429
    with Retry-After instead of 401 (gitloom.core.throttle). A valid key is never counted."""
    wait = record(API_KEY_PER_ADDRESS, client_address(request))
    return refuse(wait, "failed API-key attempts from this address") if wait else error


# How a request's API key is read: (request, key_hash) -> the unrevoked key, its
# account loaded, or None.
KeyLookup = Callable[[Request, str], ApiKey | None]


def key_for_hash(request: Request, key_hash: str) -> ApiKey | None:
    return api_key_for_hash(key_hash=key_hash)


class ApiKeyAuthentication(BaseAuthentication):
    """``key_lookup`` is how the key is read: by default the key alone; a view that
    needs more in the same statement hands its own in (``accounts.key_lookup.KeyLookupApi``)."""

    def __init__(self, key_lookup: KeyLookup = key_for_hash):
        self.key_lookup = key_lookup

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "")
        if not header:
            return None
        scheme, _, secret = header.partition(" ")
        if scheme.lower() != "bearer":
            if header.strip().startswith(KEY_PREFIX):  # the key alone, its scheme forgotten
                raise NotAuthenticated(
                    "The Authorization header holds an API key without its scheme: send "
                    "`Authorization: Bearer glk_...`."
                )
            return None  # another scheme (a proxy's Basic): a session may still sign in
        secret = secret.strip()
        if not secret:
            raise _failed(request, AuthenticationFailed("Empty bearer token."))
        key = self.key_lookup(request, hash_secret(secret))
        if key is None or not key.account.is_active:
            raise _failed(request, AuthenticationFailed())
        now = timezone.now()
        if key.last_used is None or now - key.last_used > LAST_USED_GRANULARITY:
            ApiKey.objects.filter(pk=key.pk).update(last_used=now)
            key.last_used = now
        return ApiKeyUser(key), Credential(account=key.account, api_key=key)

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="gitloom"'


class DashboardSessionAuthentication(SessionAuthentication):
    def authenticate(self, request):
        result = super().authenticate(request)  # enforces CSRF for logged-in sessions
        if result is None:
            return None
        user, _ = result
        from accounts.selectors import account_for_user

        account = account_for_user(user=user)
        if account is None:
            raise NoAccount("This user belongs to no active account.")
        return user, Credential(account=account, user=user)


class HasAccount(BasePermission):
    def has_permission(self, request, view) -> bool:
        if isinstance(request.auth, Credential):
            return True
        raise NotAuthenticated()
