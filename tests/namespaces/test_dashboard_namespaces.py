"""Namespace pages: create, list, view, delete with a typed confirmation, and the rule
that a session can never see or change another account's namespace."""

from __future__ import annotations

import re

import pytest

from namespaces.models import Namespace
from namespaces.services import namespace_create
from tests.fixtures_browser import *  # noqa: F403
from tests.fixtures_browser import csrf_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_store")]


def account_of(user):
    return user.memberships.get().account


def test_creating_a_namespace_from_the_page_opens_it_and_lists_it(page_client):
    response = csrf_post(page_client, "/namespaces/", {"name": "user-8213"})
    assert response.status_code == 302
    assert response["Location"] == "/namespaces/user-8213/"
    opened = page_client.get(response["Location"])
    assert opened.status_code == 200
    assert "Created namespace “user-8213”" in opened.text
    listing = page_client.get("/namespaces/")
    assert 'href="/namespaces/user-8213/"' in listing.text


@pytest.mark.parametrize("name", ["UPPER", "has space", "a/b", "a#b", "../x", "dot.ted"])
def test_a_bad_namespace_name_gets_the_services_message(page_client, name):
    response = csrf_post(page_client, "/namespaces/", {"name": name})
    assert response.status_code == 400
    assert "Invalid namespace name: use 1-64 characters of a-z, 0-9 and" in response.text
    assert not Namespace.objects.exists()


def test_a_duplicate_namespace_name_is_explained(page_client):
    assert csrf_post(page_client, "/namespaces/", {"name": "dup"}).status_code == 302
    response = csrf_post(page_client, "/namespaces/", {"name": "dup"})
    assert response.status_code == 400
    assert "A namespace with that name already exists." in response.text


def test_the_list_shows_only_the_persons_own_namespaces(page_client, person, other_person):
    namespace_create(account=account_of(person), name="mine")
    namespace_create(account=account_of(other_person), name="theirs-only")
    listing = page_client.get("/namespaces/")
    assert "mine" in listing.text
    assert "theirs-only" not in listing.text


def test_another_accounts_namespace_is_a_404_page_on_every_route(page_client, other_person):
    namespace_create(account=account_of(other_person), name="secret")
    for url in ("/namespaces/secret/", "/namespaces/secret/delete/"):
        response = page_client.get(url)
        assert response.status_code == 404, url
        assert "Namespace not found." in response.text
    response = csrf_post(
        page_client, "/namespaces/secret/delete/", {"confirm": "secret"}, page="/namespaces/"
    )
    assert response.status_code == 404
    assert Namespace.objects.filter(name="secret").exists()


def test_a_missing_namespace_looks_exactly_like_someone_elses(page_client, other_person):
    namespace_create(account=account_of(other_person), name="secret")
    theirs = page_client.get("/namespaces/secret/")
    missing = page_client.get("/namespaces/nothing-here/")
    assert theirs.status_code == missing.status_code == 404
    # Byte-for-byte the same page, once the per-response CSRF mask is set aside.
    unmask = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')
    assert unmask.sub("", theirs.text) == unmask.sub("", missing.text)


def test_a_name_outside_the_charset_in_the_url_is_a_404_not_an_error(page_client):
    for url in ("/namespaces/UPPER/", "/namespaces/a%23b/", "/namespaces/..%2F/"):
        assert page_client.get(url).status_code == 404


def test_deleting_needs_the_exact_name_typed(page_client, person):
    namespace_create(account=account_of(person), name="old-user")
    page = page_client.get("/namespaces/old-user/delete/")
    assert page.status_code == 200
    assert 'data-confirm-value="old-user"' in page.text

    wrong = csrf_post(page_client, "/namespaces/old-user/delete/", {"confirm": "old"})
    assert wrong.status_code == 400
    assert "Type “old-user” exactly" in wrong.text
    assert Namespace.objects.filter(name="old-user").exists()

    right = csrf_post(page_client, "/namespaces/old-user/delete/", {"confirm": "old-user"})
    assert right.status_code == 302
    assert right["Location"] == "/namespaces/"
    assert not Namespace.objects.filter(name="old-user").exists()
    assert page_client.get("/namespaces/old-user/").status_code == 404


def test_delete_without_the_csrf_token_is_refused(page_client, person):
    namespace_create(account=account_of(person), name="keep-me")
    response = page_client.post("/namespaces/keep-me/delete/", {"confirm": "keep-me"})
    assert response.status_code == 403
    assert Namespace.objects.filter(name="keep-me").exists()


def test_a_namespace_created_on_the_page_is_reachable_by_the_api(page_client, person):
    from django.test import Client

    from accounts.services import api_key_create

    csrf_post(page_client, "/namespaces/", {"name": "shared"})
    _, secret = api_key_create(account=account_of(person), name="k")
    response = Client().get("/v1/namespaces/shared", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200
    assert response.json()["name"] == "shared"


def test_the_namespace_list_pages_on(page_client, person, monkeypatch):
    from namespaces import views

    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    for name in ("a-one", "b-two", "c-three"):
        namespace_create(account=account_of(person), name=name)
    first = page_client.get("/namespaces/")
    assert [ns.name for ns in first.context["namespaces"]] == ["a-one", "b-two"]
    assert "Page 1 of 2" in first.text
    second = page_client.get("/namespaces/", {"page": 2})
    assert [ns.name for ns in second.context["namespaces"]] == ["c-three"]
    assert page_client.get("/namespaces/", {"page": "junk"}).status_code == 200


def test_the_namespace_list_shows_each_memory_count(page_client, person):
    from memories.services import memory_import
    from tests.support.archives import sample_files, tar_gz

    full = namespace_create(account=account_of(person), name="full")
    namespace_create(account=account_of(person), name="empty")
    memory_import(namespace=full, data=tar_gz(sample_files()))
    listing = page_client.get("/namespaces/")
    counts = {ns.name: ns.memory_count for ns in listing.context["namespaces"]}
    assert counts == {"empty": 0, "full": 3}
