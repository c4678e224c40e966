"""The one module that calls a webhook receiver.

Outbound rules (docs/API.md, "Webhooks"): ``https://`` only; the host is resolved here,
every address it resolves to must be public (not loopback, private, link-local,
multicast, reserved or the cloud metadata range), and the request goes to the checked
address itself, with the name kept for ``Host`` and TLS (SNI and the certificate
check), so a name that resolves differently a moment later (DNS rebinding) cannot
steer it elsewhere. The check runs at registration and again at every attempt.
Connect and read timeouts, and a total deadline per attempt
(``GITLOOM_WEBHOOK_ATTEMPT_TIMEOUT``: a receiver trickling its answer a byte at a time
never trips a per-read timeout, so the whole exchange runs under ``asyncio.timeout``
with httpx's async client, which cancels it cleanly); redirects are not followed (a 3xx is a failed attempt);
proxies from the environment are not used; at most ``GITLOOM_WEBHOOK_RESPONSE_BYTES``
of the answer are read. ``GITLOOM_WEBHOOK_ALLOW_LOCAL`` allows ``http://`` and local
addresses, for development and tests.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx
from django.conf import settings


class Refused(Exception):
    """The URL or what its host resolves to is not allowed; the message says why."""


# A developer's first receiver is local: name the switch, and that it is read at start.
LOCAL_HINT = (
    "For a receiver on this machine or a private network in development, start the "
    "service with GITLOOM_WEBHOOK_ALLOW_LOCAL=1 (read at start: restart it after setting it)."
)


@dataclass(frozen=True)
class Outcome:
    status_code: int | None
    latency_ms: int
    error: str = ""
    response: str = ""

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: NAT64 (RFC 6052, the
# well-known and the local-use prefix) and the deprecated IPv4-compatible ::a.b.c.d.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_V4_COMPATIBLE = ipaddress.ip_network("::/96")
# Link-local, where clouds answer their instance metadata (169.254.169.254, and
# fd00:ec2::254 on AWS over IPv6): never a webhook, even for local development.
_NEVER = (
    ipaddress.ip_network("169.254.0.0/16"),
    ipaddress.ip_network("fe80::/10"),
    ipaddress.ip_network("fd00:ec2::254/128"),
)


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address an IPv6 address carries (mapped, 6to4, Teredo, NAT64,
    IPv4-compatible): each must pass the check too."""
    found = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if any(ip in net for net in _NAT64) or (ip in _V4_COMPATIBLE and int(ip) > 1):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def _address_allowed(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded:
            return all(_address_allowed(str(v4)) for v4 in embedded)
    if any(ip in net for net in _NEVER if net.version == ip.version):
        return False
    if settings.GITLOOM_WEBHOOK_ALLOW_LOCAL:
        return not ip.is_multicast and not ip.is_unspecified
    return ip.is_global and not ip.is_multicast


def url_check(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of an acceptable URL, or ``Refused``."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise Refused("That is not a URL.") from None
    allowed = ("https", "http") if settings.GITLOOM_WEBHOOK_ALLOW_LOCAL else ("https",)
    if parts.scheme not in allowed:
        local = "" if settings.GITLOOM_WEBHOOK_ALLOW_LOCAL else f" {LOCAL_HINT}"
        raise Refused(f"A webhook URL must start with https://.{local}")
    if not parts.hostname:
        raise Refused("A webhook URL needs a host.")
    if parts.username or parts.password:
        raise Refused("A webhook URL cannot carry a user name or password.")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def resolve_checked(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to, once all of them are allowed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise Refused(f"The host {host} does not resolve.") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    refused = [address for address in addresses if not _address_allowed(address)]
    if refused or not addresses:
        local = "" if settings.GITLOOM_WEBHOOK_ALLOW_LOCAL else f" {LOCAL_HINT}"
        raise Refused(f"The host {host} resolves to a non-public address ({refused[0]}).{local}")
    return addresses


def post(*, url: str, body: bytes, headers: dict[str, str]) -> Outcome:
    """POST ``body`` to ``url`` under the rules above; never raises for the receiver's
    faults (they come back as an ``Outcome`` with ``error``)."""
    started = time.monotonic()

    def outcome(**fields) -> Outcome:
        return Outcome(latency_ms=round((time.monotonic() - started) * 1000), **fields)

    try:
        scheme, host, port = url_check(url)
        address = resolve_checked(host, port)[0]
    except Refused as exc:
        return outcome(status_code=None, error=f"refused: {exc}")
    parts = urlsplit(url)
    target = f"[{address}]" if ":" in address else address
    pinned = parts._replace(netloc=f"{target}:{port}").geturl()
    default_port = 443 if scheme == "https" else 80
    named = f"[{host}]" if ":" in host else host  # an IPv6 literal keeps its brackets
    host_header = named if port == default_port else f"{named}:{port}"
    timeout = httpx.Timeout(
        connect=settings.GITLOOM_WEBHOOK_CONNECT_TIMEOUT,
        read=settings.GITLOOM_WEBHOOK_READ_TIMEOUT,
        write=settings.GITLOOM_WEBHOOK_READ_TIMEOUT,
        pool=settings.GITLOOM_WEBHOOK_CONNECT_TIMEOUT,
    )
    request_headers = {
        **headers,
        "Host": host_header,
        "Content-Type": "application/json",
        "User-Agent": "GitLoom-Webhooks/1",
    }
    limit = settings.GITLOOM_WEBHOOK_RESPONSE_BYTES

    async def exchange() -> tuple[int, bytes]:
        async with (
            httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False) as client,
            client.stream(
                "POST",
                pinned,
                content=body,
                headers=request_headers,
                extensions={"sni_hostname": host},
            ) as response,
        ):
            read = b""
            async for chunk in response.aiter_raw():
                read += chunk
                if len(read) >= limit:
                    break
            return response.status_code, read

    async def within_deadline() -> tuple[int, bytes]:
        async with asyncio.timeout(settings.GITLOOM_WEBHOOK_ATTEMPT_TIMEOUT):
            return await exchange()

    try:
        status_code, read = asyncio.run(within_deadline())
    except TimeoutError:
        return outcome(status_code=None, error="timeout (attempt)")
    except httpx.TimeoutException as exc:
        kind = "connect" if isinstance(exc, httpx.ConnectTimeout) else "read"
        return outcome(status_code=None, error=f"timeout ({kind})")
    except httpx.HTTPError as exc:
        return outcome(status_code=None, error=f"connection failed: {type(exc).__name__}")
    text = read[:limit].decode("utf-8", "replace")[:500]
    error = f"redirect not followed ({status_code})" if (300 <= status_code < 400) else ""
    return outcome(status_code=status_code, response=text, error=error)
