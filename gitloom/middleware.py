"""Refuse oversized API bodies with 413 before anything reads them."""

from __future__ import annotations

from django.conf import settings

from gitloom.envelope import error_json_response
from gitloom.errors import InvalidInput, PayloadTooLarge


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
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                return error_json_response(InvalidInput("Content-Length is not a number."))
            if length > limit:
                return error_json_response(
                    PayloadTooLarge(f"The request body is over the {limit}-byte limit.")
                )
        return self.get_response(request)
