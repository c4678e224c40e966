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


@pytest.mark.parametrize("declared", [None, "0"])
def test_an_empty_body_is_still_refused_as_such(api, declared):
    extra = {} if declared is None else {"CONTENT_LENGTH": declared}
    response = api.generic("POST", "/v1/namespaces", b"", content_type="application/json", **extra)
    assert response.status_code == 400
