"""GitLoom's error tree: every code the API can answer, declared once.

Every failure a caller can meet is a ``GitLoomError`` subclass whose body declares its
``code`` (stable, for programs), ``status`` and default ``message`` (for people). A code
is declared by exactly one class (a subclass may change the message, never the code
without declaring a new class), so ``REGISTRY`` maps every code to its class and
docs/API.md's list of codes is checked against it (``tests/gitloom/test_docs.py``).
A raise site picks a class; it cannot invent a code (``code=`` is refused).

How an error is answered, the ``{"error": {"code", "message"}}`` envelope, is
``gitloom.core.envelope``'s job. Errors of one app live in its ``errors.py``; the ones here
are shared by every app or belong to the HTTP layer itself.
"""

from __future__ import annotations

REGISTRY: dict[str, type[GitLoomError]] = {}


class GitLoomError(Exception):
    code = "bad_request"
    status = 400
    message = "Bad request."
    # What an API caller does about it, in the API's own terms: the envelope adds it to
    # the default message. The dashboard and the MCP tools say it their own way.
    fix = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "code" in cls.__dict__:
            _register(cls)

    def __init__(self, message: str | None = None, **details):
        if "code" in details:
            raise TypeError(
                f"{type(self).__name__}(code=...): declare a GitLoomError subclass with "
                "its code instead (gitloom/core/errors.py)"
            )
        self.message = message or self.message
        self.details = details
        super().__init__(self.message)


def _register(cls: type[GitLoomError]) -> None:
    known = REGISTRY.get(cls.code)
    # The same class defined again (a module reloaded) replaces itself.
    if known is not None and (known.__module__, known.__qualname__) != (
        cls.__module__,
        cls.__qualname__,
    ):
        raise TypeError(
            f"error code {cls.code!r} is declared twice: "
            f"{known.__module__}.{known.__qualname__} and {cls.__module__}.{cls.__qualname__}"
        )
    REGISTRY[cls.code] = cls


_register(GitLoomError)


# --- 400 ---------------------------------------------------------------------------


class InvalidInput(GitLoomError):
    code, status, message = "invalid", 400, "Invalid input."


class EmptyBody(InvalidInput):
    # A write whose body is required sent none (an import's archive, a JSON object).
    code, message = "empty_body", "The request body is empty."


class MalformedJson(GitLoomError):
    code, status, message = "malformed_json", 400, "The request body is not valid JSON."


class InvalidName(GitLoomError):
    code, status, message = "invalid_name", 400, "Names are 1-64 characters of a-z, 0-9 and '-'."


class InvalidPath(InvalidInput):
    # Repository paths (namespaces) and memory paths (the memory file format) alike.
    code, message = "invalid_path", "Invalid path."


# --- 401, 403 ----------------------------------------------------------------------


class NotAuthenticated(GitLoomError):
    code, status, message = (
        "not_authenticated",
        401,
        "No credentials: send an API key as `Authorization: Bearer glk_...`, or sign in "
        "to the dashboard.",
    )


class AuthenticationFailed(GitLoomError):
    code, status, message = (
        "authentication_failed",
        401,
        "That API key is not valid: it is wrong, revoked, or its account is closed.",
    )


class PermissionDenied(GitLoomError):
    code, status, message = "permission_denied", 403, "You may not do that."


class DashboardOnly(GitLoomError):
    code, status, message = (
        "dashboard_only",
        403,
        "Key management needs a dashboard session; API keys cannot manage keys.",
    )


class NoAccount(PermissionDenied):
    # A signed-in person who belongs to no active account (API and dashboard alike).
    code, message = "no_account", "This user belongs to no active account."


# --- 404, 405, 406, 408, 409, 413, 415, 429 ---------------------------------------------


class NotFound(GitLoomError):
    code, status, message = "not_found", 404, "Not found."


class NamespaceNotFound(NotFound):
    code, message = "namespace_not_found", "Namespace not found."
    fix = (
        'Namespaces are created explicitly: POST /v1/namespaces {"name": "..."} '
        "makes one (GET /v1/namespaces lists yours)."
    )


class MethodNotAllowed(GitLoomError):
    code, status, message = "method_not_allowed", 405, "Method not allowed."


class NotAcceptable(GitLoomError):
    code, status, message = "not_acceptable", 406, "This endpoint answers JSON."


class RequestTooSlow(GitLoomError):
    # Answered by the web worker itself: the headers or body did not arrive in time.
    code, status, message = (
        "request_too_slow",
        408,
        "The request's headers or body did not arrive in time.",
    )


class UnsupportedTransferCoding(GitLoomError):
    # Answered by the HTTP server (gunicorn) itself, before Django sees the request.
    code, message = "unsupported_transfer_coding", "Only the chunked transfer coding is accepted."


class Conflict(GitLoomError):
    code, status, message = "conflict", 409, "Conflict."


class PayloadTooLarge(GitLoomError):
    code, status, message = "payload_too_large", 413, "Payload too large."


class UnsupportedMediaType(GitLoomError):
    code, status, message = "unsupported_media_type", 415, "Send JSON (application/json)."


class UriTooLong(GitLoomError):
    # Answered by the HTTP server (gunicorn) itself, before Django sees the request.
    code, status, message = "uri_too_long", 414, "The request line is too long."


class HeadersTooLarge(GitLoomError):
    # Answered by the HTTP server (gunicorn) itself, before Django sees the request.
    code, status, message = "headers_too_large", 431, "The request headers are too large."


class RateLimited(GitLoomError):
    code, status, message = "rate_limited", 429, "Too many requests."


# --- 500, 503 ----------------------------------------------------------------------


class ServerError(GitLoomError):
    # A bug: logged with its traceback, answered with this and nothing more.
    code, status, message = "server_error", 500, "Internal server error."


class ServiceUnavailable(GitLoomError):
    code, status, message = "service_unavailable", 503, "A dependency is unavailable."
    # Seconds a client should wait before trying again (the Retry-After header): about
    # what a restarting Postgres or object store takes to answer again.
    retry_after = 5


class RequestTimeout(ServiceUnavailable):
    # A database statement ran past GITLOOM_REQUEST_STATEMENT_TIMEOUT inside a request:
    # the request ends with this answer instead of holding its worker until gunicorn
    # drops the connection.
    code, message = "request_timeout", "The request ran over its time budget; try again."
    retry_after = 1
