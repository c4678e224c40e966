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


def _concurrently(count: int, attempt) -> list[int]:
    """``attempt(i)`` from ``count`` threads released at once; their status codes."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connection

    start = threading.Barrier(count)

    def run(i: int) -> int:
        try:
            start.wait()
            return attempt(i)
        finally:
            connection.close()  # each thread's own database connection

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(run, range(count)))


def test_concurrent_wrong_passwords_are_counted_exactly_and_none_past_the_limit_is_checked(
    transactional_db,
):
    # 40 wrong passwords at once from 40 addresses: exactly 10 are checked (the form
    # again), the other 30 are 429 without their password being looked at.
    account_signup(account_id="race", username="rita", password=PASSWORD)

    def attempt(i: int) -> int:
        return _login(Client(REMOTE_ADDR=f"10.7.0.{i}"), "rita", f"wrong-{i}").status_code

    codes = _concurrently(40, attempt)
    assert codes.count(200) == 10 and codes.count(429) == 30, codes
    # The right password is refused too until the window ends.
    assert _login(Client(REMOTE_ADDR="10.7.1.1"), "rita", PASSWORD).status_code == 429


def test_concurrent_unknown_api_keys_from_one_address_get_exactly_the_limit_of_401s(
    transactional_db,
):
    from rest_framework.test import APIClient

    def attempt(i: int) -> int:
        client = APIClient(REMOTE_ADDR="10.8.0.1")
        client.credentials(HTTP_AUTHORIZATION=f"Bearer glk_{secrets.token_urlsafe(32)}")
        return client.get("/v1/whoami").status_code

    # One call first, from elsewhere: the response check's schema is then built
    # (drf-spectacular's first build is not thread-safe).
    assert APIClient(REMOTE_ADDR="10.8.9.9").get("/v1/whoami").status_code == 401
    codes = _concurrently(60, attempt)
    assert codes.count(401) == 30 and codes.count(429) == 30, codes


def _key_attempts_until_refused(client, **headers) -> int:
    """How many unknown keys ``client`` sends (with ``headers``) before a 429."""
    for sent in range(1, 40):
        client.credentials(HTTP_AUTHORIZATION=f"Bearer glk_{secrets.token_urlsafe(32)}")
        if client.get("/v1/whoami", **headers).status_code == 429:
            return sent
    return 0


def test_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy(db, settings):
    from rest_framework.test import APIClient

    # No trusted proxies (the default): a client cannot pick its address by header.
    client = APIClient(REMOTE_ADDR="10.20.0.1")
    assert _key_attempts_until_refused(client, HTTP_X_FORWARDED_FOR="192.0.2.1") == 31
    assert _key_attempts_until_refused(client, HTTP_X_FORWARDED_FOR="192.0.2.2") == 1


def test_behind_a_trusted_proxy_each_client_is_counted_by_its_forwarded_address(db, settings):
    from rest_framework.test import APIClient

    settings.GITLOOM_TRUSTED_PROXIES = ["10.30.0.0/24", "2001:db8::1"]
    proxy = APIClient(REMOTE_ADDR="10.30.0.5")
    # Two clients behind the same proxy have their own budgets...
    assert _key_attempts_until_refused(proxy, HTTP_X_FORWARDED_FOR="198.51.100.7") == 31
    assert _key_attempts_until_refused(proxy, HTTP_X_FORWARDED_FOR="198.51.100.8") == 31
    # ...and one cannot escape its own by prepending addresses: the rightmost hop that
    # is not a trusted proxy counts (here behind two proxies, one IPv6).
    spoofed = "203.0.113.9, 198.51.100.7, 10.30.0.9"
    assert _key_attempts_until_refused(proxy, HTTP_X_FORWARDED_FOR=spoofed) == 1
    via_v6 = APIClient(REMOTE_ADDR="2001:db8::1")
    assert _key_attempts_until_refused(via_v6, HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.8") == 1
    # A peer that is not a trusted proxy is counted by its own address, header or not.
    direct = APIClient(REMOTE_ADDR="10.31.0.5")
    assert _key_attempts_until_refused(direct, HTTP_X_FORWARDED_FOR="198.51.100.99") == 31
    assert _key_attempts_until_refused(direct) == 1


@pytest.mark.parametrize("spelling", [" dana", "dana ", "\tdana", "Dana", " DANA\n"])
def test_a_locked_user_stays_locked_under_another_spelling(person, spelling):
    client = Client()
    for _ in range(10):
        assert _login(client, "dana", "wrong-password").status_code == 200
    other = Client(REMOTE_ADDR="10.9.9.8")
    response = _login(other, spelling, PASSWORD)
    assert response.status_code == 429
    assert "_auth_user_id" not in other.session


def test_wrong_passwords_under_other_spellings_count_as_one_identity(person):
    spellings = [" dana", "dana ", "\tdana", "Dana", "dana"]
    for i in range(10):
        client = Client(REMOTE_ADDR=f"10.7.0.{i}")  # spread out: only the user count locks
        assert _login(client, spellings[i % len(spellings)], "wrong-password").status_code == 200
    assert _login(Client(REMOTE_ADDR="10.7.1.1"), "dana", PASSWORD).status_code == 429


def test_the_right_password_with_surrounding_whitespace_signs_in_and_clears_the_count(person):
    client = Client()
    for _ in range(9):
        assert _login(client, "dana", "wrong-password").status_code == 200
    assert _login(client, " dana\t", PASSWORD).status_code == 302
    for _ in range(9):  # the count was cleared: nine more wrong ones are not yet a lock
        assert _login(Client(), "dana", "wrong-password").status_code == 200
    assert _login(Client(), "dana", PASSWORD).status_code == 302


def test_a_gitloom_front_end_names_its_client_only_with_a_fresh_signature(db, settings):
    from django.core import signing
    from rest_framework.test import APIClient

    from gitloom.core.throttle import forwarded_client_header

    # The MCP server on this host names the client it serves: that client is counted.
    front = APIClient(REMOTE_ADDR="127.0.0.1")
    named = {"HTTP_X_GITLOOM_CLIENT": forwarded_client_header("198.51.100.20")["X-GitLoom-Client"]}
    assert _key_attempts_until_refused(front, **named) == 31
    other = {"HTTP_X_GITLOOM_CLIENT": forwarded_client_header("198.51.100.21")["X-GitLoom-Client"]}
    assert _key_attempts_until_refused(front, **other) == 31
    assert _key_attempts_until_refused(APIClient(REMOTE_ADDR="198.51.100.20")) == 1
    # Unsigned, signed with another secret, or from a peer that is neither loopback nor a
    # trusted proxy, the header is ignored: the peer is counted.
    unsigned = {"HTTP_X_GITLOOM_CLIENT": "198.51.100.30"}
    other_secret = signing.TimestampSigner(
        key="another-secret", salt="gitloom.throttle.forwarded-client"
    ).sign("198.51.100.31")
    local = APIClient(REMOTE_ADDR="127.0.0.5")
    assert _key_attempts_until_refused(local, **unsigned) == 31
    assert _key_attempts_until_refused(local, HTTP_X_GITLOOM_CLIENT=other_secret) == 1
    remote = APIClient(REMOTE_ADDR="10.40.0.1")
    assert _key_attempts_until_refused(remote, **named) == 31
    settings.GITLOOM_TRUSTED_PROXIES = ["10.40.0.0/24"]
    assert _key_attempts_until_refused(remote, **named) == 1  # 198.51.100.20's, used up
