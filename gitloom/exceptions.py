"""One place that turns every error into GitLoom's JSON envelope.

``{"error": {"code": "...", "message": "..."}}`` for GitLoomError, DRF's own errors,
Django's Http404/PermissionDenied, and (via the views below) unknown routes, 405s and
500s under ``/v1/``. A dependency that is down (the database, object storage, a model
endpoint) is ``503 service_unavailable`` (or the dependency's own code) with
``Retry-After``, wherever in the request it failed, authentication included.
"""

from __future__ import annotations

import logging
import sys

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response

from gitloom.errors import GitLoomError, ServiceUnavailable

logger = logging.getLogger("gitloom")


def error_body(code: str, message: str, **details) -> dict:
    error = {"code": code, "message": message}
    if details:
        error["details"] = details
    return {"error": error}


def _flatten(detail, prefix: str = "") -> list[str]:
    if isinstance(detail, dict):
        out: list[str] = []
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            out.extend(_flatten(value, "" if key == "non_field_errors" else name))
        return out
    if isinstance(detail, list):
        out = []
        for index, value in enumerate(detail):
            name = prefix if not isinstance(value, (dict, list)) else f"{prefix}[{index}]"
            out.extend(_flatten(value, name))
        return out
    return [f"{prefix}: {detail}" if prefix else str(detail)]


_DRF_CODES = {
    drf.ParseError: ("malformed_json", "The request body is not valid JSON."),
    drf.NotAuthenticated: ("not_authenticated", "Authentication credentials were not provided."),
    drf.AuthenticationFailed: ("authentication_failed", "Invalid or revoked credentials."),
    drf.PermissionDenied: ("permission_denied", "You may not do that."),
    drf.NotFound: ("not_found", "Not found."),
    drf.MethodNotAllowed: ("method_not_allowed", "Method not allowed."),
    drf.UnsupportedMediaType: ("unsupported_media_type", "Send JSON (application/json)."),
    drf.NotAcceptable: ("not_acceptable", "This endpoint answers JSON."),
    drf.Throttled: ("rate_limited", "Too many requests."),
}


def unavailable(exc: BaseException | None) -> ServiceUnavailable | None:
    """The 503 that an outside system's failure stands for, or None for anything else.

    Object storage and the model endpoints raise ``ServiceUnavailable`` themselves (their
    modules translate their clients' errors). The database is reached through Django, so
    its failures arrive here raw: ``OperationalError`` (cannot connect, the server is
    starting up or shutting down, the connection dropped mid-query, a statement
    cancelled) and ``InterfaceError`` (a connection already closed). Both are a
    dependency's state, not a bug: retrying later is the right answer. Errors in what
    was asked (``ProgrammingError``, ``DataError``, ``IntegrityError``) stay 500s.
    """
    if isinstance(exc, ServiceUnavailable):
        return exc
    if isinstance(exc, (OperationalError, InterfaceError)):
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        logger.warning("database unavailable: %s", first_line)
        return ServiceUnavailable("The database is unavailable; try again shortly.")
    return None


def exception_handler(exc, context) -> Response | None:
    exc = unavailable(exc) or exc
    if isinstance(exc, GitLoomError):
        response = Response(error_body(exc.code, exc.message, **exc.details), status=exc.status)
        if exc.status == 401:
            response["WWW-Authenticate"] = 'Bearer realm="gitloom"'
        if getattr(exc, "retry_after", None):
            response["Retry-After"] = str(exc.retry_after)
        return response
    if isinstance(exc, Http404):
        return Response(error_body("not_found", "Not found."), status=404)
    if isinstance(exc, DjangoPermissionDenied):
        return Response(error_body("permission_denied", "You may not do that."), status=403)
    if isinstance(exc, drf.ValidationError):
        problems = _flatten(exc.detail)
        message = "Invalid input: " + "; ".join(problems) if problems else "Invalid input."
        return Response(error_body("invalid", message), status=400)
    if isinstance(exc, drf.APIException):
        code, message = "error", str(exc.detail)
        for cls, (known_code, default_message) in _DRF_CODES.items():
            if isinstance(exc, cls):
                code = known_code
                message = default_message if cls is not drf.MethodNotAllowed else str(exc.detail)
                break
        response = Response(error_body(code, message), status=exc.status_code)
        if getattr(exc, "auth_header", None):
            response["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None):
            response["Retry-After"] = str(int(exc.wait))
        return response
    # Anything else is a real bug: log it with its traceback, answer a clean 500.
    logger.exception("Unhandled error in %s", context.get("view").__class__.__name__)
    return Response(error_body("server_error", "Internal server error."), status=500)


def api_not_found(request, exception=None, *args, **kwargs) -> JsonResponse:
    return JsonResponse(error_body("not_found", "No such endpoint."), status=404)


def api_server_error(request, *args, **kwargs) -> JsonResponse:
    # Reached for an exception outside the DRF views (a middleware's query): a database
    # or storage outage is still a 503, not a 500.
    outage = unavailable(sys.exc_info()[1])
    if outage is not None:
        response = JsonResponse(
            error_body(outage.code, outage.message, **outage.details), status=outage.status
        )
        response["Retry-After"] = str(outage.retry_after)
        return response
    return JsonResponse(error_body("server_error", "Internal server error."), status=500)


def _is_api(request) -> bool:
    return request.path.startswith("/v1/")


def handler404(request, exception=None):
    if _is_api(request):
        return api_not_found(request)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def handler500(request):
    if _is_api(request):
        return api_server_error(request)
    from django.views.defaults import server_error

    return server_error(request)
