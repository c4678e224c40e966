"""The retrieval playground: the same retrieve() as /v1/retrieve, through the page."""

from __future__ import annotations

import pytest

from memories.services import memory_import
from namespaces.services import namespace_create
from tests.fixtures_browser import *  # noqa: F403
from tests.support.archives import CAMERA, LENS, sample_files, tar_gz

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_store")]


@pytest.fixture
def notes(person):
    namespace = namespace_create(account=person.memberships.get().account, name="notes")
    memory_import(namespace=namespace, data=tar_gz(sample_files()))
    return namespace


def test_the_first_visit_shows_the_form_with_every_arm_ticked(page_client, notes):
    page = page_client.get("/namespaces/notes/retrieve/")
    assert page.status_code == 200
    assert page.context["found"] is None
    for arm in ("lexical", "semantic", "graph"):
        assert f'value="{arm}"' in page.text
    assert page.text.count("checked") >= 3


def test_a_query_shows_results_with_scores_arms_ranks_and_time(page_client, notes):
    page = page_client.get(
        "/namespaces/notes/retrieve/",
        {"query": "Sony A7III camera", "limit": 5, "arms": ["lexical", "semantic", "graph"]},
    )
    assert page.status_code == 200
    found = page.context["found"]
    assert found.results and found.results[0].path == CAMERA
    assert f"{found.took_ms} ms" in page.text
    assert f'href="/namespaces/notes/memories/{CAMERA}"' in page.text
    first = found.results[0]
    assert f"lexical #{first.arms['lexical']['rank']}" in page.text
    assert "semantic #" in page.text
    assert "Bought a Sony A7III" in page.text


def test_the_graph_arm_shows_which_link_it_followed(page_client, notes):
    page = page_client.get(
        "/namespaces/notes/retrieve/",
        {"query": "Fotocentre Bengaluru", "limit": 5, "arms": ["lexical", "graph"]},
    )
    paths = [hit.path for hit in page.context["found"].results]
    assert paths[0] == CAMERA
    assert LENS in paths
    assert "graph #" in page.text
    assert "same-purchase" in page.text


def test_filters_narrow_the_results(page_client, notes):
    page = page_client.get(
        "/namespaces/notes/retrieve/",
        {"query": "Lisbon hotel camera", "tier": ["events"], "arms": ["lexical", "semantic"]},
    )
    assert {hit.memory.tier for hit in page.context["found"].results} == {"events"}


def test_the_selectors_refusals_are_shown_as_sentences(page_client, notes):
    blank = page_client.get("/namespaces/notes/retrieve/", {"query": "   "})
    assert blank.status_code == 400
    assert "errors" in blank.text
    graph_only = page_client.get(
        "/namespaces/notes/retrieve/", {"query": "camera", "arms": ["graph"]}
    )
    assert graph_only.status_code == 400
    assert "Choose lexical and/or semantic" in graph_only.text
    no_arms = page_client.get("/namespaces/notes/retrieve/", {"query": "camera"})
    assert no_arms.status_code == 400
    too_many = page_client.get("/namespaces/notes/retrieve/", {"query": "camera", "limit": 1000})
    assert too_many.status_code == 400
    assert "Traceback" not in too_many.text


def test_the_playground_sees_what_the_accounts_api_key_sees(page_client, person, notes):
    from django.test import Client

    from accounts.services import api_key_create

    _, secret = api_key_create(account=person.memberships.get().account, name="k")
    api = (
        Client()
        .get(
            "/v1/retrieve",
            {"query": "which lens came with the Sony", "namespace": "notes", "limit": 3},
            HTTP_AUTHORIZATION=f"Bearer {secret}",
        )
        .json()
    )
    page = page_client.get(
        "/namespaces/notes/retrieve/",
        {
            "query": "which lens came with the Sony",
            "limit": 3,
            "arms": ["lexical", "semantic", "graph"],
        },
    )
    assert [hit.path for hit in page.context["found"].results] == [
        result["path"] for result in api["results"]
    ]


def test_as_of_shows_the_memory_as_it_was_at_a_past_commit(page_client, notes):
    from memories.services import memory_delete
    from namespaces.repository import repository_head

    first = repository_head(prefix=notes.storage_prefix)
    memory_delete(namespace=notes, path=CAMERA)
    query = {"query": "Sony A7III camera", "limit": 5, "arms": ["lexical", "semantic", "graph"]}
    now = page_client.get("/namespaces/notes/retrieve/", query)
    assert CAMERA not in [hit.path for hit in now.context["found"].results]
    page = page_client.get("/namespaces/notes/retrieve/", {**query, "as_of": first[:8]})
    assert page.status_code == 200
    found = page.context["found"]
    assert found.as_of.commit == first and found.results[0].path == CAMERA
    assert "As of</strong> commit" in page.text and "Bought a Sony A7III" in page.text
    # The memory is forgotten since: its result links to its history, which has the
    # version shown, not to its page at the head (a 404 now).
    history = f"/namespaces/notes/history/{CAMERA}"
    assert f'href="{history}"' in page.text
    assert f'href="/namespaces/notes/memories/{CAMERA}"' not in page.text
    assert page_client.get(history).status_code == 200
    bad = page_client.get("/namespaces/notes/retrieve/", {**query, "as_of": "last tuesday"})
    assert bad.status_code == 400
    assert bad.context["form"].errors["as_of"][0].startswith("as_of must be a commit id")
    offset = {**query, "as_of": "2026-01-01T00:00:00+16:00"}  # past Postgres's +-15:59
    bad = page_client.get("/namespaces/notes/retrieve/", offset)
    assert bad.status_code == 400
    assert bad.context["form"].errors["as_of"][0].startswith("as_of must be a commit id")
    early = page_client.get("/namespaces/notes/retrieve/", {**query, "as_of": "2001-01-01"})
    assert early.status_code == 400 and "is before this namespace" in early.text
