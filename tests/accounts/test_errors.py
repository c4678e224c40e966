import pytest


def test_unknown_route_is_json_404(api):
    response = api.get("/v1/no-such-thing")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_wrong_method_is_json_405(api):
    response = api.put("/v1/whoami", {}, format="json")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_malformed_json_is_400(api):
    response = api.post("/v1/namespaces", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_json"


def test_non_json_body_is_415(api):
    response = api.post("/v1/namespaces", "name=x", content_type="text/plain")
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_oversized_body_is_413(api, settings):
    settings.GITLOOM_MAX_BODY_BYTES = 1000
    response = api.post("/v1/namespaces", {"name": "x" * 2000}, format="json")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


@pytest.mark.urls("tests.accounts.boom_urls")
def test_unexpected_crash_is_json_500_and_logged(api, caplog):
    api.raise_request_exception = False
    response = api.get("/v1/boom")
    assert response.status_code == 500
    assert response.json() == {
        "error": {"code": "server_error", "message": "Internal server error."}
    }
    assert "boom" in caplog.text


def test_schema_is_served_and_describes_endpoints(anon, db):
    response = anon.get("/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    schema = response.json()
    for path in ("/v1/whoami", "/v1/keys", "/v1/namespaces", "/v1/namespaces/{name}"):
        assert path in schema["paths"], path
    docs = anon.get("/v1/docs")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


def test_openapi_schema_generates_without_warnings(db, tmp_path):
    """Every endpoint is described (serializers, auth schemes, unique operation ids)."""
    from django.core.management import call_command

    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    for operation in ("memories_list", "memory_get", "jobs_list", "job_get", "namespaces_list"):
        assert f"operationId: {operation}" in text
    assert "bearer" in text
