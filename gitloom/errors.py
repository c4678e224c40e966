"""GitLoom's error tree.

Every failure a caller can cause is a ``GitLoomError`` subclass; one DRF exception
handler (``gitloom.exceptions.exception_handler``) turns it into
``{"error": {"code": ..., "message": ...}}`` with the class's status.
"""

from __future__ import annotations


class GitLoomError(Exception):
    code = "bad_request"
    status = 400
    message = "Bad request."

    def __init__(self, message: str | None = None, *, code: str | None = None, **details):
        self.message = message or self.message
        if code:
            self.code = code
        self.details = details
        super().__init__(self.message)


class InvalidInput(GitLoomError):
    code, status, message = "invalid", 400, "Invalid input."


class InvalidName(GitLoomError):
    code, status, message = "invalid_name", 400, "Names are 1-64 characters of a-z, 0-9 and '-'."


class NotAuthenticated(GitLoomError):
    code, status, message = (
        "not_authenticated",
        401,
        "Authentication credentials were not provided.",
    )


class AuthenticationFailed(GitLoomError):
    code, status, message = "authentication_failed", 401, "Invalid or revoked API key."


class PermissionDenied(GitLoomError):
    code, status, message = "permission_denied", 403, "You may not do that."


class DashboardOnly(GitLoomError):
    code, status, message = (
        "dashboard_only",
        403,
        "Key management needs a dashboard session; API keys cannot manage keys.",
    )


class NotFound(GitLoomError):
    code, status, message = "not_found", 404, "Not found."


class NamespaceNotFound(NotFound):
    code, message = "namespace_not_found", "Namespace not found."


class Conflict(GitLoomError):
    code, status, message = "conflict", 409, "Conflict."


class PayloadTooLarge(GitLoomError):
    code, status, message = "payload_too_large", 413, "Payload too large."


class ServiceUnavailable(GitLoomError):
    code, status, message = "service_unavailable", 503, "A dependency is unavailable."
    # Seconds a client should wait before trying again (the Retry-After header): about
    # what a restarting Postgres or object store takes to answer again.
    retry_after = 5
