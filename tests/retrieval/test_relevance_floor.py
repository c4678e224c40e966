"""GET /v1/retrieve's relevance floor (min_similarity) and graph-only results (issue 12, 6)."""

from __future__ import annotations

from tests.retrieval.helpers import memory, write

CAMERA = "facts/camera/sony-a7iii-11111111.md"
LENS = "facts/camera/kit-lens-22222222.md"
RECIPE = "facts/cooking/lasagne-33333333.md"


def _files():
    return {
        CAMERA: memory(
            cues=["what camera do I own", "Sony A7III purchase"],
            body="Bought a Sony A7III from Fotocentre.",
            related={LENS: "same-purchase"},
        ),
        LENS: memory(cues=["which kit lens came with it"], body="It came with a 28-70 zoom."),
        RECIPE: memory(cues=["how do I make lasagne"], body="Lasagne: bake 45 minutes."),
    }


def _get(api, **params):
    response = api.get("/v1/retrieve", {"namespace": "notes", **params})
    assert response.status_code == 200, response.json()
    return response.json()["results"]


def test_without_a_floor_every_query_returns_up_to_limit_results(api, notes):
    write(notes, _files())
    assert len(_get(api, query="what camera do I own", arms="semantic")) == 3


def test_a_floor_drops_weak_semantic_matches(api, notes):
    write(notes, _files())
    results = _get(api, query="what camera do I own", arms="semantic", min_similarity="0.6")
    assert [r["path"] for r in results] == [CAMERA]
    assert all(r["arms"]["semantic"]["similarity"] >= 0.6 for r in results)
    assert _get(api, query="quantum chromodynamics lecture", min_similarity="0.6") == []


def test_results_only_the_graph_arm_brought_say_so(api, notes):
    write(notes, _files())
    results = {r["path"]: r for r in _get(api, query="what camera do I own", min_similarity="0.6")}
    assert results[CAMERA]["graph_only"] is False
    assert results[LENS]["graph_only"] is True and list(results[LENS]["arms"]) == ["graph"]
    assert RECIPE not in results


def test_a_floor_outside_minus_one_to_one_is_400(api, notes):
    for bad in ("1.5", "-2", "high"):
        response = api.get(
            "/v1/retrieve", {"namespace": "notes", "query": "x", "min_similarity": bad}
        )
        assert response.status_code == 400, response.json()
