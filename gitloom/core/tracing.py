"""OpenTelemetry spans for a retrieval and a job (docs/design/operations.md, "Traces").

The OpenTelemetry API (installed with the MCP SDK) records nothing until a tracer
provider is set, so these calls cost a no-op until ``GITLOOM_OTEL_EXPORTER`` names an
exporter and ``requirements-otel.txt`` is installed: then :func:`tracing_start` gives
each web and queue process (after its fork: a batch exporter's thread does not survive
one) a provider exporting over OTLP (the standard ``OTEL_EXPORTER_OTLP_*`` variables
say where) or to stderr. Attributes are names, counts, times and the ``gen_ai.*``
ones of OpenTelemetry's GenAI conventions: never an account, a namespace or any text.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from django.conf import settings
from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

T = TypeVar("T")
Attributes = Mapping[str, Any]

tracer = trace.get_tracer("gitloom")  # a proxy: it follows the provider set later


def traced(
    name: str,
    *,
    attributes: Callable[..., Attributes] | None = None,
    result: Callable[[Any], Attributes] | None = None,
) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Run the function in a span named ``name``, current while it runs (so spans it
    starts are its children); ``attributes(*args, **kwargs)`` and ``result(returned)``
    give its attributes. An exception is recorded on the span and raised on."""

    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with tracer.start_as_current_span(name) as span:
                if span.is_recording() and attributes is not None:
                    span.set_attributes(dict(attributes(*args, **kwargs)))
                returned = function(*args, **kwargs)
                if span.is_recording() and result is not None:
                    span.set_attributes(dict(result(returned)))
                return returned

        return wrapper

    return decorate


def span_done(name: str, *, seconds: float, attributes: Attributes, error: str = "") -> None:
    """A span for work that has just ended and took ``seconds``: a child of the current
    span, timed after the fact, so the code that did the work needs no ``with``."""
    end = time.time_ns()
    span = tracer.start_span(name, start_time=end - int(seconds * 1e9), attributes=attributes)
    if error:
        span.set_attribute("error.type", error)
        span.set_status(Status(StatusCode.ERROR))
    span.end(end_time=end)


def tracing_start() -> None:
    """Give this process a tracer provider, when ``GITLOOM_OTEL_EXPORTER`` asks for one.
    Called by each web and queue process as it warms up, after the fork."""
    exporter_name = settings.GITLOOM_OTEL_EXPORTER
    if not exporter_name:
        return
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    if exporter_name == "otlp":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter()
    else:
        exporter = ConsoleSpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "gitloom"}))
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
