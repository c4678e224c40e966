"""Refuse oversized API bodies with 413 before anything reads them, and read chunked ones."""

from __future__ import annotations

import io

from django.conf import settings
from django.core.handlers.wsgi import LimitedStream

from gitloom.core.envelope import error_json_response
from gitloom.core.errors import InvalidInput, PayloadTooLarge

_CHUNK = 64 * 1024


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
                body = _read_at_most(request.META["wsgi.input"], limit + 1)
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
