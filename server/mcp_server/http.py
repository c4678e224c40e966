"""The Streamable HTTP transport: the MCP endpoint (``/mcp``) behind a key gate.

Each request must carry ``Authorization: Bearer <GitLoom API key>``; the gate checks
it with the API (``/v1/whoami``) before the MCP layer sees the request, so a missing or
wrong key is a plain HTTP ``401`` with ``WWW-Authenticate: Bearer``, in the API's error
envelope. The tools then call the API with that same key, so they act for that key's
account and a key revoked meanwhile fails on the next tool call. A key the API has
accepted is not asked about again for ``KEY_CHECK_SECONDS``. Every call to the API names
the client being served (``X-GitLoom-Client``, signed), so the API's throttle counts that
client and not this server's address; a throttled client gets the API's ``429``.

The server is stateless (no MCP session to keep between requests) and answers in JSON,
so any number of these processes can sit behind one address.
"""

from __future__ import annotations

import hashlib
import json
import math
import socket
import time
from collections.abc import Callable, Sequence

import uvicorn
from django.http.request import split_domain_port, validate_host
from gitloom_client import AuthenticationError, GitLoomError, RateLimitError
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from server.mcp_server.server import Backend, bearer_key, build_server, client_address

MCP_PATH = "/mcp"
HEALTH_PATH = "/healthz"
KEY_CHECK_SECONDS = 10.0
_MAX_CACHED_KEYS = 10_000


class KeyGate:
    """ASGI middleware in front of the MCP app: a valid API key, an allowed Host."""

    def __init__(self, app: ASGIApp, *, backend: Backend, allowed_hosts: Sequence[str]):
        self.app = app
        self.backend = backend
        self.allowed_hosts = list(allowed_hosts)
        self._accepted: dict[str, float] = {}  # sha256 of a key -> when it was checked

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan: the MCP app's own start and stop
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        domain, _port = split_domain_port(headers.get("host", ""))
        if not domain or not validate_host(domain, self.allowed_hosts):
            await _error(send, 400, "bad_request", "This host name is not served here.")
            return
        if scope["path"] == HEALTH_PATH:
            await _json(send, 200, {"status": "ok"})
            return
        key = bearer_key(headers.get("authorization"))
        if key is None:
            await _error(
                send,
                401,
                "not_authenticated",
                "Send a GitLoom API key as `Authorization: Bearer <key>`.",
            )
            return
        try:
            accepted = await self._accepts(key, client_address(scope, headers))
        except RateLimitError as exc:
            # The API throttles this client (its failed key attempts): say so, as it does.
            wait = max(1, math.ceil(exc.retry_after or 1))
            await _error(send, 429, exc.code, exc.message, retry_after=wait)
            return
        except GitLoomError as exc:
            await _error(
                send,
                503,
                "service_unavailable",
                f"The GitLoom API did not answer the key check ({exc.code}).",
                retry_after=5,
            )
            return
        if not accepted:
            await _error(
                send,
                401,
                "authentication_failed",
                "That API key is not valid: it is wrong, revoked, or its account is closed.",
            )
            return
        await self.app(scope, receive, send)

    async def _accepts(self, key: str, address: str) -> bool:
        digest = hashlib.sha256(key.encode()).hexdigest()
        checked = self._accepted.get(digest)
        now = time.monotonic()
        if checked is not None and now - checked < KEY_CHECK_SECONDS:
            return True
        try:
            # Not retried: a 429 is the caller's answer, not something to wait out here.
            await self.backend.client_for(key, client=address, max_retries=0).whoami()
        except AuthenticationError:
            self._accepted.pop(digest, None)
            return False
        if len(self._accepted) >= _MAX_CACHED_KEYS:
            self._accepted.clear()
        self._accepted[digest] = now
        return True


async def _json(send: Send, status: int, body: object, headers: Sequence[tuple[str, str]] = ()):
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *((name.encode(), value.encode()) for name, value in headers),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


async def _error(
    send: Send, status: int, code: str, message: str, *, retry_after: int | None = None
) -> None:
    headers = []
    if status == 401:
        headers.append(("www-authenticate", 'Bearer realm="gitloom"'))
    if retry_after is not None:
        headers.append(("retry-after", str(retry_after)))
    await _json(send, status, {"error": {"code": code, "message": message}}, headers)


def http_app(*, api_url: str, allowed_hosts: Sequence[str], path: str = MCP_PATH) -> ASGIApp:
    """The ASGI app: MCP at ``path``, ``/healthz`` for readiness, everything behind the
    key gate. The gate checks Host against ``allowed_hosts`` (Django's rules, so
    ``GITLOOM_ALLOWED_HOSTS`` applies here too); the SDK's own Host check is off."""
    mcp, backend = build_server(api_url=api_url)
    app = mcp.streamable_http_app(
        streamable_http_path=path,
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return KeyGate(app, backend=backend, allowed_hosts=allowed_hosts)


class _Server(uvicorn.Server):
    """uvicorn, telling ``on_started`` once it listens (``serve`` waits for that)."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None] | None):
        super().__init__(config)
        self.on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and self.on_started is not None:
            self.on_started()


def run_http(
    *,
    host: str,
    port: int,
    api_url: str,
    allowed_hosts: Sequence[str],
    path: str = MCP_PATH,
    log_level: str = "info",
    on_started: Callable[[], None] | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM (uvicorn finishes the requests in flight);
    ``on_started`` is called once the socket listens."""
    app = http_app(api_url=api_url, allowed_hosts=allowed_hosts, path=path)
    config = uvicorn.Config(app, host=host, port=port, lifespan="on", log_level=log_level)
    _Server(config, on_started).run()
