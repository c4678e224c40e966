"""Every /v1/ response a test receives must be one the OpenAPI schema documents.

``check_response`` finds the operation a request reached (method and path template of
``/v1/schema``), and fails when the response's status is not documented for it, when a
JSON body does not validate against the documented schema, or when a non-JSON body has
a content type the operation does not document. Objects are validated closed (no
properties beyond the documented ones), so a field added to a response without the
schema, or documented but missing, is a failure either way. An unknown route or method
must still answer the documented error envelope. ``tests/conftest.py`` applies it to
every request made with Django's test client (and so DRF's ``APIClient``).
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache

from openapi_schema_validator import OAS30ReadValidator, oas30_format_checker

UNDOCUMENTED = ("/v1/schema", "/v1/docs")  # the schema and Swagger UI themselves


@cache
def schema() -> dict:
    """The schema /v1/schema serves, generated once per test session."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    generated = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(generated, renderer_context={}))


def _closed(node):
    """A copy of a schema in which every object with declared properties refuses others."""
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    closed = {key: _closed(value) for key, value in node.items()}
    if "properties" in closed and "additionalProperties" not in closed:
        closed["additionalProperties"] = False
    return closed


@cache
def _components() -> dict:
    components = copy.deepcopy(schema()["components"])
    components["schemas"] = _closed(components["schemas"])
    return components


def _parameter(match: re.Match) -> str:
    # A memory's path spans slashes; every other parameter is one segment.
    name = match.group(1)
    return f"(?P<{name}>{'.+' if name == 'path' else '[^/]+'})"


@cache
def _routes() -> list[tuple[re.Pattern, str]]:
    routes = []
    for template in schema()["paths"]:
        pattern = re.sub(r"\{(\w+)\}", _parameter, template)
        routes.append((re.compile(f"^{pattern}$"), template))
    # The most specific first: /v1/memories/{path}/history before /v1/memories/{path}.
    routes.sort(key=lambda route: -len(re.sub(r"\{\w+\}", "", route[1])))
    return routes


def operation_for(method: str, path: str) -> tuple[str, dict] | None:
    for pattern, template in _routes():
        if pattern.match(path):
            operation = schema()["paths"][template].get(method.lower())
            return (template, operation) if operation else None
    return None


def validate(instance, media_schema: dict) -> None:
    """``instance`` against one schema of the document (its ``$ref``s resolve)."""
    root = {**media_schema, "components": _components()}
    validator = OAS30ReadValidator(root, format_checker=oas30_format_checker)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        problems = "; ".join(
            f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message}" for e in errors[:5]
        )
        raise AssertionError(problems)


def check_response(response) -> None:
    method = response.request["REQUEST_METHOD"]
    path = response.request["PATH_INFO"]
    if not path.startswith("/v1/") or path.startswith(UNDOCUMENTED):
        return
    status = str(response.status_code)
    content_type = response.get("Content-Type", "").split(";")[0].strip()
    body = getattr(response, "content", b"")
    where = f"{method} {path} -> {status}"
    found = operation_for(method, path)
    if found is None:
        # No documented operation (an unknown route, a wrong method): the error envelope.
        if response.status_code >= 400:
            assert content_type == "application/json", f"{where}: answered {content_type}"
            try:
                validate(json.loads(body), {"$ref": "#/components/schemas/ErrorEnvelope"})
            except AssertionError as exc:
                raise AssertionError(f"{where}: not the error envelope: {exc}") from None
        return
    template, operation = found
    documented = operation["responses"].get(status)
    assert documented is not None, (
        f"{where}: status {status} is not documented for {method} {template} "
        f"(documented: {sorted(operation['responses'])})"
    )
    media_types = documented.get("content", {})
    if not body:
        assert response.status_code == 204 or not media_types, f"{where}: empty body"
        return
    assert content_type in media_types, (
        f"{where}: answered {content_type}, documented {sorted(media_types)}"
    )
    if content_type != "application/json":
        return
    try:
        validate(json.loads(body), media_types[content_type]["schema"])
    except AssertionError as exc:
        raise AssertionError(
            f"{where}: the response does not match the schema of {method} {template}: {exc}"
        ) from None
