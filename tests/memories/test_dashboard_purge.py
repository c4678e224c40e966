"""Purging from the dashboard: behind a typed confirmation, POST with CSRF, on the
memory's page (and its history, for a forgotten memory) and on the namespace's data
page."""

from __future__ import annotations

import pytest

from memories.selectors import memory_list
from namespaces.services import namespace_create
from tests.fixtures_browser import *  # noqa: F403
from tests.fixtures_browser import csrf_post
from tests.support.archives import CAMERA, LENS, TRIP, sample_files, tar_gz

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_store")]


def account_of(user):
    return user.memberships.get().account


@pytest.fixture
def notes(person):
    from memories.services import memory_import

    namespace = namespace_create(account=account_of(person), name="notes")
    memory_import(namespace=namespace, data=tar_gz(sample_files()))
    return namespace


def paths(namespace) -> set[str]:
    return {item.path for item in memory_list(namespace=namespace).items}


def test_the_memory_page_leads_to_a_purge_that_wants_the_path_typed(page_client, notes):
    from namespaces.models import Purge

    page = page_client.get(f"/namespaces/notes/memories/{CAMERA}")
    assert f'href="/namespaces/notes/purge/{CAMERA}"' in page.text
    confirm = page_client.get(f"/namespaces/notes/purge/{CAMERA}")
    assert confirm.status_code == 200
    assert "all 1 version of this memory" in confirm.text

    wrong = csrf_post(page_client, f"/namespaces/notes/purge/{CAMERA}", {"confirm": "yes"})
    assert wrong.status_code == 400 and "exactly to purge" in wrong.text
    assert CAMERA in paths(notes) and not Purge.objects.exists()
    refused = page_client.post(f"/namespaces/notes/purge/{CAMERA}", {"confirm": CAMERA})
    assert refused.status_code == 403  # no CSRF token
    assert CAMERA in paths(notes)

    done = csrf_post(page_client, f"/namespaces/notes/purge/{CAMERA}", {"confirm": CAMERA})
    assert done.status_code == 302 and done["Location"] == "/namespaces/notes/"
    assert "1 version(s) erased" in page_client.get("/namespaces/notes/").text
    assert paths(notes) == {LENS, TRIP}
    assert page_client.get(f"/namespaces/notes/history/{CAMERA}").status_code == 404
    assert Purge.objects.get().credential == "session pat"


def test_a_forgotten_memory_is_purged_from_its_history_page(page_client, notes):
    from memories.services import memory_delete

    memory_delete(namespace=notes, path=TRIP)
    history = page_client.get(f"/namespaces/notes/history/{TRIP}")
    assert f'href="/namespaces/notes/purge/{TRIP}"' in history.text
    assert "already forgotten" in page_client.get(f"/namespaces/notes/purge/{TRIP}").text
    done = csrf_post(page_client, f"/namespaces/notes/purge/{TRIP}", {"confirm": TRIP})
    assert done.status_code == 302
    assert page_client.get(f"/namespaces/notes/history/{TRIP}").status_code == 404


def test_the_purge_tab_purges_a_text_typed_twice(page_client, notes):
    """Purging has its own tab: it is not an export or an import (issue 29)."""
    data = page_client.get("/namespaces/notes/data/").text
    assert "Purge everything about" not in data and 'href="/namespaces/notes/purge/"' in data
    url = "/namespaces/notes/purge/"
    page = page_client.get(url)
    assert page.status_code == 200 and "Purge everything about" in page.text
    assert '<a href="/namespaces/notes/purge/" aria-current="page">Purge</a>' in page.text
    mismatch = csrf_post(page_client, url, {"match": "Lisbon", "confirm": "lisbon!"})
    assert mismatch.status_code == 400 and "Type the same text exactly" in mismatch.text
    short = csrf_post(page_client, url, {"match": "ab", "confirm": "ab"})
    assert short.status_code == 400 and "3 to 200 characters" in short.text
    assert TRIP in paths(notes)

    done = csrf_post(page_client, url, {"match": "Lisbon", "confirm": "Lisbon"})
    assert done.status_code == 302 and done["Location"] == url
    assert "Purged 1 version(s) of 1 file(s)" in page_client.get(url).text
    assert paths(notes) == {CAMERA, LENS}
    # The form's old address still works.
    nothing = csrf_post(
        page_client,
        "/namespaces/notes/data/purge/",
        {"match": "Lisbon", "confirm": "Lisbon"},
        page=url,
    )
    assert nothing.status_code == 302
    assert "nothing changed" in page_client.get(url).text


def test_another_accounts_namespace_cannot_be_purged(page_client, other_person):
    from memories.services import memory_import

    theirs = namespace_create(account=account_of(other_person), name="notes")
    memory_import(namespace=theirs, data=tar_gz(sample_files()))
    assert page_client.get(f"/namespaces/notes/purge/{CAMERA}").status_code == 404
    one = csrf_post(
        page_client, f"/namespaces/notes/purge/{CAMERA}", {"confirm": CAMERA}, page="/namespaces/"
    )
    every = csrf_post(
        page_client,
        "/namespaces/notes/data/purge/",
        {"match": "Sony", "confirm": "Sony"},
        page="/namespaces/",
    )
    assert one.status_code == every.status_code == 404
    assert paths(theirs) == set(sample_files())
