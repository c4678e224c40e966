"""Refuse oversized API bodies with 413 before anything reads them."""

from __future__ import annotations

from django.conf import settings
from django.http import JsonResponse

from gitloom.exceptions import error_body


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
                return JsonResponse(
                    error_body("invalid", "Content-Length is not a number."), status=400
                )
            if length > limit:
                return JsonResponse(
                    error_body(
                        "payload_too_large", f"The request body is over the {limit}-byte limit."
                    ),
                    status=413,
                )
        return self.get_response(request)
