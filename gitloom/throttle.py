"""Counting failures (wrong passwords, unknown API keys, sign-ups) to stop brute force.

A fixed window per ``(scope, key)``: after ``limit`` events within ``window`` seconds the
key is refused until the window ends, answered ``429 rate_limited`` with ``Retry-After``.
Only failures are counted for logins and keys, so successful traffic is never slowed:
a valid API key costs nothing extra, and a blocked address still gets in with one.

The counters live in Django's cache framework under the ``throttle`` alias, which
settings point at the **database cache** (table ``gitloom_cache``): every web worker
and every node of the service share it, so a brute force cannot spread its attempts
over processes the way it could with a per-process memory cache, and no other server
(Redis, memcached) is needed beside Postgres. Increments are not atomic across
processes (get, then set): a race can let a handful of extra attempts through, never
an unbounded number.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

from django.core.cache import caches

from gitloom.errors import RateLimited


@dataclass(frozen=True)
class Rule:
    scope: str
    limit: int
    window: int  # seconds


LOGIN_PER_USER = Rule("login-user", limit=10, window=15 * 60)
LOGIN_PER_ADDRESS = Rule("login-address", limit=50, window=15 * 60)
API_KEY_PER_ADDRESS = Rule("api-key-address", limit=30, window=5 * 60)
SIGNUP_PER_ADDRESS = Rule("signup-address", limit=10, window=60 * 60)


def _cache():
    return caches["throttle"]


def _key(rule: Rule, key: str) -> str:
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"throttle:{rule.scope}:{digest}"


def retry_after(rule: Rule, key: str) -> int | None:
    """Seconds until ``key`` may try again, or None when it is under the limit."""
    entry = _cache().get(_key(rule, key))
    if not entry or entry[0] < rule.limit:
        return None
    return max(1, int(entry[1] - time.time()) + 1)


def record(rule: Rule, key: str) -> int | None:
    """Count one event; the seconds to wait if it is past the limit, else None."""
    cache, name, now = _cache(), _key(rule, key), time.time()
    entry = cache.get(name)
    count, ends = (entry[0] + 1, entry[1]) if entry and entry[1] > now else (1, now + rule.window)
    cache.set(name, (count, ends), timeout=max(1, int(ends - now) + 1))
    return max(1, int(ends - now) + 1) if count > rule.limit else None


def clear(rule: Rule, key: str) -> None:
    _cache().delete(_key(rule, key))


def refuse(seconds: int, what: str) -> RateLimited:
    error = RateLimited(f"Too many {what}; try again in {seconds} s.")
    error.retry_after = seconds
    return error


def client_address(request) -> str:
    """The peer's address (REMOTE_ADDR; put a proxy's forwarded address there)."""
    return request.META.get("REMOTE_ADDR") or "unknown"
