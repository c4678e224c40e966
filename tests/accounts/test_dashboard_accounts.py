"""Dashboard pages for signing up, logging in and managing API keys, through Django's
test client with CSRF checks on (as a browser meets them)."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Account, ApiKey
from accounts.services import api_key_create
from tests.fixtures_browser import *  # noqa: F403
from tests.fixtures_browser import PASSWORD, csrf_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_store")]


def whoami(secret: str):
    return Client().get("/v1/whoami", HTTP_AUTHORIZATION=f"Bearer {secret}")


def test_signup_creates_the_account_and_signs_the_person_in():
    client = Client(enforce_csrf_checks=True)
    response = csrf_post(
        client,
        "/signup/",
        {"account_id": "new-co", "username": "nina", "password": "tangerine-kite-77"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    home = client.get("/")
    assert home.status_code == 200
    assert "new-co" in home.text
    assert "nina" in home.text
    assert Account.objects.filter(id="new-co").exists()


@pytest.mark.parametrize("account_id", ["Upper", "has space", "a/b", "a#b", "x" * 65])
def test_signup_refuses_an_account_id_outside_the_slug_charset(account_id):
    client = Client(enforce_csrf_checks=True)
    response = csrf_post(
        client,
        "/signup/",
        {"account_id": account_id, "username": "nina", "password": "tangerine-kite-77"},
    )
    assert response.status_code == 400
    assert "lowercase letters a-z" in response.text or "at most 64" in response.text
    assert not Account.objects.exists()


def test_signup_shows_the_services_message_when_the_account_id_is_taken(person):
    client = Client(enforce_csrf_checks=True)
    response = csrf_post(
        client,
        "/signup/",
        {"account_id": "pats-co", "username": "someone", "password": "tangerine-kite-77"},
    )
    assert response.status_code == 400
    assert "An account with that id already exists." in response.text
    assert "Traceback" not in response.text


def test_signup_refuses_a_common_password_with_a_readable_reason():
    client = Client(enforce_csrf_checks=True)
    response = csrf_post(
        client, "/signup/", {"account_id": "new-co", "username": "nina", "password": "password123"}
    )
    assert response.status_code == 400
    assert "too common" in response.text
    assert not Account.objects.filter(id="new-co").exists()


def test_login_with_the_right_password_reaches_the_account_page(person):
    client = Client(enforce_csrf_checks=True)
    response = csrf_post(client, "/login/", {"username": "pat", "password": PASSWORD})
    assert response.status_code == 302
    assert "pats-co" in client.get("/").text


def test_login_with_a_wrong_password_says_so_in_words(person):
    client = Client(enforce_csrf_checks=True)
    response = csrf_post(client, "/login/", {"username": "pat", "password": "not-it-at-all"})
    assert response.status_code == 200
    assert "username and password do not match" in response.text
    assert client.get("/").status_code == 302  # still signed out


@pytest.mark.parametrize(
    "url", ["/", "/keys/", "/namespaces/", "/namespaces/x/", "/keys/1/revoke/"]
)
def test_dashboard_pages_send_a_signed_out_visitor_to_log_in(url):
    response = Client().get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=")


def test_log_out_ends_the_session(page_client):
    assert page_client.get("/").status_code == 200
    response = csrf_post(page_client, "/logout/", page="/")
    assert response.status_code == 302
    assert page_client.get("/").status_code == 302


def test_a_user_without_an_account_gets_an_explanation_not_a_crash(db):
    from django.contrib.auth import get_user_model

    loner = get_user_model().objects.create_user(username="loner", password=PASSWORD)
    client = Client()
    client.force_login(loner)
    response = client.get("/keys/")
    assert response.status_code == 403
    assert "belongs to no active account" in response.text


def test_a_new_key_secret_is_shown_once_and_works_against_the_api(page_client):
    response = csrf_post(page_client, "/keys/", {"name": "chat app"})
    assert response.status_code == 201
    assert "no-store" in response["Cache-Control"]
    secret = response.context["secret"]
    assert secret.startswith("glk_")
    assert secret in response.text
    assert "only time" in response.text
    assert 'data-copy-target="new-key-secret"' in response.text

    again = page_client.get("/keys/")
    assert secret not in again.text
    assert "chat app" in again.text
    assert secret[:12] in again.text  # listed by its prefix

    me = whoami(secret)
    assert me.status_code == 200
    assert me.json()["account"] == "pats-co"


def test_a_blank_key_name_is_refused_with_a_message(page_client):
    response = csrf_post(page_client, "/keys/", {"name": "   "})
    assert response.status_code == 400
    assert "errors" in response.text
    assert not ApiKey.objects.exists()


def test_revoking_a_key_asks_first_then_the_api_refuses_it(page_client, person):
    account = person.memberships.get().account
    key, secret = api_key_create(account=account, name="old laptop")
    assert whoami(secret).status_code == 200

    confirm = page_client.get(f"/keys/{key.id}/revoke/")
    assert confirm.status_code == 200
    assert "cannot be undone" in confirm.text
    assert whoami(secret).status_code == 200  # looking at the page changes nothing

    response = csrf_post(page_client, f"/keys/{key.id}/revoke/")
    assert response.status_code == 302
    listing = page_client.get("/keys/")
    assert "Revoked “old laptop”" in listing.text
    assert "revoked" in listing.text

    refused = whoami(secret)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "authentication_failed"


def test_another_accounts_key_cannot_be_seen_or_revoked(page_client, other_person):
    theirs, secret = api_key_create(account=other_person.memberships.get().account, name="theirs")
    assert page_client.get(f"/keys/{theirs.id}/revoke/").status_code == 404
    response = csrf_post(page_client, f"/keys/{theirs.id}/revoke/", page="/keys/")
    assert response.status_code == 404
    assert "API key not found." in response.text
    assert "theirs" not in page_client.get("/keys/").text
    assert whoami(secret).status_code == 200


@pytest.mark.parametrize(
    ("url", "data"),
    [
        ("/keys/", {"name": "sneaky"}),
        ("/namespaces/", {"name": "sneaky"}),
        ("/logout/", {}),
    ],
)
def test_a_post_without_the_csrf_token_is_refused(page_client, url, data):
    response = page_client.post(url, data)
    assert response.status_code == 403
    assert "security token" in response.text
    assert not ApiKey.objects.filter(name="sneaky").exists()
    assert page_client.get("/").status_code == 200  # logout did not happen either


def test_revoke_without_the_csrf_token_is_refused(page_client, person):
    key, secret = api_key_create(account=person.memberships.get().account, name="keep")
    assert page_client.post(f"/keys/{key.id}/revoke/").status_code == 403
    assert whoami(secret).status_code == 200


def test_signup_and_login_without_the_csrf_token_are_refused(person):
    client = Client(enforce_csrf_checks=True)
    body = {"account_id": "x-co", "username": "x", "password": "tangerine-kite-77"}
    assert client.post("/signup/", body).status_code == 403
    assert client.post("/login/", {"username": "pat", "password": PASSWORD}).status_code == 403
    assert not Account.objects.filter(id="x-co").exists()


def test_a_person_without_an_account_is_told_what_to_do_and_an_operator_gets_the_admin(db):
    from django.contrib.auth import get_user_model
    from django.test import Client

    users = get_user_model().objects
    loner, operator = Client(), Client()
    loner.force_login(users.create_user("loner", password="correct-horse-42"))
    page = loner.get("/namespaces/")
    assert page.status_code == 403 and "belongs to no active account" in page.text
    # No links back to the account's own pages, which would answer this again.
    assert 'href="/namespaces/"' not in page.text.split("<main", 1)[1]
    assert "Log out" in page.text and "sign up" in page.text
    operator.force_login(users.create_superuser("root", password="correct-horse-42"))
    sent = operator.get("/namespaces/")
    assert sent.status_code == 302 and sent["Location"] == "/admin/"


@pytest.mark.parametrize(
    ("username", "says"),
    [
        ("pat\u200b", "invisible"),  # zero-width space
        ("pat\u00ad", "invisible"),  # soft hyphen
        ("p\u2060at", "invisible"),  # word joiner
        ("ＰＡＴ", "That username is taken."),  # fullwidth: PAT once NFKC-normalised
        ("PAT", "That username is taken."),
    ],
)
def test_signup_refuses_a_username_that_only_looks_different(person, username, says):
    client = Client(enforce_csrf_checks=True)
    response = csrf_post(
        client,
        "/signup/",
        {"account_id": "look-alike", "username": username, "password": "tangerine-kite-77"},
    )
    assert response.status_code == 400
    assert says in response.text
    assert not Account.objects.filter(id="look-alike").exists()


def test_a_fullwidth_username_is_stored_as_sign_in_reads_it_and_signs_in_either_way():
    client = Client(enforce_csrf_checks=True)
    response = csrf_post(
        client,
        "/signup/",
        {"account_id": "wide-co", "username": "ＤＡＶＥ", "password": "tangerine-kite-77"},
    )
    assert response.status_code == 302
    for typed in ("ＤＡＶＥ", "DAVE"):
        again = Client(enforce_csrf_checks=True)
        answer = csrf_post(again, "/login/", {"username": typed, "password": "tangerine-kite-77"})
        assert answer.status_code == 302, typed
