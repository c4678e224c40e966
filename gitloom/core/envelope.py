"""How every error is answered: GitLoom's JSON envelope.

``{"error": {"code": "...", "message": "..."}}`` for a ``GitLoomError`` (the declared
codes, ``gitloom.core.errors``), DRF's own errors, Django's Http404/PermissionDenied, and
(via the views below) unknown routes, 405s and 500s under ``/v1/``: each is first
translated to the ``GitLoomError`` class that declares its code, then written by
``error_body``. A dependency that is down (the database, object storage, a model
endpoint) is ``503 service_unavailable`` (or the dependency's own code) with
``Retry-After``, wherever in the request it failed, authentication included.
"""

from __future__ import annotations

import logging
import re
import sys

from django.core.exceptions import DisallowedHost
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from psycopg.errors import QueryCanceled
from rest_framework import exceptions as drf
from rest_framework.response import Response

from gitloom.core.errors import (
    AuthenticationFailed,
    EmptyBody,
    GitLoomError,
    InvalidInput,
    MalformedJson,
    MethodNotAllowed,
    NotAcceptable,
    NotAuthenticated,
    NotFound,
    PermissionDenied,
    RateLimited,
    RequestTimeout,
    ServerError,
    ServiceUnavailable,
    UnsupportedMediaType,
)

logger = logging.getLogger("gitloom")


def error_body(error: GitLoomError) -> dict:
    message = error.message
    if error.fix and message == type(error).message:
        message = f"{message} {error.fix}"
    body = {"code": error.code, "message": message}
    if error.details:
        body["details"] = error.details
    return {"error": body}


def _headers(error: GitLoomError) -> dict[str, str]:
    headers = {}
    if error.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="gitloom"'
    if getattr(error, "retry_after", None):
        headers["Retry-After"] = str(error.retry_after)
    return headers


def error_response(error: GitLoomError) -> Response:
    """The envelope as a DRF response (inside API views)."""
    return Response(error_body(error), status=error.status, headers=_headers(error))


def error_json_response(error: GitLoomError) -> JsonResponse:
    """The envelope as a plain Django response (middleware, URL resolver handlers)."""
    response = JsonResponse(error_body(error), status=error.status)
    for name, value in _headers(error).items():
        response[name] = value
    return response


def validation_fields(detail, prefix: str = "") -> dict[str, list[str]]:
    """A DRF validation error's messages by field: ``{"limit": [...],
    "messages[0].role": [...]}``; an error of the whole object is under ``""``."""
    fields: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = (
                prefix if key == "non_field_errors" else f"{prefix}.{key}" if prefix else str(key)
            )
            for field, messages in validation_fields(value, name).items():
                fields.setdefault(field, []).extend(messages)
    elif isinstance(detail, list):
        for index, value in enumerate(detail):
            name = prefix if not isinstance(value, (dict, list)) else f"{prefix}[{index}]"
            for field, messages in validation_fields(value, name).items():
                fields.setdefault(field, []).extend(messages)
    else:
        fields[prefix] = [str(detail)]
    return fields


def _invalid_input(exc: drf.ValidationError) -> InvalidInput:
    # The fields stay apart for programs (details.fields); the message joins them.
    fields = validation_fields(exc.detail)
    problems = [
        f"{field}: {message}" if field else message
        for field, messages in fields.items()
        for message in messages
    ]
    if not problems:
        return InvalidInput()
    return InvalidInput("Invalid input: " + "; ".join(problems), fields=fields)


# DRF's exceptions, as the GitLoom error declaring each one's code (default messages).
_DRF_ERRORS: dict[type[drf.APIException], type[GitLoomError]] = {
    drf.ParseError: MalformedJson,
    drf.NotAuthenticated: NotAuthenticated,
    drf.AuthenticationFailed: AuthenticationFailed,
    drf.PermissionDenied: PermissionDenied,
    drf.NotFound: NotFound,
    drf.MethodNotAllowed: MethodNotAllowed,
    drf.UnsupportedMediaType: UnsupportedMediaType,
    drf.NotAcceptable: NotAcceptable,
    drf.Throttled: RateLimited,
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
    if isinstance(exc, OperationalError) and isinstance(exc.__cause__, QueryCanceled):
        logger.warning("request over its time budget: %s", str(exc).strip()[:200])
        return RequestTimeout()
    if isinstance(exc, (OperationalError, InterfaceError)):
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        logger.warning("database unavailable: %s", first_line)
        return ServiceUnavailable("The database is unavailable; try again shortly.")
    return None


def as_gitloom_error(exc: BaseException) -> GitLoomError | None:
    """``exc`` as the declared GitLoom error it stands for; None for a bug."""
    exc = unavailable(exc) or exc
    if isinstance(exc, GitLoomError):
        return exc
    if isinstance(exc, Http404):
        return NotFound()
    if isinstance(exc, DjangoPermissionDenied):
        return PermissionDenied()
    if isinstance(exc, drf.ValidationError):
        return _invalid_input(exc)
    if isinstance(exc, drf.APIException):
        for drf_class, error_class in _DRF_ERRORS.items():
            if isinstance(exc, drf_class):
                # A 405 names the method; the others keep the class's own message.
                message = str(exc.detail) if drf_class is drf.MethodNotAllowed else None
                error = error_class(message)
                if getattr(exc, "wait", None):
                    error.retry_after = int(exc.wait)
                return error
    return None


def exception_handler(exc, context) -> Response:
    error = as_gitloom_error(exc)
    if isinstance(exc, drf.ValidationError) and _sent_no_body(context.get("request")):
        # The body is missing, not wrong: DRF reads an empty JSON body as ``{}``, and the
        # input serializer's "field required" was answered as ``invalid``.
        error = EmptyBody("The request body is empty; send a JSON object.")
    if error is None:
        # Anything else is a real bug: log it with its traceback, answer a clean 500.
        logger.exception("Unhandled error in %s", context.get("view").__class__.__name__)
        error = ServerError()
    return error_response(error)


def _sent_no_body(request) -> bool:
    # DRF's request has no stream when the body is empty (Content-Length 0 or none; a
    # chunked body was read and measured by BodySizeLimitMiddleware).
    return (
        request is not None
        and request.method in ("POST", "PUT", "PATCH")
        and getattr(request, "stream", True) is None
    )


@csrf_exempt  # it changes nothing: an unknown route is 404 for every method, not a CSRF 403
def api_not_found(request, exception=None, *args, **kwargs) -> JsonResponse:
    return error_json_response(NotFound("No such endpoint."))


def api_bad_request(request, exception=None) -> JsonResponse:
    # Django's SuspiciousOperation answers (an unknown Host above all), read before any
    # view; the message names the Host problem without echoing the header.
    if isinstance(exception, DisallowedHost):
        return error_json_response(GitLoomError("This host name is not served here."))
    return error_json_response(GitLoomError())


def api_server_error(request, *args, **kwargs) -> JsonResponse:
    # Reached for an exception outside the DRF views (a middleware's query): a database
    # or storage outage is still a 503, not a 500.
    return error_json_response(unavailable(sys.exc_info()[1]) or ServerError())


# /v1 paths however typed: "/v1", "//v1/whoami", "/V1/whoami" answer in JSON too, and
# so do the probes and metrics a load balancer or Prometheus reads (even a failure
# before their view runs, such as a database that went away mid-request).
_API_PATH = re.compile(r"^/+(?:v1(?:/|$)|(?:readyz|healthz|metrics)/?$)", re.IGNORECASE)


def _is_api(request) -> bool:
    return bool(_API_PATH.match(request.path))


def handler404(request, exception=None):
    if _is_api(request):
        return api_not_found(request)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def handler400(request, exception=None):
    if _is_api(request):
        return api_bad_request(request, exception)
    from django.views.defaults import bad_request

    return bad_request(request, exception)


def handler500(request):
    if _is_api(request):
        return api_server_error(request)
    error = unavailable(sys.exc_info()[1])
    if error is not None:
        # A dashboard page (sign-in included) during an outage: the 503 page, not a 500.
        # The page is rendered for nobody: reading the session needs the database too.
        from django.contrib.auth.models import AnonymousUser

        from gitloom.core.dashboard import error_page

        request.user = AnonymousUser()
        try:
            response = error_page(request, error=error)
        except Exception:  # noqa: BLE001 - the page itself needed the database
            from django.http import HttpResponse

            response = HttpResponse(error.message, status=503, content_type="text/plain")
        response["Retry-After"] = str(error.retry_after)
        return response
    from django.views.defaults import server_error

    return server_error(request)
