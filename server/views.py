"""Probes and metrics for operators, outside ``/v1/``: ``/healthz`` (the process
answers), ``/readyz`` (its dependencies answer: ``server.operations``) and
``/metrics`` (Prometheus, behind ``GITLOOM_METRICS_TOKEN``). The probes need no
credentials and say nothing about any account."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from prometheus_client import CONTENT_TYPE_LATEST

from gitloom.core.envelope import error_body, error_json_response
from gitloom.core.errors import AuthenticationFailed, NotAuthenticated, NotFound, ServiceUnavailable
from gitloom.core.metrics import metrics_text
from server.operations import JobQueueCollector, readiness


@csrf_exempt
@require_safe
def healthz(request):
    return JsonResponse({"status": "ok"})


@csrf_exempt
@require_safe
def readyz(request):
    checks = readiness()
    down = [name for name, state in checks.items() if state != "ok"]
    if not down:
        return JsonResponse({"status": "ready", "checks": checks})
    error = ServiceUnavailable(
        f"Not ready: {', '.join(down)} {'is' if len(down) == 1 else 'are'} down."
    )
    response = JsonResponse(
        {"status": "unavailable", "checks": checks, "down": down, **error_body(error)},
        status=503,
    )
    response["Retry-After"] = str(error.retry_after)
    return response


@csrf_exempt
@require_safe
def metrics(request):
    token = settings.GITLOOM_METRICS_TOKEN
    if not token:
        return error_json_response(NotFound("Metrics are off: set GITLOOM_METRICS_TOKEN."))
    sent = request.META.get("HTTP_AUTHORIZATION", "")
    if not sent.startswith("Bearer "):
        return error_json_response(NotAuthenticated("Send the metrics token as a bearer token."))
    if not hmac.compare_digest(sent.removeprefix("Bearer ").encode(), token.encode()):
        return error_json_response(AuthenticationFailed("That is not the metrics token."))
    return HttpResponse(metrics_text(JobQueueCollector()), content_type=CONTENT_TYPE_LATEST)
