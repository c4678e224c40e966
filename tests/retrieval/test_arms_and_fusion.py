"""Each arm finds what it is for; fusion, ageing and filters rank what they return."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from retrieval.query import FusionParams
from tests.retrieval.helpers import memory, write

K = FusionParams().rrf_k
LEXICAL = FusionParams().lexical_weight
SEMANTIC = FusionParams().semantic_weight

CAMERA = "facts/camera-gear/sony-a7iii-9a01c4de.md"
LENS = "facts/camera-gear/kit-lens-28-70-1b2c3d4e.md"
HOMETOWN = "facts/family/hometown-5e6f7a8b.md"
DOG = "facts/family/dog-biscuit-0a0b0c0d.md"
TRIP = "events/travel/lisbon-trip-11112222.md"
HOTEL = "events/travel/hotel-avenida-33334444.md"
COFFEE = "preferences/food/coffee-55556666.md"


@pytest.fixture
def life(notes):
    write(
        notes,
        {
            CAMERA: memory(
                cues=["what camera do I own", "Sony A7III purchase"],
                body="Bought a Sony A7III (model ILCE-7M3) from Fotocentre in Bengaluru.",
                tags=["camera", "purchase"],
                related={LENS: "same-purchase"},
                sources=["msg-2041"],
                confidence=0.9,
            ),
            LENS: memory(
                cues=["which lens came with the camera", "FE 28-70 kit lens"],
                body="The kit lens is the FE 28-70mm F3.5-5.6 OSS.",
                tags=["camera"],
            ),
            HOMETOWN: memory(cues=["where did I grow up"], body="Grew up in Pune, Maharashtra."),
            DOG: memory(cues=["what is my dog called"], body="Our dog is called Biscuit."),
            TRIP: memory(
                tier="events",
                cues=["Lisbon trip in May 2026"],
                body="Went to Lisbon for a week in May 2026.",
                tags=["travel"],
                related={HOTEL: "stayed-at"},
            ),
            HOTEL: memory(
                tier="events",
                cues=["hotel Avenida Palace"],
                body="Stayed at the Avenida Palace near Rossio station.",
                tags=["travel"],
            ),
            COFFEE: memory(
                tier="preferences",
                cues=["how do I take my coffee"],
                body="Coffee black, no sugar.",
                tags=["food"],
            ),
        },
    )
    return notes


def retrieve(api, query, **params):
    response = api.get("/v1/retrieve", {"query": query, "namespace": "notes", **params})
    assert response.status_code == 200, response.json()
    return response.json()


def paths(body):
    return [r["path"] for r in body["results"]]


def test_lexical_arm_finds_an_exact_model_number(api, life):
    body = retrieve(api, "ILCE-7M3", arms="lexical")
    assert paths(body) == [CAMERA]
    assert body["results"][0]["arms"]["lexical"]["rank"] == 1


def test_semantic_arm_finds_a_paraphrase_through_its_cue(api, life):
    assert retrieve(api, "which city was I raised in", arms="lexical")["results"] == []
    body = retrieve(api, "which city was I raised in", arms="semantic")
    top = body["results"][0]
    assert top["path"] == HOMETOWN
    assert top["arms"]["semantic"]["rank"] == 1
    assert top["arms"]["semantic"]["cue"] == "where did I grow up"


def test_a_memory_with_several_matching_cues_comes_back_once(api, life):
    body = retrieve(api, "Sony A7III camera I own", arms="semantic", limit=100)
    assert paths(body).count(CAMERA) == 1
    assert len(paths(body)) == len(set(paths(body))) == 7


def test_graph_arm_follows_a_related_link_from_a_hit(api, life):
    body = retrieve(api, "Lisbon", arms="lexical,graph")
    assert paths(body) == [TRIP, HOTEL]
    hotel = body["results"][1]
    assert set(hotel["arms"]) == {"graph"}
    assert hotel["arms"]["graph"]["via"] == {"from": TRIP, "type": "stayed-at", "direction": "out"}


def test_graph_arm_follows_links_backwards_too(api, life):
    body = retrieve(api, "Avenida Palace", arms="lexical,graph")
    assert paths(body) == [HOTEL, TRIP]
    via = body["results"][1]["arms"]["graph"]["via"]
    assert via == {"from": HOTEL, "type": "stayed-at", "direction": "in"}


def test_without_the_graph_arm_linked_memories_stay_out(api, life):
    assert paths(retrieve(api, "Lisbon", arms="lexical")) == [TRIP]


def test_fusion_adds_reciprocal_ranks_of_the_arms_that_agree(api, life):
    body = retrieve(api, "Sony A7III", arms="lexical,semantic")
    top = body["results"][0]
    assert top["path"] == CAMERA
    assert top["arms"]["lexical"]["rank"] == 1 and top["arms"]["semantic"]["rank"] == 1
    # facts do not age: the score is the plain weighted RRF, w_lex/(k+1) + w_sem/(k+1)
    assert top["score"] == pytest.approx((LEXICAL + SEMANTIC) / (K + 1))
    second = body["results"][1]
    assert second["score"] < top["score"]
    assert "lexical" not in second["arms"]


def test_every_result_carries_its_text_and_header(api, life):
    top = retrieve(api, "ILCE-7M3", arms="lexical")["results"][0]
    assert top["content"].startswith("Bought a Sony A7III")
    assert top["tier"] == "facts"
    assert top["tags"] == ["camera", "purchase"]
    assert top["cues"] == ["what camera do I own", "Sony A7III purchase"]
    assert top["sources"] == ["msg-2041"]
    assert top["related"] == [{"type": "same-purchase", "path": LENS}]
    assert top["confidence"] == 0.9
    assert top["created"] == top["updated"] == "2026-07-31T00:00:00Z"


def test_tier_filter_keeps_every_arm_inside_the_tier(api, life):
    body = retrieve(api, "camera coffee Lisbon", tier="events")
    assert paths(body) and {r["tier"] for r in body["results"]} == {"events"}
    body = retrieve(api, "camera coffee Lisbon", tier="events,preferences")
    assert {r["tier"] for r in body["results"]} == {"events", "preferences"}


def test_tag_filter_needs_every_tag_given(api, life):
    assert set(paths(retrieve(api, "camera lens", tag="camera"))) == {CAMERA, LENS}
    assert paths(retrieve(api, "camera lens", tag=["camera", "purchase"])) == [CAMERA]
    assert paths(retrieve(api, "camera lens", tag="gardening")) == []


def test_semantic_arm_under_a_filter_still_returns_the_matching_memories(api, life):
    # The nearest cues to this query are camera ones; the filter rejects them inside
    # the vector scan, which must keep going until it has the travel memories.
    body = retrieve(api, "what camera do I own", arms="semantic", tag="travel")
    assert set(paths(body)) == {TRIP, HOTEL}


def test_limit_caps_the_results(api, life):
    assert len(retrieve(api, "camera", arms="semantic", limit=2)["results"]) == 2


def test_older_events_fade_but_facts_do_not(api, notes):
    now = datetime.now(UTC)
    write(
        notes,
        {
            "events/runs/recent-run-00000001.md": memory(
                tier="events", cues=["marathon run"], body="Ran a marathon.", updated=now
            ),
            "events/runs/old-run-00000002.md": memory(
                tier="events",
                cues=["marathon run"],
                body="Ran a marathon.",
                updated=now - timedelta(days=180),
            ),
            "facts/runs/best-time-00000003.md": memory(
                cues=["marathon run"],
                body="Ran a marathon.",
                updated=now - timedelta(days=3650),
            ),
        },
    )
    body = retrieve(api, "marathon", arms="lexical")
    scores = {r["path"]: r["score"] for r in body["results"]}
    recent = scores["events/runs/recent-run-00000001.md"]
    old = scores["events/runs/old-run-00000002.md"]
    fact = scores["facts/runs/best-time-00000003.md"]
    # Identical text, so identical BM25: ranks 1..3 by path order. Events halve every 90
    # days above a floor of half the score: 180 days is a factor of 1/2 + 1/2 * 1/4; the
    # ten-year-old fact keeps its full score.
    ranks = {r["path"]: r["arms"]["lexical"]["rank"] for r in body["results"]}
    rrf = {path: LEXICAL / (K + rank) for path, rank in ranks.items()}
    assert fact == pytest.approx(rrf["facts/runs/best-time-00000003.md"])
    assert recent == pytest.approx(rrf["events/runs/recent-run-00000001.md"], rel=1e-3)
    assert old == pytest.approx(rrf["events/runs/old-run-00000002.md"] * 0.625, rel=1e-3)
    assert paths(body)[-1] == "events/runs/old-run-00000002.md"


def test_of_two_memories_asked_the_same_question_the_later_ranks_first(api, notes):
    # Facts do not fade, so age cannot order them: the semantic arm's tie (the same best
    # cue, the same distance) goes to the memory updated last, whatever its path says.
    now = datetime.now(UTC)
    write(
        notes,
        {
            "facts/books/b-piranesi-00000002.md": memory(
                cues=["what do I read"], body="Reading Piranesi.", updated=now
            ),
            "facts/books/a-dune-00000001.md": memory(
                cues=["what do I read"], body="Reading Dune.", updated=now - timedelta(days=200)
            ),
        },
    )
    for arms in ("semantic", "lexical,semantic"):
        body = retrieve(api, "what am I reading", arms=arms)
        assert paths(body)[0] == "facts/books/b-piranesi-00000002.md", arms
    body = retrieve(api, "what am I reading", arms="semantic")
    assert [r["arms"]["semantic"]["rank"] for r in body["results"]] == [1, 2]


def test_a_plan_does_not_fade_before_the_day_it_names(api, notes):
    now = datetime.now(UTC)
    said = now - timedelta(days=180)
    coming = (now + timedelta(days=30)).date().isoformat()
    gone = (said + timedelta(days=10)).date().isoformat()
    bodies = {
        "events/plans/coming-00000001.md": f"Running the Seville marathon on the 14th ({coming}).",
        "events/plans/next-year-00000002.md": f"Running a marathon in Japan next year ({now.year + 1}).",
        "events/plans/gone-00000003.md": f"Running the Leeds marathon on the 3rd ({gone}).",
        # no day at all: read as far as it goes, never an error
        "events/plans/odd-00000004.md": "Marathon bib code 2026-02-31 (1999-13).",
    }
    write(
        notes,
        {
            path: memory(tier="events", cues=["marathon plan"], body=text, updated=said)
            for path, text in bodies.items()
        },
    )
    body = retrieve(api, "marathon", arms="lexical")
    ranks = {r["path"]: r["arms"]["lexical"]["rank"] for r in body["results"]}
    scores = {r["path"]: r["score"] for r in body["results"]}
    full = {path: LEXICAL / (K + rank) for path, rank in ranks.items()}
    # Said half a year ago: the two still to come keep their whole score; the one whose
    # day went by has faded from when it was said (1/2 + 1/2 * 0.5 ** (180 / 90)).
    for path in ("events/plans/coming-00000001.md", "events/plans/next-year-00000002.md"):
        assert scores[path] == pytest.approx(full[path], rel=1e-3), path
    assert "events/plans/odd-00000004.md" in scores
    gone_path = "events/plans/gone-00000003.md"
    assert scores[gone_path] == pytest.approx(full[gone_path] * 0.625, rel=1e-3)


def test_an_old_event_asked_after_by_name_still_outranks_a_fresh_memory_about_else(api, notes):
    now = datetime.now(UTC)
    write(
        notes,
        {
            "events/knee/knee-appointment-00000001.md": memory(
                tier="events",
                cues=["when is my knee appointment"],
                body="Knee appointment at the Whittington on 7 April at 10:40.",
                updated=now - timedelta(days=240),
            ),
            "facts/trips/whitstable-00000002.md": memory(
                cues=["Went to Whitstable with Nadia for oysters."],
                body="Went to Whitstable with Nadia for oysters.",
                updated=now,
            ),
        },
    )
    body = retrieve(api, "when was my knee appointment")
    assert paths(body)[0] == "events/knee/knee-appointment-00000001.md"


def test_a_retrieval_asked_as_of_a_past_day_ages_memories_from_that_day(notes):
    # What eval_locomo does for a conversation held years ago: ask as of its end.
    from retrieval.selectors import retrieve as retrieve_selector

    then = datetime(2023, 5, 8, tzinfo=UTC)
    write(
        notes,
        {
            "events/runs/that-week-00000001.md": memory(
                tier="events",
                cues=["Berlin marathon run"],
                body="Ran the Berlin marathon.",
                updated=then,
            ),
            "facts/runs/long-ago-00000002.md": memory(
                cues=["marathon run"],
                body="Ran a marathon.",
                updated=then - timedelta(days=3650),
            ),
        },
    )

    def ranked(**when):
        found = retrieve_selector(
            namespace=notes, query="Berlin marathon", arms=("lexical",), **when
        )
        return [hit.path for hit in found.results]

    # The event matches better, but from today the 2023 event has faded below the fact;
    # from its own week it has not.
    assert ranked() == ["facts/runs/long-ago-00000002.md", "events/runs/that-week-00000001.md"]
    assert ranked(now=then + timedelta(days=1)) == [
        "events/runs/that-week-00000001.md",
        "facts/runs/long-ago-00000002.md",
    ]


def test_response_names_tenant_namespace_and_commit(api, life):
    from namespaces.repository import repository_head

    body = retrieve(api, "camera")
    assert body["tenant"] == "acme"
    assert body["namespace"] == "notes"
    assert body["commit"] == repository_head(prefix=life.storage_prefix)
    assert body["took_ms"] > 0


def test_an_empty_namespace_answers_with_no_results(api, notes):
    body = retrieve(api, "anything at all")
    assert body["results"] == []
    assert body["namespace"] == "notes"


def test_a_link_to_a_memory_written_later_is_followed_once_it_exists(api, notes):
    trip = memory(tier="events", cues=["Lisbon trip"], body="Lisbon.", related={HOTEL: "stayed-at"})
    write(notes, {TRIP: trip})
    assert paths(retrieve(api, "Lisbon", arms="lexical,graph")) == [TRIP]
    hotel = memory(tier="events", cues=["hotel Avenida Palace"], body="Avenida Palace.")
    write(notes, {HOTEL: hotel})
    assert paths(retrieve(api, "Lisbon", arms="lexical,graph")) == [TRIP, HOTEL]
    # Rewriting the target keeps the link; deleting it drops the hop.
    rewritten = memory(tier="events", cues=["hotel Avenida Palace"], body="Avenida, Rossio.")
    write(notes, {HOTEL: rewritten})
    assert paths(retrieve(api, "Lisbon", arms="lexical,graph")) == [TRIP, HOTEL]
    write(notes, {HOTEL: None})
    assert paths(retrieve(api, "Lisbon", arms="lexical,graph")) == [TRIP]


def test_graph_hits_respect_the_filters(api, life):
    body = retrieve(api, "Lisbon", arms="lexical,graph", tag="travel")
    assert paths(body) == [TRIP, HOTEL]
    assert paths(retrieve(api, "Lisbon Sony", arms="lexical,graph", tier="facts")) == [
        CAMERA,
        LENS,
    ]


def test_outside_a_transaction_retrieval_is_the_same_in_one_round_trip(transactional_db, api, life):
    from django.db import connection

    assert not connection.in_atomic_block  # the request's scope is one message
    body = retrieve(api, "what camera do I own", tag="travel")
    assert set(paths(body)) == {TRIP, HOTEL}
    body = retrieve(api, "Lisbon", arms="lexical,graph")
    assert paths(body) == [TRIP, HOTEL]
    assert body["results"][1]["arms"]["graph"]["via"]["from"] == TRIP


def _fillers(count: int) -> dict:
    return {
        f"facts/misc/filler-{i:02d}-{i:08x}.md": memory(
            cues=[f"reminder number {i}"], body=f"Reminder {i}: water the plants."
        )
        for i in range(count)
    }


def test_in_a_small_namespace_a_link_lifts_nothing(api, life):
    # Seven memories and 20 graph seeds: every memory is a seed, so a link to one marks
    # nothing, and the best match (the coffee, on its own) stays first.
    body = retrieve(api, "Lisbon coffee Rossio", arms="lexical,graph")
    assert paths(body) == [COFFEE, TRIP, HOTEL]
    assert body["results"][2]["arms"]["graph"]["via"]["from"] == TRIP


def test_in_a_bigger_namespace_linked_hits_lift_each_other(api, life):
    # Twice as many memories as graph seeds: the trip and its hotel, linked and each
    # matching the query, now rise above the coffee's better single match.
    write(life, _fillers(2 * FusionParams().graph_seeds))
    body = retrieve(api, "Lisbon coffee Rossio", arms="lexical,graph")
    assert paths(body) == [TRIP, HOTEL, COFFEE]


def test_near_equal_lexical_scores_leave_the_order_to_the_other_arms(api, notes):
    # Both memories say "bike" once; BM25 prefers the shorter by a few per cent, which
    # says nothing about which answers the question. Within lexical_tie of each other
    # they share a lexical rank, and the cue that asks the question decides.
    puncture = "facts/bike/puncture-00000001.md"
    brompton = "facts/bike/brompton-00000002.md"
    write(
        notes,
        {
            puncture: memory(
                cues=["My bike got a puncture on the canal path."],
                body="My bike got a puncture on the canal path.",
            ),
            brompton: memory(
                cues=["which bike do I ride", "A grey Brompton, the folding one."],
                body="A grey Brompton, the folding one, my commuting bike.",
            ),
        },
    )
    body = retrieve(api, "what bike do I have")
    results = body["results"]
    assert paths(body)[0] == brompton
    assert results[0]["arms"]["lexical"]["rank"] == results[1]["arms"]["lexical"]["rank"] == 1
    assert results[0]["arms"]["lexical"]["score"] != results[1]["arms"]["lexical"]["score"]
