"""Request latency by URL pattern (``gitloom_http_request_duration_seconds``).

The outermost middleware, so the time covers every other one. The route label is the
pattern the request matched (``v1/memories/<path:path>``), never the raw path, which
would carry namespace names and memory paths and grow without bound; a request no
pattern matched (static files, a refused body, an unknown ``/v1/`` route) is
``(unmatched)``.
"""

from __future__ import annotations

import time

from gitloom.core.envelope import api_not_found
from gitloom.core.metrics import HTTP_REQUEST_SECONDS

UNMATCHED = "(unmatched)"
# Any other method string a client sends is one label value, not a new series each.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class RequestMetricsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        match = request.resolver_match
        route = UNMATCHED if match is None or match.func is api_not_found else match.route
        method = request.method if request.method in METHODS else "other"
        HTTP_REQUEST_SECONDS.labels(route, method, str(response.status_code)).observe(
            time.perf_counter() - started
        )
        return response
