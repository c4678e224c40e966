"""A memory whose cue is the question ranks first: cues exist so that it does."""

from __future__ import annotations

import pytest

from tests.retrieval.helpers import memory, write

CAMERA = "facts/camera-gear/bought-a-sony-a7iii-9a01c4de.md"
LENS = "facts/camera-gear/kit-lens-28-70-1b2c3d4e.md"
BAG = "facts/camera-gear/camera-bag-5e6f7a8b.md"
PARTNER = "facts/family/partner-works-at-3c4d5e6f.md"
MOTHER = "facts/family/mother-lives-in-7a8b9c0d.md"
EMPLOYER = "facts/work/employer-acme-1a2b3c4d.md"


def retrieve(api, query, **params):
    response = api.get("/v1/retrieve", {"query": query, "namespace": "notes", **params})
    assert response.status_code == 200, response.json()
    return [r["path"] for r in response.json()["results"]]


@pytest.fixture
def camera(notes):
    write(
        notes,
        {
            CAMERA: memory(
                cues=["what camera do I own", "Sony A7III purchase"],
                body="Bought a Sony A7III on 2026-07-31 from Fotocentre in Bengaluru.",
                related={LENS: "same-purchase"},
            ),
            LENS: memory(
                cues=["which lens came with my camera", "FE 28-70 kit lens"],
                body="The camera came with the FE 28-70mm kit lens; I own it and a camera strap.",
                related={CAMERA: "same-purchase", BAG: "carried-in"},
            ),
            BAG: memory(
                cues=["what bag do I carry my camera in"],
                body="My camera and lens go in a Peak Design camera bag I own.",
                related={LENS: "carries"},
            ),
        },
    )
    return notes


def test_a_cue_equal_to_the_query_ranks_first(api, camera):
    assert retrieve(api, "what camera do I own")[0] == CAMERA


@pytest.mark.parametrize(
    "query",
    [
        "What camera do I own?",  # case and punctuation
        "  what   camera do i OWN  ",  # spacing
        "what camera do I own!",
    ],
)
def test_a_cue_equal_after_normalisation_ranks_first(api, camera, query):
    assert retrieve(api, query)[0] == CAMERA


def test_an_exact_cue_wins_over_lexical_and_graph_support_for_a_neighbour(api, camera):
    # The lens and bag repeat the query's words and link to each other; the camera's
    # cue is the question itself.
    found = retrieve(api, "what camera do I own", limit=3)
    assert found[0] == CAMERA
    assert set(found) == {CAMERA, LENS, BAG}


def test_each_memory_is_first_for_its_own_cue(api, camera):
    assert retrieve(api, "which lens came with my camera")[0] == LENS
    assert retrieve(api, "what bag do I carry my camera in")[0] == BAG


def test_an_exact_cue_ranks_first_with_a_tier_filter_too(api, camera):
    assert retrieve(api, "what camera do I own", tier="facts")[0] == CAMERA


@pytest.fixture
def people(notes):
    write(
        notes,
        {
            PARTNER: memory(
                cues=["where does my partner work"],
                body="Priya works at the city hospital as a nurse.",
                related={EMPLOYER: "compare", MOTHER: "family"},
            ),
            MOTHER: memory(
                cues=["where does my mother live"],
                body="My mother lives in Pune; she worked at a bank where my partner "
                "would later work for a summer.",
                related={PARTNER: "family"},
            ),
            EMPLOYER: memory(
                cues=["where do I work", "my employer Acme"],
                body="I work at Acme; my partner does not work there; where I work the "
                "partner programme is good.",
                related={PARTNER: "compare"},
            ),
        },
    )
    return notes


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("where does my partner work", PARTNER),
        ("Where does my mother live?", MOTHER),
        ("where do I work", EMPLOYER),
    ],
)
def test_exact_cues_rank_first_among_overlapping_memories(api, people, query, first):
    assert retrieve(api, query)[0] == first


def test_a_near_equal_cue_ranks_first(api, camera):
    # cosine 0.97 with "what camera do I own" (MiniLM): near-equal
    assert retrieve(api, "which camera do I own")[0] == CAMERA


def test_two_memories_matching_as_exactly_both_lead(api, camera, notes):
    second = "facts/camera-gear/bought-a-fujifilm-x100v-2b3c4d5e.md"
    write(
        notes,
        {second: memory(cues=["what camera do I own"], body="Also own a Fujifilm X100V.")},
    )
    assert set(retrieve(api, "what camera do I own", limit=2)) == {CAMERA, second}


def test_a_paraphrase_below_the_threshold_is_left_to_fusion(api, camera):
    # "what camera do I have" is cosine 0.89 with the camera's cue: no exact match, so
    # the bag (whose cue and body share the words) may come first; the camera is found.
    found = retrieve(api, "what camera do I have", limit=3)
    assert CAMERA in found


def test_an_exact_cue_ranks_first_with_the_lexical_arm_alone(api, camera):
    # No cue vectors to gate the text comparison: every candidate's cues are compared.
    assert retrieve(api, "What camera do I own?", arms="lexical")[0] == CAMERA
