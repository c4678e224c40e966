import pytest

from tests.support.openapi import schema

NAMESPACE_ROUTES = [
    ("get", "/v1/namespaces/{ns}"),
    ("delete", "/v1/namespaces/{ns}"),
]


def test_namespace_lifecycle(api):
    created = api.post("/v1/namespaces", {"name": "user-8213"}, format="json")
    assert created.status_code == 201
    assert created.json()["name"] == "user-8213"
    assert [n["name"] for n in api.get("/v1/namespaces").json()["namespaces"]] == ["user-8213"]
    assert api.get("/v1/namespaces/user-8213").json()["name"] == "user-8213"
    assert api.delete("/v1/namespaces/user-8213").status_code == 204
    gone = api.get("/v1/namespaces/user-8213")
    assert gone.status_code == 404
    assert gone.json()["error"]["code"] == "namespace_not_found"
    assert api.get("/v1/namespaces").json()["namespaces"] == []


def test_deleted_namespace_name_can_be_reused(api, fresh_object_store):
    from namespaces.models import Namespace

    assert api.post("/v1/namespaces", {"name": "again"}, format="json").status_code == 201
    prefix = Namespace.objects.get(name="again").storage_prefix
    assert fresh_object_store.list(prefix)  # its repository
    assert api.delete("/v1/namespaces/again").status_code == 204
    assert fresh_object_store.list(prefix) == []  # deleting purged it
    assert api.post("/v1/namespaces", {"name": "again"}, format="json").status_code == 201


def test_duplicate_namespace_is_409(api):
    assert api.post("/v1/namespaces", {"name": "dup"}, format="json").status_code == 201
    response = api.post("/v1/namespaces", {"name": "dup"}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "namespace_exists"


@pytest.mark.parametrize(
    "name",
    ["", "UPPER", "has space", "a#b", "a/b", "../x", "é", "x" * 65, "dot.ted", "under_score"],
)
def test_namespace_names_use_the_slug_charset(api, name):
    # One rule, one code: empty and too long are not slugs either.
    response = api.post("/v1/namespaces", {"name": name}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_name"
    assert api.get("/v1/namespaces").json()["namespaces"] == []


@pytest.mark.parametrize(
    "body",
    [{"name": 5}, {"name": ["a"]}, {"name": None}, {}, {"name": "ok", "extra": True}, [1, 2]],
)
def test_wrong_types_and_unknown_fields_are_400(api, body):
    response = api.post("/v1/namespaces", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert api.get("/v1/namespaces").json()["namespaces"] == []


def test_the_schema_lists_exactly_the_400_codes_of_creating_a_namespace():
    # invalid_name for any name that is not a slug; the body's own codes for the rest
    # (malformed_json and empty_body are pinned in tests/gitloom/test_malformed_input.py;
    # bad_request, a broken chunked body, every operation's, in tests/server/test_serve.py;
    # unsupported_transfer_coding, every operation's, in tests/server/test_slow_clients.py).
    create = schema()["paths"]["/v1/namespaces"]["post"]["responses"]["400"]["content"]
    error = create["application/json"]["schema"]["allOf"][1]["properties"]["error"]
    assert set(error["properties"]["code"]["enum"]) == {
        "invalid",
        "invalid_name",
        "malformed_json",
        "empty_body",
        "unsupported_transfer_coding",
        "bad_request",
    }


def test_a_validation_error_keeps_its_fields(api):
    response = api.post("/v1/namespaces", {"name": 5, "colour": "blue"}, format="json")
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error["details"]["fields"] == {
        "colour": ["Unknown field."],
    }
    response = api.post("/v1/namespaces", {"name": 5}, format="json")
    assert response.json()["error"]["details"]["fields"] == {"name": ["Not a valid string."]}


def test_another_accounts_namespace_is_indistinguishable_from_missing(api, other_api):
    assert other_api.post("/v1/namespaces", {"name": "secret"}, format="json").status_code == 201
    for method, route in NAMESPACE_ROUTES:
        theirs = getattr(api, method)(route.format(ns="secret"))
        missing = getattr(api, method)(route.format(ns="nope"))
        assert theirs.status_code == missing.status_code == 404
        assert theirs.json() == missing.json()
    assert other_api.get("/v1/namespaces/secret").status_code == 200
    assert api.get("/v1/namespaces").json()["namespaces"] == []


def test_same_name_in_two_accounts_are_separate(api, other_api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    assert other_api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    assert api.delete("/v1/namespaces/default").status_code == 204
    assert other_api.get("/v1/namespaces/default").status_code == 200


def test_session_and_key_reach_the_same_namespace_endpoints(dashboard):
    from tests.conftest import csrf_token

    token = csrf_token(dashboard)
    created = dashboard.post(
        "/v1/namespaces", {"name": "web"}, format="json", HTTP_X_CSRFTOKEN=token
    )
    assert created.status_code == 201
    key = dashboard.post("/v1/keys", {"name": "k"}, format="json", HTTP_X_CSRFTOKEN=token)
    from rest_framework.test import APIClient

    keyed = APIClient()
    keyed.credentials(HTTP_AUTHORIZATION=f"Bearer {key.json()['secret']}")
    assert [n["name"] for n in keyed.get("/v1/namespaces").json()["namespaces"]] == ["web"]
    assert dashboard.get("/v1/namespaces").json() == keyed.get("/v1/namespaces").json()


@pytest.mark.parametrize("name", [5, 5.0, True, ["5"]])
@pytest.mark.parametrize(
    "path,body",
    [
        ("/v1/memories", {"messages": [{"role": "user", "content": "I live in Oslo."}]}),
        ("/v1/retrieve", {"query": "where do I live"}),
    ],
)
def test_a_non_string_namespace_in_a_body_is_400_not_coerced(api, path, body, name):
    # A namespace named "5" exists, so a coerced 5 would silently reach it.
    assert api.post("/v1/namespaces", {"name": "5"}, format="json").status_code == 201
    response = api.post(path, {**body, "namespace": name}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"
    assert "namespace" in response.json()["error"]["message"]
    assert api.get("/v1/jobs?namespace=5").json()["jobs"] == []


def test_a_new_namespace_names_its_root_commit_as_the_head_everywhere(api):
    created = api.post("/v1/namespaces", {"name": "fresh"}, format="json").json()
    assert len(created["head_commit"]) == 40 and created["last_write"] is None
    assert api.get("/v1/namespaces/fresh").json()["head_commit"] == created["head_commit"]
    # The same commit the memory listing (and so the dashboard's "Head") shows.
    assert api.get("/v1/memories?namespace=fresh").json()["commit"] == created["head_commit"]
