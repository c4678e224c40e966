"""Counting failures (wrong passwords, unknown API keys, sign-ups) to stop brute force.

A fixed window per ``(scope, key)``: after ``limit`` events within ``window`` seconds the
key is refused until the window ends, answered ``429 rate_limited`` with ``Retry-After``.
Only failures are counted for logins and keys, so successful traffic is never slowed:
a valid API key costs nothing extra, and a blocked address still gets in with one.

The counters are rows of ``gitloom_throttle`` in Postgres (migration
``gitloom/0002_throttle_counters``): every web worker and every node of the service
share them, so a brute force cannot spread its attempts over processes, and no other
server (Redis, memcached) is needed. Counting is one ``INSERT ... ON CONFLICT DO UPDATE
... RETURNING`` statement, which Postgres serialises on the key's row: attempts made at
the same moment from many processes are each counted once and see their own count, so
exactly ``limit`` of them are under the limit. Keys are hashed (a user name or address
is not stored). Rows whose window ended are deleted now and then by ``record``.
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import random
from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.db import connection

from gitloom.core.errors import RateLimited


@dataclass(frozen=True)
class Rule:
    scope: str
    limit: int
    window: int  # seconds


LOGIN_PER_USER = Rule("login-user", limit=10, window=15 * 60)
LOGIN_PER_ADDRESS = Rule("login-address", limit=50, window=15 * 60)
API_KEY_PER_ADDRESS = Rule("api-key-address", limit=30, window=5 * 60)
SIGNUP_PER_ADDRESS = Rule("signup-address", limit=10, window=60 * 60)

# One ``record`` in this many also deletes counters whose window ended long ago.
_SWEEP_ONE_IN = 200

_COUNT = """
INSERT INTO gitloom_throttle AS t (key, count, window_ends)
VALUES (%(key)s, 1, now() + make_interval(secs => %(window)s))
ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN t.window_ends > now() THEN t.count + 1 ELSE 1 END,
    window_ends = CASE WHEN t.window_ends > now() THEN t.window_ends
                       ELSE EXCLUDED.window_ends END
RETURNING count, extract(epoch FROM window_ends - now())
"""


def _key(rule: Rule, key: str) -> str:
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"{rule.scope}:{digest}"


def _seconds(remaining: float) -> int:
    return max(1, int(remaining) + 1)


def record(rule: Rule, key: str) -> int | None:
    """Count one event, atomically; the seconds to wait if it is past the limit (this
    event included), else None."""
    with connection.cursor() as cursor:
        cursor.execute(_COUNT, {"key": _key(rule, key), "window": rule.window})
        count, remaining = cursor.fetchone()
        if random.randrange(_SWEEP_ONE_IN) == 0:  # noqa: S311 - not a secret
            cursor.execute(
                "DELETE FROM gitloom_throttle WHERE window_ends < now() - interval '1 hour'"
            )
    return _seconds(float(remaining)) if count > rule.limit else None


def forgive(rule: Rule, key: str) -> None:
    """Take back one event ``record`` counted (an attempt counted before it was known
    to succeed)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE gitloom_throttle SET count = count - 1"
            " WHERE key = %s AND window_ends > now() AND count > 0",
            [_key(rule, key)],
        )


def clear(rule: Rule, key: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM gitloom_throttle WHERE key = %s", [_key(rule, key)])


def refuse(seconds: int, what: str) -> RateLimited:
    error = RateLimited(f"Too many {what}; try again in {seconds} s.")
    error.retry_after = seconds
    return error


# A GitLoom front end that calls the API for its own clients (the MCP server) names the
# client it serves in this header, signed with GITLOOM_SECRET_KEY, so the API counts
# that client's failures, not the front end's address for all of them.
FORWARDED_CLIENT_HEADER = "X-GitLoom-Client"
_FORWARDED_CLIENT_SALT = "gitloom.throttle.forwarded-client"
_FORWARDED_CLIENT_MAX_AGE = 60  # seconds a signed header is believed


def forwarded_client_header(address: str) -> dict[str, str]:
    signed = signing.TimestampSigner(salt=_FORWARDED_CLIENT_SALT).sign(address[:100])
    return {FORWARDED_CLIENT_HEADER: signed}


def client_address(request) -> str:
    return peer_address(
        request.META.get("REMOTE_ADDR") or "unknown",
        forwarded_for=request.META.get("HTTP_X_FORWARDED_FOR", ""),
        forwarded_client=request.META.get("HTTP_X_GITLOOM_CLIENT", ""),
    )


def peer_address(peer: str, *, forwarded_for: str = "", forwarded_client: str = "") -> str:
    """The client's address: the peer's (``REMOTE_ADDR``), or, when the peer is one of
    ``GITLOOM_TRUSTED_PROXIES``, the rightmost ``X-Forwarded-For`` hop that is not a
    trusted proxy: the address the outermost trusted proxy saw. Hops further left were
    written by the client and are never believed. With no trusted proxies (the
    default) the header is ignored, so a client cannot choose its own address.

    A GitLoom front end's ``X-GitLoom-Client`` wins when it comes from a loopback peer
    or a trusted proxy and carries a fresh signature made with this service's secret
    key; anything else in it (forged, stale, another secret's) is ignored."""
    trusted = _trusted_proxies(tuple(settings.GITLOOM_TRUSTED_PROXIES))
    if forwarded_client and (_is_loopback(peer) or _is_trusted(peer, trusted)):
        signer = signing.TimestampSigner(salt=_FORWARDED_CLIENT_SALT)
        try:
            return signer.unsign(forwarded_client, max_age=_FORWARDED_CLIENT_MAX_AGE)[:100]
        except signing.BadSignature:
            pass
    if not trusted or not _is_trusted(peer, trusted):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",")]
    hops = [hop for hop in hops if hop]
    for hop in reversed(hops):
        if not _is_trusted(hop, trusted):
            return hop[:100]
    # Every hop is a trusted proxy (or there is none): the first one is the client.
    return hops[0][:100] if hops else peer


@functools.lru_cache(maxsize=8)
def _trusted_proxies(
    entries: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _is_loopback(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return ip.is_loopback or bool(getattr(ip, "ipv4_mapped", None) and ip.ipv4_mapped.is_loopback)


def _is_trusted(address: str, trusted) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return any(ip in network for network in trusted)
