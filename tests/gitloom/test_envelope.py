"""Every answer under /v1/ is the JSON envelope, including the ones Django gives before
any view runs: an unknown route for an unsafe method (CSRF), an unknown Host, a memory
path no route would match (issue 28, item 6)."""

from urllib.parse import quote

import pytest


@pytest.fixture
def strict_api(api):
    # A real client's request: Django's test client skips CSRF checks unless asked.
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api.secret}")
    return client


def _envelope(response) -> dict:
    assert response["Content-Type"] == "application/json", response.content[:200]
    return response.json()["error"]


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("who", ["strict_api", "dashboard"])
def test_an_unsafe_method_on_an_unknown_route_is_a_json_404_not_a_csrf_page(request, method, who):
    client = request.getfixturevalue(who)
    response = client.generic(method, "/v1/nope", b"{}", content_type="application/json")
    assert response.status_code == 404
    assert _envelope(response)["code"] == "not_found"


def test_the_schema_redirect_takes_a_post_without_a_csrf_page(strict_api):
    response = strict_api.post("/v1/schema/")
    assert response.status_code == 301 and response["Location"] == "/v1/schema"


@pytest.mark.parametrize("path", ["/v1/whoami", "/v1/nope", "/v1/namespaces"])
def test_an_unknown_host_is_a_json_400(api, path):
    response = api.get(path, HTTP_HOST="evil.example")
    assert response.status_code == 400
    error = _envelope(response)
    assert error["code"] == "bad_request"
    assert "evil.example" not in error["message"]


def test_an_unknown_host_outside_the_api_keeps_djangos_page(anon):
    response = anon.get("/login/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")


@pytest.mark.parametrize("char", ["\n", "\r", "\t", "\x00", "\x1b", "\x7f"])
@pytest.mark.parametrize("suffix", ["", "/history", "/blame"])
def test_a_memory_path_with_a_control_character_is_invalid_path(api, char, suffix):
    api.post("/v1/namespaces", {"name": "default"}, format="json")
    # Percent-encoded, as a client sends it (the test client, like urllib, drops a raw
    # tab or line break from a URL).
    response = api.get(f"/v1/memories/facts/topic/na{quote(char)}me.md{suffix}")
    assert response.status_code == 400, response.content
    assert _envelope(response)["code"] == "invalid_path"


@pytest.mark.parametrize("method", ["delete", "post"])
def test_forgetting_or_purging_a_path_with_a_line_break_is_invalid_path(api, method):
    api.post("/v1/namespaces", {"name": "default"}, format="json")
    suffix = "/purge" if method == "post" else ""
    response = getattr(api, method)(f"/v1/memories/facts/topic/a%0Ab.md{suffix}")
    assert response.status_code == 400, response.content
    assert _envelope(response)["code"] == "invalid_path"
