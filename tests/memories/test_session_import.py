"""A dashboard session reaches the import API like an API key does."""

import pytest

from tests.conftest import csrf_token
from tests.support.archives import CAMERA, sample_files, tar_gz


@pytest.mark.parametrize(
    "content_type", ["application/gzip", "application/octet-stream", "application/x-tar"]
)
def test_a_dashboard_session_imports_a_tar(dashboard, content_type):
    token = csrf_token(dashboard)
    created = dashboard.post(
        "/v1/namespaces", {"name": "default"}, format="json", HTTP_X_CSRFTOKEN=token
    )
    assert created.status_code == 201, created.json()
    response = dashboard.post(
        "/v1/namespaces/default/import",
        tar_gz(sample_files()),
        content_type=content_type,
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 201, response.json()
    assert CAMERA in response.json()["created"]
    assert dashboard.get(f"/v1/memories/{CAMERA}").status_code == 200


def test_a_session_import_without_the_csrf_token_is_refused(dashboard):
    csrf_token(dashboard)
    dashboard.post("/v1/namespaces", {"name": "default"}, format="json")
    response = dashboard.post(
        "/v1/namespaces/default/import", tar_gz(sample_files()), content_type="application/gzip"
    )
    assert response.status_code == 403


def test_an_empty_import_body_is_still_empty_body(api):
    api.post("/v1/namespaces", {"name": "default"}, format="json")
    response = api.post("/v1/namespaces/default/import", b"", content_type="application/gzip")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "empty_body"
