"""`manage.py add_member`: an account made with `create_account` gets a person who can
sign in to its dashboard."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from tests.fixtures_browser import *  # noqa: F403
from tests.fixtures_browser import PASSWORD, csrf_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_store")]


def add_member(*args: str, stdin: str = "") -> str:
    out = io.StringIO()
    call_command("add_member", *args, stdin=io.StringIO(stdin), stdout=out)
    return out.getvalue()


def log_in(username: str, password: str):
    client = Client(enforce_csrf_checks=True)
    response = csrf_post(client, "/login/", {"username": username, "password": password})
    return client, response


def test_a_person_added_to_a_cli_account_signs_in_and_sees_its_dashboard():
    call_command("create_account", "acme", stdout=io.StringIO())

    said = add_member("acme", "dana", "--password-stdin", stdin=PASSWORD + "\n")

    assert "Created user dana, owner of acme." in said
    client, response = log_in("dana", PASSWORD)
    assert response.status_code == 302 and response["Location"] == "/"
    home = client.get("/")
    assert home.status_code == 200
    assert "acme" in home.text and "dana" in home.text
    assert client.get("/keys/").status_code == 200


def test_an_existing_user_keeps_their_password_and_gains_the_account(person):
    call_command("create_account", "acme", stdout=io.StringIO())

    said = add_member("acme", "pat", "--role", "member", stdin="never read\n")

    assert "their password is unchanged" in said
    assert person.memberships.filter(account_id="acme", role="member").exists()
    _, response = log_in("pat", PASSWORD)
    assert response.status_code == 302


@pytest.mark.parametrize(
    ("args", "stdin", "says"),
    [
        (("nowhere", "dana", "--password-stdin"), PASSWORD, "Account not found."),
        (("acme", "dana", "--password-stdin"), "\n", "empty line"),
        (("acme", "dana", "--password-stdin"), "12345678\n", "too common"),
        (("acme", "dana"), "", "pass --password-stdin"),
        (("acme", "not a name!", "--password-stdin"), PASSWORD, "Enter a valid username"),
        (("acme", "dana\u200b", "--password-stdin"), PASSWORD, "invisible"),
        (("acme", "dana\u00ad", "--password-stdin"), PASSWORD, "invisible"),
    ],
)
def test_refusals_say_why_and_add_no_one(args, stdin, says):
    from django.contrib.auth import get_user_model

    call_command("create_account", "acme", stdout=io.StringIO())
    with pytest.raises(CommandError, match=says):
        add_member(*args, stdin=stdin)
    assert not get_user_model().objects.exists()


def test_adding_the_same_person_twice_is_refused(person):
    with pytest.raises(CommandError, match="already a member"):
        add_member("pats-co", "pat")
    with pytest.raises(CommandError, match="username is taken"):
        add_member("pats-co", "PAT", "--password-stdin", stdin=PASSWORD)


def test_a_name_that_only_looks_like_an_existing_users_is_refused(person):
    call_command("create_account", "acme", stdout=io.StringIO())
    with pytest.raises(CommandError, match="taken"):
        add_member("acme", "ＰＡＴ", "--password-stdin", stdin=PASSWORD + "\n")
    assert not person.memberships.filter(account_id="acme").exists()
