"""Refuse oversized API bodies with 413 before anything reads them, and read chunked ones
(a malformed or cut-short chunked body is 400 ``bad_request``, not a crash); run the
session machinery (sessions, CSRF, ``request.user``, messages) only for requests that
can use it, not for API-key ones."""

from __future__ import annotations

import io

from django.conf import settings
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as message
from django.contrib.sessions import middleware as sessions
from django.core.handlers.wsgi import LimitedStream
from django.middleware import csrf
from gunicorn.http.errors import ParseException

from gitloom.core.envelope import error_json_response
from gitloom.core.errors import GitLoomError, InvalidInput, PayloadTooLarge

_CHUNK = 64 * 1024
# What gunicorn's chunked reader raises for a bad chunk size or terminator
# (ParseException) and for a body that ends before its last chunk (NoMoreData, an
# OSError, as a dropped connection is).
_BROKEN_BODY = (ParseException, OSError)


class BodySizeLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith("/v1/"):
            limit = (
                settings.GITLOOM_MAX_IMPORT_BYTES
                if request.path.endswith("/import")
                else settings.GITLOOM_MAX_BODY_BYTES
            )
            too_large = PayloadTooLarge(f"The request body is over the {limit}-byte limit.")
            if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
                # No Content-Length: Django would read the body as empty. Read it here,
                # at most one byte past the limit, and hand Django the bytes.
                try:
                    body = _read_at_most(request.META["wsgi.input"], limit + 1)
                except _BROKEN_BODY as exc:
                    return error_json_response(
                        GitLoomError(
                            f"The chunked request body is malformed or cut short ({exc!r:.100})."
                        )
                    )
                if len(body) > limit:
                    return error_json_response(too_large)
                request.META["CONTENT_LENGTH"] = str(len(body))
                request._stream = LimitedStream(io.BytesIO(body), len(body))
                return self.get_response(request)
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                return error_json_response(InvalidInput("Content-Length is not a number."))
            if length > limit:
                return error_json_response(too_large)
        return self.get_response(request)


def _read_at_most(stream, size: int) -> bytes:
    parts, total = [], 0
    while total < size:
        part = stream.read(min(_CHUNK, size - total))
        if not part:
            break
        parts.append(part)
        total += len(part)
    return b"".join(parts)


def is_api_key_request(request) -> bool:
    """A ``/v1/`` request carrying ``Authorization: Bearer ...``: the API-key class
    authenticates it or refuses it (401/429), never a session (accounts.authentication),
    so nothing that serves sessions has anything to do for it."""
    if not request.path_info.startswith("/v1/"):
        return False
    scheme, _, _ = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    return scheme.lower() == "bearer"


class _ForSessions:
    """Mixed into a middleware that serves dashboard sessions: it runs for every request
    except API-key ones, which skip it (sessions, CSRF cookies, ``request.user`` and
    messages do nothing for a key). A session request (the dashboard, or the API with
    a session cookie) gets all of it, CSRF checks included. Subclasses of Django's own
    classes, so the admin's checks for them still hold."""

    def __call__(self, request):
        if is_api_key_request(request):
            return self.get_response(request)
        return super().__call__(request)


class SessionMiddleware(_ForSessions, sessions.SessionMiddleware):
    pass


class CsrfViewMiddleware(_ForSessions, csrf.CsrfViewMiddleware):
    def process_view(self, request, callback, callback_args, callback_kwargs):
        if is_api_key_request(request):
            return None
        return super().process_view(request, callback, callback_args, callback_kwargs)


class AuthenticationMiddleware(_ForSessions, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(_ForSessions, message.MessageMiddleware):
    pass
