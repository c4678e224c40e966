"""Refuse oversized API bodies with 413 before anything reads them, and read chunked ones
(a malformed or cut-short chunked body is 400 ``bad_request``, not a crash)."""

from __future__ import annotations

import io

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream
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
