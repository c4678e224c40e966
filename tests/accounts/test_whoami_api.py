def test_whoami_names_account_and_api_key(api):
    body = api.get("/v1/whoami").json()
    assert body["account"] == "acme"
    assert body["credential"]["type"] == "api_key"
    assert body["credential"]["name"] == "test"
    assert api.secret.startswith(body["credential"]["prefix"])


def test_whoami_with_dashboard_session(dashboard):
    body = dashboard.get("/v1/whoami").json()
    assert body == {"account": "dash", "credential": {"type": "session", "username": "dana"}}


def test_no_credentials_is_401_with_envelope(anon):
    response = anon.get("/v1/whoami")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_unknown_key_is_401(anon, db):
    anon.credentials(HTTP_AUTHORIZATION="Bearer glk_not-a-real-key")
    response = anon.get("/v1/whoami")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"


def test_deactivated_account_keys_stop_working(api, account):
    account.is_active = False
    account.save()
    assert api.get("/v1/whoami").status_code == 401


def test_every_refusal_says_what_is_expected_once(anon, api):
    """A newcomer's first tries: no header, the key without `Bearer`, a wrong key. Each
    is a 401 whose message says what to send, without saying the same thing twice."""
    missing = anon.get("/v1/whoami").json()["error"]
    assert "Authorization: Bearer glk_" in missing["message"]

    anon.credentials(HTTP_AUTHORIZATION=api.secret)  # the key alone
    bare = anon.get("/v1/whoami")
    assert bare.status_code == 401 and bare["WWW-Authenticate"].startswith("Bearer")
    error = bare.json()["error"]
    assert error["code"] == "not_authenticated"
    assert "without its scheme" in error["message"] and "Bearer glk_" in error["message"]

    anon.credentials(HTTP_AUTHORIZATION="Bearer glk_not-a-real-key")
    wrong = anon.get("/v1/whoami").json()["error"]
    sentences = [part.strip() for part in wrong["message"].replace(":", ".").split(".") if part]
    assert len(sentences) == len(set(sentences)), wrong
    assert "revoked" in wrong["message"] and wrong["message"].count("revoked") == 1

    anon.credentials(HTTP_AUTHORIZATION="Basic dXNlcjpwdw==")  # a proxy's: not refused as a key
    assert anon.get("/v1/whoami").json()["error"]["code"] == "not_authenticated"


def test_each_caller_is_told_only_about_itself_in_turn(api, other_api, dashboard):
    """whoami's answer is built by serializers whose fields every request shares
    (gitloom.core.serializers.SharedFields): callers taking turns, keys of two accounts
    and a session, each get their own account and credential, never the last caller's."""
    expected = {
        "key": ("acme", "api_key", api),
        "other": ("globex", "api_key", other_api),
        "session": ("dash", "session", dashboard),
    }
    for name in ["key", "other", "session", "key", "session", "other", "key"]:
        account, kind, client = expected[name]
        body = client.get("/v1/whoami").json()
        assert body["account"] == account and body["credential"]["type"] == kind
        if kind == "api_key":
            assert client.secret.startswith(body["credential"]["prefix"])
            assert set(body["credential"]) == {"type", "name", "prefix"}
        else:
            assert body["credential"] == {"type": "session", "username": "dana"}
