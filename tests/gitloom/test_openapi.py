"""The OpenAPI schema (/v1/schema) is exact: every operation typed, described, with an
example and the errors it can answer, and every example valid against its own schema.
That real responses match it is checked on every test's requests (tests/support/openapi.py,
applied in tests/conftest.py); the last tests here show that check biting."""

from __future__ import annotations

import json

import pytest
from django.http import HttpResponse, JsonResponse

from tests.support.openapi import check_response, schema, validate

METHODS = ("get", "post", "put", "patch", "delete")


def operations():
    for path, item in schema()["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield f"{method.upper()} {path}", operation


def test_drf_spectacular_validates_the_schema_with_warnings_as_errors(db, tmp_path):
    from django.core.management import call_command

    out = tmp_path / "schema.json"
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", "--file", out
    )
    assert json.loads(out.read_text())["paths"]


def test_every_operation_is_described_with_typed_bodies_and_an_example():
    missing = []
    for name, operation in operations():
        if not operation.get("description") or not operation.get("summary"):
            missing.append(f"{name}: description")
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None and not body.get("examples"):
            missing.append(f"{name}: request example")
        for status, response in operation["responses"].items():
            for media_type, content in response.get("content", {}).items():
                if media_type == "application/json" and not content.get("examples"):
                    missing.append(f"{name} {status}: example")
                if content.get("schema", {}).get("additionalProperties") == {}:
                    missing.append(f"{name} {status}: untyped body")
    assert missing == []


def test_every_operation_documents_its_errors_with_the_envelope():
    for name, operation in operations():
        errors = {s: r for s, r in operation["responses"].items() if int(s) >= 400}
        assert {"401", "403", "500", "503"} <= set(errors), name
        for status, response in errors.items():
            media = response["content"]["application/json"]
            codes = media["schema"]["allOf"][1]["properties"]["error"]["properties"]["code"]
            assert codes["enum"] and set(media["examples"]) == set(codes["enum"]), (name, status)


def test_each_operation_lists_the_codes_it_raises():
    paths = schema()["paths"]

    def codes(path, method, status):
        media = paths[path][method]["responses"][status]["content"]["application/json"]
        return media["schema"]["allOf"][1]["properties"]["error"]["properties"]["code"]["enum"]

    assert "namespace_not_found" in codes("/v1/memories", "get", "404")
    assert "invalid_tier" in codes("/v1/memories", "get", "400")
    assert "idempotency_key_reused" in codes("/v1/memories", "post", "409")
    assert "dashboard_only" in codes("/v1/keys", "get", "403")
    assert "invalid_arms" in codes("/v1/retrieve", "get", "400")
    assert "job_not_found" in codes("/v1/jobs/{job_id}", "get", "404")


def test_every_example_matches_its_schema():
    checked = 0
    for name, operation in operations():
        contents = [("request", operation.get("requestBody", {}).get("content", {}))]
        contents += [(s, r.get("content", {})) for s, r in operation["responses"].items()]
        for where, content in contents:
            media = content.get("application/json")
            for example_name, example in (media or {}).get("examples", {}).items():
                try:
                    validate(example["value"], media["schema"])
                except AssertionError as exc:
                    pytest.fail(f"{name} {where} example {example_name!r}: {exc}")
                checked += 1
    assert checked > 100


def test_delete_of_a_memory_is_documented_as_what_it_answers():
    responses = schema()["paths"]["/v1/memories/{path}"]["delete"]["responses"]
    assert "204" not in responses
    forgotten = responses["200"]["content"]["application/json"]["schema"]["$ref"]
    assert forgotten.endswith("/MemoryForgotten")


def test_the_transcript_and_the_arms_are_typed():
    components = schema()["components"]["schemas"]
    write = components["MemoryWriteRequest"]["properties"]
    assert write["messages"]["items"]["$ref"].endswith("/MessageRequest")
    assert (write["messages"]["minItems"], write["messages"]["maxItems"]) == (1, 1000)
    assert write["session_id"]["type"] == "string"
    assert write["metadata"]["type"] == "object"
    assert components["MessageRequest"]["required"] == ["content", "role"]
    arms = components["Arms"]["properties"]
    assert {"lexical", "semantic", "graph"} == set(arms)
    assert "from" in components["GraphVia"]["properties"]


# --- the response check itself -----------------------------------------------------


def _answered(response, method: str, path: str):
    response.request = {"REQUEST_METHOD": method, "PATH_INFO": path}
    return response


def test_the_check_refuses_a_field_the_schema_does_not_have():
    body = {"account": "acme", "credential": {"type": "session", "username": "dana"}}
    check_response(_answered(JsonResponse(body), "GET", "/v1/whoami"))
    with pytest.raises(AssertionError, match="extra"):
        check_response(_answered(JsonResponse({**body, "extra": 1}), "GET", "/v1/whoami"))


def test_the_check_refuses_a_missing_field_and_a_wrong_type():
    with pytest.raises(AssertionError, match="credential"):
        check_response(_answered(JsonResponse({"account": "acme"}), "GET", "/v1/whoami"))
    body = {"account": 5, "credential": {"type": "session", "username": "dana"}}
    with pytest.raises(AssertionError, match="not of type"):
        check_response(_answered(JsonResponse(body), "GET", "/v1/whoami"))


def test_the_check_refuses_an_undocumented_status_or_code():
    with pytest.raises(AssertionError, match="not documented"):
        check_response(_answered(HttpResponse(status=204), "DELETE", "/v1/memories/facts/a/b.md"))
    wrong_code = {"error": {"code": "namespace_exists", "message": "x"}}
    with pytest.raises(AssertionError, match="namespace_exists"):
        check_response(_answered(JsonResponse(wrong_code, status=404), "GET", "/v1/jobs/x"))


def test_the_check_wants_the_envelope_from_unknown_routes():
    check_response(
        _answered(
            JsonResponse({"error": {"code": "not_found", "message": "No."}}, status=404),
            "GET",
            "/v1/nope",
        )
    )
    with pytest.raises(AssertionError, match="envelope"):
        check_response(_answered(JsonResponse({"detail": "no"}, status=404), "GET", "/v1/nope"))


# --- the front door -----------------------------------------------------------------


def test_v1_root_says_where_the_schema_and_docs_are(anon, db):
    response = anon.get("/v1/")
    assert response.status_code == 200
    body = response.json()
    assert body["schema"].endswith("/v1/schema") and body["docs"].endswith("/v1/docs")


@pytest.mark.parametrize("path", ["/v1/schema/", "/v1/docs/"])
def test_trailing_slash_spellings_lead_to_the_schema_and_docs(anon, db, path):
    response = anon.get(path)
    assert response.status_code == 301
    assert response["Location"] == path.rstrip("/")
    assert anon.get(path, follow=True).status_code == 200
