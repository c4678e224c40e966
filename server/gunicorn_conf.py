"""gunicorn settings for `manage.py serve`."""

# The application and the embedding model load once in the master, before it forks its
# workers, which share them; each worker then opens its database connection and embeds
# once before it accepts a request (gunicorn_conf's post_worker_init), so the first
# retrieval is as fast as the rest.
import os

from gunicorn import util

preload_app = True
timeout = 120
# Seconds an idle kept-alive connection stays open (gunicorn's default: 2). Longer than
# a proxy's usual idle timeout (60 s) and the MCP server's connection pool (httpx keeps
# an idle connection 5 s), so the client side closes first and never sends a request on
# a connection the server is closing; an idle connection waits in the worker's poller,
# holding no thread.
keepalive = 65
# Each worker's heartbeat is a utime() on a file here, made on every turn of its event
# loop: on a disk-backed /tmp that metadata write was ~15 % of a web worker's busy CPU
# under /v1/whoami (py-spy); tmpfs makes it a memory write (gunicorn's own advice).
_SHM = "/dev/shm"  # noqa: S108 (gunicorn's mkstemp: a private file, unlinked at once)
worker_tmp_dir = _SHM if os.path.isdir(_SHM) and os.access(_SHM, os.W_OK) else None


def on_starting(server) -> None:
    import django

    django.setup()
    from django.conf import settings

    from gitloom.core.request_budget import limit_request_statements
    from retrieval.embeddings import embedder_load

    limit_request_statements(settings.GITLOOM_REQUEST_STATEMENT_TIMEOUT)

    embedder_load()


def post_worker_init(worker) -> None:
    from gitloom.core.warm import process_warm_up
    from retrieval.embeddings import embedder_warm_up

    process_warm_up(role="web", warm=embedder_warm_up)


def _write_json_error(sock, status_int, reason, mesg) -> None:
    """gunicorn's own error answers (a request line over ``limit_request_line``, headers
    over their limits, a malformed request, an error before the application answered)
    in GitLoom's JSON envelope instead of gunicorn's HTML page: every response a client
    of the API can get is JSON."""
    import json
    from http import HTTPStatus

    from gitloom.core.errors import (
        GitLoomError,
        HeadersTooLarge,
        PermissionDenied,
        RequestTooSlow,
        ServerError,
        UnsupportedTransferCoding,
        UriTooLong,
    )

    by_status = {
        414: UriTooLong,
        431: HeadersTooLarge,
        403: PermissionDenied,
        408: RequestTooSlow,
        # gunicorn answers an unknown transfer coding (``xchunked``) 501: the client's
        # mistake, so a declared 400, not the 500 every other 5xx here is.
        501: UnsupportedTransferCoding,
    }
    if status_int >= 500 and status_int not in by_status:
        error: GitLoomError = ServerError()
    else:
        error = by_status.get(status_int, GitLoomError)(str(mesg)[:500] or None)
    body = json.dumps({"error": {"code": error.code, "message": error.message}}).encode()
    head = (
        f"HTTP/1.1 {error.status} {HTTPStatus(error.status).phrase}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


util.write_error = _write_json_error
