"""The error side of the OpenAPI schema (``/v1/schema``), from the declared error classes.

Every operation documents the errors it can answer, each status with the envelope
schema (``ErrorEnvelope``) narrowed to the codes it may carry, and one example per code.
The codes come from the classes themselves (``gitloom.core.errors``), gathered from three
places so each is written once:

- ``COMMON``: what any authenticated ``/v1/`` call can meet (an unknown Host, no or a
  bad credential, a session without an account, a throttle, an outage, a bug, and the
  HTTP server's own 400/408/414/431);
- ``BODY``: what any call that sends a JSON body can meet (malformed JSON, too large,
  not JSON, a schema violation);
- a view's ``errors`` attribute (every method of that view, e.g. the namespace lookup)
  and ``@raises(...)`` on a handler (that operation's own).

``DEFAULT_SCHEMA_CLASS`` is ``AutoSchema`` below.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema
from rest_framework import serializers

from gitloom.core.errors import (
    AuthenticationFailed,
    EmptyBody,
    GitLoomError,
    HeadersTooLarge,
    InvalidInput,
    MalformedJson,
    NoAccount,
    NotAcceptable,
    NotAuthenticated,
    NotFound,
    PayloadTooLarge,
    PermissionDenied,
    RateLimited,
    RequestTooSlow,
    ServerError,
    ServiceUnavailable,
    UnsupportedMediaType,
    UnsupportedTransferCoding,
    UriTooLong,
)

COMMON: tuple[type[GitLoomError], ...] = (
    GitLoomError,  # bad_request: a Host not served, a request the server could not parse
    NotAuthenticated,
    AuthenticationFailed,
    PermissionDenied,  # a session's request without its CSRF token
    NoAccount,
    NotAcceptable,
    RateLimited,
    ServerError,
    ServiceUnavailable,
    # Answered by the HTTP server before the application (gunicorn_conf, web_worker):
    # a request line or headers over their limits, a request too slow to arrive, a
    # transfer coding other than chunked.
    UriTooLong,
    HeadersTooLarge,
    RequestTooSlow,
    UnsupportedTransferCoding,
)
BODY: tuple[type[GitLoomError], ...] = (
    MalformedJson,
    InvalidInput,
    EmptyBody,
    PayloadTooLarge,
    UnsupportedMediaType,
)


def raises(*errors: type[GitLoomError]) -> Callable:
    """Declare the errors a handler can answer besides ``COMMON``, ``BODY`` and its
    view's ``errors``; they are documented on its operation."""

    def decorate(handler: Callable) -> Callable:
        handler.raises = (*getattr(handler, "raises", ()), *errors)
        return handler

    return decorate


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="stable, for programs (docs/API.md lists them)")
    message = serializers.CharField(help_text="for people; may change")
    details = serializers.DictField(required=False, help_text="more about some errors")

    class Meta:
        ref_name = "Error"


class ErrorEnvelopeSerializer(serializers.Serializer):
    error = ErrorSerializer()

    class Meta:
        ref_name = "ErrorEnvelope"


def _example(error: type[GitLoomError]) -> dict:
    body = {"code": error.code, "message": error.message}
    details = getattr(error, "example_details", None)  # for an error that adds details
    if details:
        body["details"] = details
    return {"error": body}


def error_responses(errors: Iterable[type[GitLoomError]], envelope_ref: dict) -> dict:
    """OpenAPI responses by status: the envelope whose ``code`` is one of that status's
    codes, and an example of each."""
    by_status: dict[int, list[type[GitLoomError]]] = {}
    for error in errors:
        group = by_status.setdefault(error.status, [])
        if all(known.code != error.code for known in group):
            group.append(error)
    responses = {}
    for status, group in sorted(by_status.items()):
        codes = [error.code for error in group]
        schema = {
            "allOf": [
                envelope_ref,
                {
                    "type": "object",
                    "properties": {
                        "error": {
                            "type": "object",
                            "properties": {"code": {"type": "string", "enum": codes}},
                        }
                    },
                },
            ]
        }
        responses[str(status)] = {
            "description": ", ".join(f"`{code}`" for code in codes),
            "content": {
                "application/json": {
                    "schema": schema,
                    "examples": {
                        error.code: {"summary": error.message, "value": _example(error)}
                        for error in group
                    },
                }
            },
        }
    return responses


class AutoSchema(SpectacularAutoSchema):
    def _declared_errors(self) -> list[type[GitLoomError]]:
        handler = getattr(self.view, self.method.lower(), None)
        errors = [*COMMON, *getattr(self.view, "errors", ()), *getattr(handler, "raises", ())]
        parsers = getattr(self.view, "parser_classes", None)
        if self.method in ("POST", "PUT", "PATCH") and parsers:
            errors += BODY
        if "{" in self.path:
            # A path value its route does not take ("/v1/keys/abc") is an unknown route.
            errors.append(NotFound)
        return errors

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response" or self.view.__module__.startswith("drf_spectacular"):
            return responses  # the schema and docs views themselves
        envelope = self.resolve_serializer(ErrorEnvelopeSerializer(), "response").ref
        for status, response in error_responses(self._declared_errors(), envelope).items():
            responses.setdefault(status, response)
        return responses
