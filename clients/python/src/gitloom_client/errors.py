"""Exceptions. Every one the client raises is a ``GitLoomError`` with a ``code``.

An error answer of the API (``{"error": {"code", "message", "details"?}}``) becomes an
``APIError`` subclass chosen by its HTTP status, carrying the envelope's ``code``,
``message`` and ``details``, the ``status`` and, when the service sent one,
``retry_after`` (seconds). ``code`` is the stable part to branch on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

    from gitloom_client.models import Job


class GitLoomError(Exception):
    """Base of everything the client raises."""

    code: str = "error"
    status: int | None = None

    def __init__(self, message: str, *, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        status = f" {self.status}" if self.status is not None else ""
        return f"[{self.code}{status}] {self.message}"


class APIError(GitLoomError):
    """The service answered with an error envelope."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: int,
        details: Any = None,
        retry_after: float | None = None,
        response: httpx.Response | None = None,
    ):
        super().__init__(message, code=code)
        self.status = status
        self.details = details
        self.retry_after = retry_after
        self.response = response


class BadRequestError(APIError):
    """400: the request is wrong (``invalid``, ``invalid_transcript``, ``invalid_path`` ...)."""


class AuthenticationError(APIError):
    """401: no API key, or a wrong or revoked one."""


class PermissionDeniedError(APIError):
    """403: the key may not do this (``dashboard_only`` for key management)."""


class NotFoundError(APIError):
    """404: ``namespace_not_found``, ``memory_not_found``, ``job_not_found`` ... (also what
    another account's things look like)."""


class ConflictError(APIError):
    """409: ``namespace_exists``, ``idempotency_key_reused``, ``write_conflict``."""


class GoneError(APIError):
    """410: ``commit_not_in_history``: a commit the answer would be relative to is not
    (or no longer) in the namespace's history; re-sync from a full copy. Or
    ``commit_purged``: a commit id a purge rewrote; ``details["replaced_by"]`` is the id
    that stands in its place."""


class PayloadTooLargeError(APIError):
    """413: over a size limit."""


class RateLimitError(APIError):
    """429: slow down; ``retry_after`` says for how long."""


class ServerError(APIError):
    """500 and other 5xx: a bug or an outage on the service's side."""


class ServiceUnavailableError(ServerError):
    """503: a dependency of the service is down; try again after ``retry_after``."""


class APIConnectionError(GitLoomError):
    """The service could not be reached, or the connection failed mid-request."""

    code = "connection_error"


class UnexpectedResponseError(GitLoomError):
    """The service answered something that is not the API's JSON (a proxy's page?)."""

    code = "unexpected_response"


class JobError(GitLoomError):
    """Base of the errors of waiting for a job; ``job`` is its last known state."""

    def __init__(self, message: str, *, job: Job, code: str | None = None):
        super().__init__(message, code=code)
        self.job = job


class JobFailedError(JobError):
    """The job ended ``failed``; ``code`` is the job's error code (``model_unavailable``
    ...). Nothing of it was written."""


class JobTimeoutError(JobError):
    """The job had not ended when the wait ran out. It is still accepted and will run:
    keep its ``job.id`` and ask again later."""

    code = "job_timeout"


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    410: GoneError,
    413: PayloadTooLargeError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_class(status: int) -> type[APIError]:
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else APIError
