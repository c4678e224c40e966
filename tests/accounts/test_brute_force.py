"""Brute force is throttled: wrong passwords, unknown API keys, sign-ups; success is not."""

import secrets

import pytest
from django.test import Client

from accounts.services import account_signup

PASSWORD = "correct-horse-42"


@pytest.fixture
def person(db):
    return account_signup(account_id="dash", username="dana", password=PASSWORD)


def _login(client, username, password):
    return client.post("/login/", {"username": username, "password": password})


def test_wrong_passwords_then_the_right_one_is_429_with_retry_after(person):
    client = Client()
    for _ in range(10):
        assert _login(client, "dana", "wrong-password").status_code == 200  # the form again
    response = _login(client, "dana", PASSWORD)
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "_auth_user_id" not in client.session
    # Another address cannot try the same user either.
    assert _login(Client(REMOTE_ADDR="10.9.9.9"), "dana", PASSWORD).status_code == 429


def test_one_address_guessing_many_users_is_throttled(db):
    client = Client(REMOTE_ADDR="10.1.2.3")
    for i in range(50):
        assert _login(client, f"user-{i}", "guess").status_code == 200
    assert _login(client, "someone-else", "guess").status_code == 429
    assert _login(Client(REMOTE_ADDR="10.1.2.4"), "someone-else", "guess").status_code == 200


def test_a_few_typos_then_the_right_password_signs_in(person):
    client = Client()
    for _ in range(3):
        _login(client, "dana", "typo")
    assert _login(client, "dana", PASSWORD).status_code == 302
    # Success cleared the count: more typos later start from zero.
    for _ in range(9):
        _login(Client(), "dana", "typo")
    assert _login(Client(), "dana", PASSWORD).status_code == 302


def test_random_api_keys_are_429_with_retry_after_and_valid_keys_still_work(api, anon):
    codes = []
    for _ in range(40):
        anon.credentials(HTTP_AUTHORIZATION=f"Bearer glk_{secrets.token_urlsafe(32)}")
        codes.append(anon.get("/v1/whoami").status_code)
    assert codes[:30] == [401] * 30
    assert set(codes[30:]) == {429}
    anon.credentials(HTTP_AUTHORIZATION=f"Bearer glk_{secrets.token_urlsafe(32)}")
    response = anon.get("/v1/whoami")
    assert response.json()["error"]["code"] == "rate_limited"
    assert int(response["Retry-After"]) > 0
    # A valid key is never counted nor refused, from any address.
    for _ in range(50):
        assert api.get("/v1/whoami").status_code == 200


def test_sign_up_is_rate_limited_per_address(db):
    client = Client(REMOTE_ADDR="10.5.5.5")
    statuses = []
    for i in range(11):
        statuses.append(
            client.post(
                "/signup/",
                {"account_id": f"acct-{i}", "username": f"user{i}", "password": PASSWORD},
            ).status_code
        )
        client.logout()
    assert statuses[:10] == [302] * 10 and statuses[-1] == 429
    # Probing for taken names costs the same budget.
    probe = Client(REMOTE_ADDR="10.5.5.6")
    taken = [
        probe.post(
            "/signup/", {"account_id": "acct-0", "username": "user0", "password": PASSWORD}
        ).status_code
        for _ in range(11)
    ]
    assert taken[:10] == [400] * 10 and taken[-1] == 429
