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
