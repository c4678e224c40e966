"""Bodies sent with Transfer-Encoding: chunked are read (gunicorn gives no Content-Length)."""

import io
import json

import pytest


def _chunked(client, path, body: bytes, content_type="application/json"):
    # What gunicorn hands Django for a chunked request: the de-chunked stream and no
    # CONTENT_LENGTH (so Django, left alone, reads an empty body).
    return client.generic(
        "POST",
        path,
        body,
        content_type=content_type,
        CONTENT_LENGTH="",
        HTTP_TRANSFER_ENCODING="chunked",
        **{"wsgi.input": io.BytesIO(body)},
    )


def test_a_chunked_json_body_is_read(api):
    response = _chunked(api, "/v1/namespaces", json.dumps({"name": "chunky"}).encode())
    assert response.status_code == 201, response.json()
    assert api.get("/v1/namespaces/chunky").status_code == 200


def test_a_chunked_body_over_the_limit_is_413(api, settings):
    settings.GITLOOM_MAX_BODY_BYTES = 1000
    body = json.dumps({"name": "x" * 5000}).encode()
    response = _chunked(api, "/v1/namespaces", body)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


@pytest.mark.parametrize("path", ["/v1/namespaces", "/v1/memories"])
@pytest.mark.parametrize("declared", [None, "0"])
def test_an_empty_body_is_still_refused_as_such(api, declared, path):
    api.post("/v1/namespaces", {"name": "default"}, format="json")
    extra = {} if declared is None else {"CONTENT_LENGTH": declared}
    response = api.generic("POST", path, b"", content_type="application/json", **extra)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "empty_body"


def test_an_empty_chunked_body_is_empty_body(api):
    response = _chunked(api, "/v1/namespaces", b"")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "empty_body"


def test_an_empty_object_is_invalid_not_empty_body(api):
    response = api.post("/v1/namespaces", {}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_an_empty_body_where_every_field_is_optional_is_accepted(api):
    # A job revert takes an optional body: no body is not an error there.
    api.post("/v1/namespaces", {"name": "default"}, format="json")
    response = api.generic(
        "POST", "/v1/jobs/job_missing/revert", b"", content_type="application/json"
    )
    assert response.json()["error"]["code"] == "job_not_found"


@pytest.mark.parametrize(
    "body",
    [
        b'{"name": "one", "name": "two"}',
        b'{"messages": [{"role": "user", "content": "a", "content": "b"}]}',
        b'{"namespace": "default", "messages": [], "namespace": "other"}',
    ],
)
def test_a_key_named_twice_is_refused_not_last_wins(api, body):
    api.post("/v1/namespaces", {"name": "default"}, format="json")
    path = "/v1/namespaces" if b'"name"' in body else "/v1/memories"
    response = api.generic("POST", path, body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_json"
    assert "more than once" in response.json()["error"]["message"]
    assert [n["name"] for n in api.get("/v1/namespaces").json()["namespaces"]] == ["default"]
    assert api.get("/v1/jobs").json()["jobs"] == []
