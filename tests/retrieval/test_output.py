"""The /v1/retrieve answer is built directly (retrieval/output.py); the serializer that
declares it in the OpenAPI schema must agree with it, byte for byte once rendered."""

from __future__ import annotations

import pytest

from gitloom.core.renderers import JSONRenderer
from retrieval.apis import RetrievalOutputSerializer
from retrieval.output import retrieval_output
from retrieval.selectors import retrieve
from tests.retrieval.helpers import memory, write

TRIP = "events/travel/lisbon-trip-11112222.md"
HOTEL = "events/travel/hotel-avenida-33334444.md"
TRAM = "events/travel/tram-28-55556666.md"
BAKERY = "preferences/food/pasteis-77778888.md"


@pytest.fixture
def trip(notes):
    first = write(
        notes,
        {
            TRIP: memory(
                tier="events",
                cues=["when did I go to Lisbon", "Lisbon trip"],
                body="Went to Lisbon for a week in May 2026 — the first time in Portugal.",
                tags=["travel", "lisbon"],
                related={HOTEL: "stayed-at", TRAM: "same-trip"},
                sources=["msg-1", "msg-2"],
                confidence=0.8,
            ),
            HOTEL: memory(
                tier="events",
                cues=["which hotel did we stay at"],
                body="Stayed at the Avenida Palace near Rossio.",
            ),
        },
    ).commit
    write(
        notes,
        {
            TRAM: memory(tier="events", cues=["tram 28"], body="Rode tram 28 up to the castle."),
            BAKERY: memory(
                tier="preferences",
                cues=["favourite pastry"],
                body="Pastéis de nata from Manteigaria are the best.\u2028Warm, with cinnamon.",
            ),
        },
    )
    return notes, first


def _agree(found) -> dict:
    direct = retrieval_output(found)
    declared = RetrievalOutputSerializer(found).data
    assert direct == declared
    assert JSONRenderer().render(direct) == JSONRenderer().render(declared)
    return direct


def test_every_arm_a_null_confidence_and_a_past_commit_answer_as_the_serializer_says(trip):
    notes, first = trip
    notes.refresh_from_db()
    head = _agree(retrieve(namespace=notes, query="Lisbon trip hotel pastry", limit=20))
    arms = {arm for result in head["results"] for arm in result["arms"]}
    assert arms == {"lexical", "semantic", "graph"}
    linked = _agree(retrieve(namespace=notes, query="Lisbon", arms=["lexical", "graph"]))
    assert any(result["graph_only"] for result in linked["results"])
    assert {None, 0.8} <= {result["confidence"] for result in head["results"]}
    assert head["as_of"] is None and head["results"][0]["created"].endswith("Z")

    past = _agree(retrieve(namespace=notes, query="Lisbon", as_of=first, limit=20))
    assert past["as_of"]["commit"] == first and past["as_of"]["by"] == "stored"
    assert TRAM not in {result["path"] for result in past["results"]}


def test_an_empty_answer_agrees_too(notes):
    _agree(retrieve(namespace=notes, query="anything at all"))


def test_the_api_answers_the_direct_build(api, trip):
    notes, _ = trip
    body = api.get("/v1/retrieve", {"query": "Lisbon trip", "namespace": "notes"}).json()
    assert list(body) == list(RetrievalOutputSerializer().fields)
    assert body["results"][0]["path"] == TRIP
    assert list(body["results"][0]) == list(
        RetrievalOutputSerializer().fields["results"].child.fields
    )
