"""Parseable but malformed input is 400, never 500, and writes nothing."""

import pytest

from tests.support.archives import memory_bytes, tar_gz


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    return "default"


def _post_raw(client, path, body: str):
    return client.post(path, body.encode("utf-8", "surrogatepass"), content_type="application/json")


def _jobs(api):
    return api.get("/v1/jobs?namespace=default").json()["jobs"]


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    "path,body",
    [
        ("/v1/namespaces", '{"name": ' + _nested(1200) + "}"),
        ("/v1/memories", '{"messages": ' + _nested(1200) + "}"),
        ("/v1/memories", '{"messages": [], "metadata": ' + _nested(200) + "}"),
        ("/v1/memories", '{"metadata": {"a": ' + '{"a": ' * 1200 + "1" + "}" * 1201),
    ],
)
def test_deeply_nested_json_is_400_on_every_json_endpoint(api, ns, path, body):
    response = _post_raw(api, path, body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "malformed_json"
    assert _jobs(api) == []


def test_deeply_nested_json_is_400_for_a_dashboard_session_too(dashboard):
    from tests.conftest import csrf_token

    token = csrf_token(dashboard)
    response = dashboard.post(
        "/v1/keys",
        '{"name": ' + _nested(1200) + "}",
        content_type="application/json",
        HTTP_X_CSRFTOKEN=token,
    )
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "malformed_json"


MESSAGE = '{"role": "user", "content": "I bought a Sony A7III."}'


@pytest.mark.parametrize(
    "body",
    [
        '{"messages": [' + MESSAGE + '], "metadata": {"k": "a\\u0000b"}}',
        '{"messages": [' + MESSAGE + '], "metadata": {"a\\u0000b": "v"}}',
        '{"messages": [{"role": "user", "content": "lone \\ud800 surrogate"}]}',
        '{"messages": [' + MESSAGE + '], "metadata": {"k": "\\udfff"}}',
        '{"messages": [' + MESSAGE + '], "metadata": {"\\ud800": 1}}',
        '{"messages": [' + MESSAGE + '], "session_id": "s\\ud800"}',
    ],
    ids=["nul-value", "nul-key", "surrogate-content", "surrogate-value", "surrogate-key", "sid"],
)
def test_nul_and_lone_surrogates_are_400_and_queue_nothing(api, ns, body):
    response = _post_raw(api, "/v1/memories", body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "malformed_json"
    assert _jobs(api) == []


@pytest.mark.parametrize(
    "when",
    [
        "9999-12-31T23:59:59-14:00",
        "0001-01-01T00:00:00+14:00",
        # Representable, but a relative date counted from it ("on Friday") is not: the
        # accepted range is years 0100-9899.
        "9999-12-31T23:59:59",
        "9900-01-01T00:00:00Z",
        "0099-12-31T23:59:59Z",
    ],
)
def test_timestamps_at_the_edge_of_the_date_range_are_400(api, ns, when):
    response = api.post(
        "/v1/memories",
        {"messages": [{"role": "user", "content": "hello", "timestamp": when}]},
        format="json",
    )
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == "invalid_transcript"
    assert _jobs(api) == []


def test_an_imported_memory_dated_past_the_range_is_400(api, ns):
    bad = memory_bytes("A fact.").replace(
        b"created: 2026-07-31T00:00:00Z", b"created: 9999-12-31T23:59:59-14:00"
    )
    assert b"9999" in bad
    response = api.post(
        "/v1/namespaces/default/import",
        tar_gz({"facts/a/edge-00000000.md": bad}),
        content_type="application/gzip",
    )
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == "invalid_memory"


def _json_operations():
    """Every operation of the OpenAPI schema that takes a JSON body, its path filled."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    values = {
        "{job_id}": "00000000-0000-0000-0000-000000000000",
        "{name}": "default",
        "{path}": "facts/a/one.md",
        "{key_id}": "1",
        "{endpoint_id}": "00000000-0000-0000-0000-000000000000",
        "{delivery_id}": "00000000-0000-0000-0000-000000000000",
    }
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if "application/json" in operation.get("requestBody", {}).get("content", {}):
                for placeholder, value in values.items():
                    path = path.replace(placeholder, value)
                yield method, path


def test_deeply_nested_json_is_400_on_every_operation_of_the_schema_taking_json(api, ns, dashboard):
    from tests.conftest import csrf_token

    token = csrf_token(dashboard)
    operations = list(_json_operations())
    assert len(operations) >= 6
    for method, path in operations:
        # /v1/keys and /v1/webhooks are for dashboard sessions only; every other one
        # takes an API key.
        dashboard_only = path.startswith(("/v1/keys", "/v1/webhooks"))
        client, extra = (dashboard, {"HTTP_X_CSRFTOKEN": token}) if dashboard_only else (api, {})
        response = getattr(client, method)(
            path, '{"a": ' + _nested(1200) + "}", content_type="application/json", **extra
        )
        assert response.status_code == 400, (method, path, response.content)
        assert response.json()["error"]["code"] == "malformed_json", (method, path)
