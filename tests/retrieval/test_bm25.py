"""The lexical arm is Okapi BM25 with this namespace's statistics, checked by hand.
Three memories (the english stemmer leaves these words as they are); a term in the cues
counts cue_weight = 2 times (the service's default) in tf and length:
    doc    cues     body                 tf(quark)  tf(gluon)  length (2 * cues + body)
    one    quark    quark gluon          2*1+1 = 3  1          2+2 = 4
    two    gluon    boson boson boson    0          2*1 = 2    2+3 = 5
    three  lepton   quark                1          0          2+1 = 3
N = 3, avgdl = 12 / 3 = 4, df(quark) = df(gluon) = 2, k1 = 1.2, b = 0.75
idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6) = 0.4700036292
"quark":
  one:   0.4700036 * 3 * 2.2 / (3 + 1.2 * (0.25 + 0.75 * 4/4)) = 0.4700036 * 6.6 / 4.2
       = 0.7385771
  three: 0.4700036 * 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 3/4)) = 0.4700036 * 2.2 / 1.975
       = 0.5235483
"quark gluon": one adds gluon 0.4700036 * 2.2 / (1 + 1.2 * 1) = 0.4700036 -> 1.2085808;
  two: 0.4700036 * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 5/4)) = 0.4700036 * 4.4 / 3.425
       = 0.6038003
"""

from __future__ import annotations

import pytest
from django.db import connection

from retrieval.query import FusionParams, fused_search
from retrieval.scope import namespace_scope
from tests.retrieval.helpers import memory, write

ONE = "facts/physics/one-00000001.md"
TWO = "facts/physics/two-00000002.md"
THREE = "facts/physics/three-00000003.md"


@pytest.fixture
def physics(notes):
    write(
        notes,
        {
            ONE: memory(cues=["quark"], body="quark gluon"),
            TWO: memory(cues=["gluon"], body="boson boson boson"),
            THREE: memory(cues=["lepton"], body="quark"),
        },
    )
    return notes


def lexical(api, query):
    response = api.get("/v1/retrieve", {"query": query, "namespace": "notes", "arms": "lexical"})
    assert response.status_code == 200, response.json()
    return [(r["path"], r["arms"]["lexical"]["score"]) for r in response.json()["results"]]


def test_single_term_scores_match_the_hand_computed_bm25(api, physics):
    assert lexical(api, "quark") == [
        (ONE, pytest.approx(0.7385771, abs=1e-6)),
        (THREE, pytest.approx(0.5235483, abs=1e-6)),
    ]


def test_scores_of_several_terms_add_up(api, physics):
    assert lexical(api, "Quark, gluon?") == [
        (ONE, pytest.approx(1.2085808, abs=1e-6)),
        (TWO, pytest.approx(0.6038003, abs=1e-6)),
        (THREE, pytest.approx(0.5235483, abs=1e-6)),
    ]


def test_cue_weight_is_a_query_time_knob(physics):
    # cue_weight 1, a cue word no more than a body word: tf(quark) one = 1 + 1 = 2,
    # three = 1; lengths one 1+2 = 3, two 1+3 = 4, three 1+1 = 2; avgdl = 3.
    #   one:   ln1.6 * 2 * 2.2 / (2 + 1.2 * (0.25 + 0.75 * 3/3)) = 0.6462550
    #   three: ln1.6 * 1 * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2/3)) = 0.5442147
    found = fused_search(
        namespace=physics,
        query="quark",
        embedding=None,
        arms=("lexical",),
        params=FusionParams(cue_weight=1.0),
    )
    assert [(h.path, h.arms["lexical"]["score"]) for h in found.hits] == [
        (ONE, pytest.approx(0.6462550, abs=1e-6)),
        (THREE, pytest.approx(0.5442147, abs=1e-6)),
    ]


def test_statistics_follow_writes_and_deletes(api, physics):
    # Deleting "three" leaves N = 2, df(quark) = 1, avgdl = (4 + 5) / 2 = 4.5:
    # idf = ln(1 + 1.5 / 1.5) = ln 2; one: ln2 * 3 * 2.2 / (3 + 1.2 * (0.25 + 0.75 * 4/4.5))
    write(physics, {THREE: None})
    expected = 0.6931471806 * 6.6 / (3 + 1.2 * (0.25 + 0.75 * 4 / 4.5))
    assert lexical(api, "quark") == [(ONE, pytest.approx(expected, abs=1e-6))]


def test_a_word_no_memory_has_finds_nothing_lexically(api, physics):
    assert lexical(api, "neutrino") == []


@pytest.mark.parametrize("invisible", ["\u2060", "\u200b", "\u00ad", "\ufeff"])
def test_an_invisible_character_inside_a_word_does_not_hide_it(api, notes, invisible):
    path = "facts/camera/nikon-00000009.md"
    write(notes, {path: memory(cues=["what camera do I own"], body=f"Nikon{invisible} Z6 camera")})
    assert [hit[0] for hit in lexical(api, "Nikon")] == [path]
    assert [hit[0] for hit in lexical(api, f"Ni{invisible}kon")] == [path]
    # The memory itself is kept as it was written.
    assert invisible in api.get(f"/v1/memories/{path}?namespace=notes").json()["body"]


@pytest.fixture
def rocks(notes):
    """8 memories: "pebble" in all of them (1-3 times), "basalt" in m4 and m5 only."""
    write(
        notes,
        {
            f"facts/geo/m{i}-0000000{i}.md": memory(
                cues=[f"rock number {i}"],
                body="pebble " * (1 + i % 3) + ("basalt" if i in (4, 5) else "granite"),
            )
            for i in range(8)
        },
    )
    return notes


def pebble_basalt(namespace, **params) -> list[tuple[str, float]]:
    """The lexical hits of "pebble basalt" with these FusionParams, best first."""
    found = fused_search(
        namespace=namespace,
        query="pebble basalt",
        embedding=None,
        arms=("lexical",),
        params=FusionParams(**params),
    )
    return [(h.path, h.arms["lexical"]["score"]) for h in found.hits]


BASALT = {"facts/geo/m4-00000004.md", "facts/geo/m5-00000005.md"}
DENSEST_PEBBLE = "facts/geo/m2-00000002.md"


def test_a_term_too_common_to_read_in_full_still_scores_the_candidates_exactly(rocks):
    # With only 2 of pebble's postings read per query, the memories found through
    # "basalt" are still scored with their "pebble" too.
    exact = pebble_basalt(rocks)
    cut = pebble_basalt(rocks, lexical_postings=2, lexical_term_postings_min=2, lexical_rescore=4)
    assert {path for path, _ in exact[:2]} == BASALT
    assert cut[:2] == [(path, pytest.approx(score)) for path, score in exact[:2]]
    # Only candidates are ranked: basalt's m4 and m5, and pebble's two strongest
    # postings (m2 and m5, the densest), while exact BM25 ranks all eight.
    assert {path for path, _ in cut} == BASALT | {DENSEST_PEBBLE}
    assert len(exact) == 8


def test_a_commoner_term_reads_fewer_postings_than_the_rarest(rocks):
    # pebble (idf ~0.1) and basalt (idf ~1.1) share a budget of 4 postings by idf^2:
    # pebble's share is under 1, i.e. its floor of 1, so only basalt's memories and
    # pebble's strongest posting are candidates, and the basalt ones still carry their
    # exact pebble share.
    exact = dict(pebble_basalt(rocks))
    assert len(exact) == 8  # the default floor reads a small namespace in full
    budgeted = dict(
        pebble_basalt(
            rocks,
            lexical_postings=4,
            lexical_idf_power=2.0,
            lexical_term_postings_min=1,
            lexical_rescore=8,
        )
    )
    assert set(budgeted) == BASALT | {DENSEST_PEBBLE}
    for path, score in budgeted.items():
        assert score == pytest.approx(exact[path])


@pytest.fixture
def fruit(notes):
    """Banana in two memories only, apple in five; BOTH has both, and is short."""
    write(
        notes,
        {
            BOTH: memory(cues=["note"], body="apple banana"),
            BANANAS: memory(cues=["note"], body="banana banana"),
            **{
                f"facts/fruit/apples{i}-0000001{i}.md": memory(cues=["note"], body="apple apple")
                for i in range(4)
            },
            **{
                f"facts/fruit/other{i}-0000002{i}.md": memory(cues=["note"], body="cherry plum")
                for i in range(4)
            },
        },
    )
    return notes


BOTH = "facts/fruit/both-00000001.md"
BANANAS = "facts/fruit/bananas-00000002.md"


def test_every_posting_carries_its_memorys_term_signature(fruit):
    # Each of a memory's terms has its two bits (from retrieval_term_hash) in the
    # signature of every posting of that memory: a Bloom filter never misses a term.
    with namespace_scope(fruit), connection.cursor() as cursor:
        cursor.execute(
            "SELECT p.document_id, count(DISTINCT (p.sig_a, p.sig_b)),"
            " bool_and(s.sig_a & (1::int8 << (retrieval_term_hash(t.term) & 63)::int) <> 0"
            "      AND s.sig_b & (1::int8 << ((retrieval_term_hash(t.term) >> 6) & 63)::int) <> 0)"
            " FROM retrieval_posting p"
            " JOIN retrieval_posting t ON t.document_id = p.document_id"
            " JOIN LATERAL (SELECT p.sig_a, p.sig_b) s ON true"
            " GROUP BY p.document_id"
        )
        rows = cursor.fetchall()
    assert len(rows) == 10
    assert all(distinct == 1 and has_every_term for _, distinct, has_every_term in rows)


def fruit_search(namespace, **params):
    # hits in BM25's own order: no shared first place for near-equal scores
    params.setdefault("lexical_tie", 0.0)
    found = fused_search(
        namespace=namespace,
        query="apple banana",
        embedding=None,
        arms=("lexical",),
        params=FusionParams(**params),
    )
    return [(h.path, h.arms["lexical"]["score"]) for h in found.hits]


def test_the_term_signature_picks_the_candidate_that_has_the_cut_term(fruit):
    # Two postings per term: apple's two strongest ("apple apple" memories) and both of
    # banana's. Of the memories found, BANANAS has the best share read, but
    # BOTH's signature says it also has apple, whose unread postings may add up to the
    # share of the weakest apple posting read: it is the one candidate rescored, and it
    # is exact BM25's first.
    exact = fruit_search(fruit)
    assert exact[0][0] == BOTH and exact[1][0] == BANANAS
    budget = {"lexical_postings": 2, "lexical_term_postings_min": 2}
    assert fruit_search(fruit, **budget, lexical_rescore=1) == [(BOTH, pytest.approx(exact[0][1]))]
    # A posting written before signatures existed has every bit set (migration 0011):
    # its memory may have any term, and is looked up for each, as before. Then the best
    # share read wins the one place, with its exact score.
    with namespace_scope(fruit), connection.cursor() as cursor:
        cursor.execute("UPDATE retrieval_posting SET sig_a = -1, sig_b = -1")
    assert fruit_search(fruit, **budget, lexical_rescore=1) == [
        (BANANAS, pytest.approx(exact[1][1]))
    ]
