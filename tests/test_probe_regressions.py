"""What the black-box probe found holding, kept: no endpoint reaches another account's
namespace, job or memory (404, like a missing one), and concurrent retries with one
Idempotency-Key make exactly one job."""

import json
import threading

import pytest

from tests.support.archives import CAMERA, sample_files, tar_gz


def _schema_operations(api) -> list[tuple[str, str]]:
    schema = api.get("/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    return [
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    ]


def test_every_operation_naming_another_accounts_things_is_404(api, other_api):
    assert api.post("/v1/namespaces", {"name": "private"}, format="json").status_code == 201
    imported = api.post(
        "/v1/namespaces/private/import", tar_gz(sample_files()), content_type="application/gzip"
    )
    assert imported.status_code == 201
    job = api.post(
        "/v1/memories",
        {"namespace": "private", "messages": [{"role": "user", "content": "I own a Leica."}]},
        format="json",
    ).json()["job"]
    values = {"name": "private", "path": CAMERA, "id": job["id"], "job_id": job["id"]}
    checked = []
    for method, template in _schema_operations(api):
        if template.startswith(("/v1/keys", "/v1/webhooks")):
            continue  # dashboard only: an API key gets 403 whatever it names
        path = template
        for key, value in values.items():
            path = path.replace("{" + key + "}", value)
        if "{" in path:
            pytest.fail(f"no value for a parameter of {template}")
        named = "{" in template
        if not named and template not in ("/v1/memories", "/v1/retrieve", "/v1/jobs"):
            continue  # the caller's own lists, identity, schema: nothing of acme's named
        query = "" if named else "?namespace=private&query=Leica"
        body = {"namespace": "private", "messages": [{"role": "user", "content": "hi"}]}
        response = other_api.generic(
            method,
            path + query,
            json.dumps(body) if method == "POST" and not named else b"",
            content_type="application/json",
        )
        assert response.status_code == 404, (method, template, response.content)
        checked.append((method, template))
    assert len(checked) >= 12, checked
    # And acme's data is all still there.
    assert api.get(f"/v1/memories/{CAMERA}?namespace=private").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_with_one_idempotency_key_make_one_job(account):
    from django.db import connection
    from rest_framework.test import APIClient

    from memories.models import Job
    from tests.conftest import _key_client

    api = _key_client(account)
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    body = {"messages": [{"role": "user", "content": "I bought a Sony A7III."}]}
    answers: list = []
    start = threading.Barrier(8)

    def retry():
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {api.secret}")
        try:
            start.wait()
            response = client.post(
                "/v1/memories", body, format="json", HTTP_IDEMPOTENCY_KEY="order-42"
            )
            answers.append((response.status_code, response.json()["job"]["id"]))
        finally:
            connection.close()

    threads = [threading.Thread(target=retry) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(answers) == 8
    assert {status for status, _ in answers} <= {200, 202}
    assert len({job for _, job in answers}) == 1
    assert Job.objects.filter(idempotency_key="order-42").count() == 1
