"""GET /v1/retrieve: who may ask, and what counts as a bad question."""

from __future__ import annotations

import pytest

from tests.retrieval.helpers import memory, write
from tests.support.openapi import schema

SECRET = "facts/private/secret-12345678.md"


@pytest.fixture
def secret(other_notes):
    write(other_notes, {SECRET: memory(cues=["vault code"], body="The vault code is 4711.")})
    return other_notes


def test_another_accounts_namespace_is_a_404_like_a_missing_one(api, other_api, secret):
    theirs = api.get("/v1/retrieve", {"query": "vault code", "namespace": "notes"})
    missing = api.get("/v1/retrieve", {"query": "vault code", "namespace": "nope"})
    assert theirs.status_code == missing.status_code == 404
    assert theirs.json() == missing.json()
    assert theirs.json()["error"]["code"] == "namespace_not_found"
    # The owner still finds it.
    owner = other_api.get("/v1/retrieve", {"query": "vault code", "namespace": "notes"})
    assert [r["path"] for r in owner.json()["results"]] == [SECRET]
    assert owner.json()["tenant"] == "globex"


def test_same_namespace_name_in_two_accounts_never_mixes(api, notes, secret):
    write(notes, {"facts/misc/mine-87654321.md": memory(cues=["vault code"], body="Mine.")})
    body = api.get("/v1/retrieve", {"query": "vault code", "namespace": "notes"}).json()
    assert [r["path"] for r in body["results"]] == ["facts/misc/mine-87654321.md"]


def test_omitted_namespace_means_default_which_must_exist(api, account):
    from namespaces.services import namespace_create

    response = api.get("/v1/retrieve", {"query": "anything"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "namespace_not_found"
    namespace_create(account=account, name="default")
    response = api.get("/v1/retrieve", {"query": "anything"})
    assert response.status_code == 200
    assert response.json()["namespace"] == "default"


def test_unauthenticated_caller_gets_401(anon, notes):
    response = anon.get("/v1/retrieve", {"query": "x", "namespace": "notes"})
    assert response.status_code == 401


BAD_QUESTIONS = [
    # Shape (the filter serializer): missing, not a number, not a tier, unknown.
    ({}, "invalid"),
    ({"query": "ok", "limit": "ten"}, "invalid"),
    ({"query": "ok", "tier": "legends"}, "invalid"),
    ({"query": "ok", "colour": "blue"}, "invalid"),
    # The selector's rules, each with its declared code.
    ({"query": ""}, "invalid_query"),
    ({"query": "   "}, "invalid_query"),
    ({"query": "nul\x00byte"}, "invalid_query"),
    ({"query": "x" * 1001}, "query_too_long"),
    ({"query": "x" * 10_000}, "query_too_long"),
    ({"query": "ok", "limit": "0"}, "invalid_limit"),
    ({"query": "ok", "limit": "101"}, "invalid_limit"),
    ({"query": "ok", "limit": "5000"}, "invalid_limit"),
    ({"query": "ok", "arms": "lexical,psychic"}, "invalid_arms"),
    ({"query": "ok", "arms": "graph"}, "invalid_arms"),
    ({"query": "ok", "arms": ""}, "invalid_arms"),
]


@pytest.mark.parametrize(("params", "code"), BAD_QUESTIONS)
def test_bad_questions_are_400_with_one_code_each(api, notes, params, code):
    response = api.get("/v1/retrieve", {"namespace": "notes", **params})
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == code


def test_the_schema_lists_exactly_the_400_codes_retrieve_answers():
    media = schema()["paths"]["/v1/retrieve"]["get"]["responses"]["400"]["content"]
    listed = media["application/json"]["schema"]["allOf"][1]["properties"]["error"]
    answered = {code for _, code in BAD_QUESTIONS}
    # as_of's: invalid_as_of is pinned in test_as_of.py; ambiguous_commit needs two
    # commits whose ids share the prefix asked for; bad_request (a broken chunked body,
    # every operation's) is pinned in tests/server/test_serve.py, and
    # unsupported_transfer_coding (every operation's) in tests/server/test_slow_clients.py.
    answered |= {"invalid_as_of", "ambiguous_commit", "bad_request", "unsupported_transfer_coding"}
    assert set(listed["properties"]["code"]["enum"]) == answered


def test_a_shape_error_names_its_field(api, notes):
    response = api.get("/v1/retrieve", {"namespace": "notes", "query": "ok", "limit": "ten"})
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert error["details"]["fields"] == {"limit": ["A valid integer is required."]}


def test_a_query_of_exactly_1000_characters_is_fine(api, notes):
    response = api.get("/v1/retrieve", {"query": "word " * 200, "namespace": "notes"})
    assert response.status_code == 200
    assert response.json()["results"] == []


def test_limit_of_100_is_allowed(api, notes):
    response = api.get("/v1/retrieve", {"query": "ok", "namespace": "notes", "limit": "100"})
    assert response.status_code == 200


def test_hostile_query_text_is_only_text(api, notes):
    write(notes, {"facts/misc/quote-0000abcd.md": memory(cues=["quote"], body="It's fine.")})
    for query in ["'; DROP TABLE retrieval_document; --", "a & b | !c", "%s::vector", "))(("]:
        response = api.get("/v1/retrieve", {"query": query, "namespace": "notes"})
        assert response.status_code == 200, (query, response.json())
    body = api.get("/v1/retrieve", {"query": "quote", "namespace": "notes"}).json()
    assert [r["path"] for r in body["results"]] == ["facts/misc/quote-0000abcd.md"]


def test_one_retrievals_filters_never_carry_over_to_the_next(api, notes):
    # The filter serializer's fields are shared by every request (gitloom.core.serializers).
    write(
        notes,
        {
            "facts/misc/camera-11111111.md": memory(cues=["camera bought"], body="A camera."),
            "events/misc/camera-22222222.md": memory(
                tier="events", cues=["camera repaired"], body="The camera was repaired."
            ),
        },
    )
    asked = {"query": "camera", "namespace": "notes"}
    only_events = api.get("/v1/retrieve", {**asked, "tier": "events", "arms": "lexical"}).json()
    assert [r["tier"] for r in only_events["results"]] == ["events"]
    bad = api.get("/v1/retrieve", {**asked, "limit": "ten"})
    assert bad.status_code == 400 and "limit" in bad.json()["error"]["details"]["fields"]
    everything = api.get("/v1/retrieve", asked).json()
    assert sorted(r["tier"] for r in everything["results"]) == ["events", "facts"]
    assert {arm for r in everything["results"] for arm in r["arms"]} >= {"lexical", "semantic"}
