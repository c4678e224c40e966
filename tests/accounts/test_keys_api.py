import hashlib

from accounts.models import ApiKey
from tests.conftest import csrf_token


def _create_key(dashboard, name="ci"):
    token = csrf_token(dashboard)
    return dashboard.post("/v1/keys", {"name": name}, format="json", HTTP_X_CSRFTOKEN=token)


def test_created_key_secret_is_shown_once_and_stored_only_as_hash(dashboard):
    response = _create_key(dashboard)
    assert response.status_code == 201
    secret = response.json()["secret"]
    assert secret.startswith("glk_") and len(secret) > 40
    key = ApiKey.objects.get(pk=response.json()["id"])
    assert key.key_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in {getattr(key, f.attname) for f in ApiKey._meta.fields}
    listed = dashboard.get("/v1/keys").json()["keys"]
    assert [k["name"] for k in listed] == ["ci"]
    assert "secret" not in listed[0]
    assert listed[0]["prefix"] == secret[:12]


def test_new_key_authenticates_and_records_last_use(dashboard, anon):
    secret = _create_key(dashboard).json()["secret"]
    anon.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert anon.get("/v1/whoami").json()["account"] == "dash"
    assert dashboard.get("/v1/keys").json()["keys"][0]["last_used"] is not None


def test_revoked_key_is_refused_on_next_request(dashboard, anon):
    created = _create_key(dashboard).json()
    anon.credentials(HTTP_AUTHORIZATION=f"Bearer {created['secret']}")
    assert anon.get("/v1/whoami").status_code == 200
    token = csrf_token(dashboard)
    revoked = dashboard.delete(f"/v1/keys/{created['id']}", HTTP_X_CSRFTOKEN=token)
    assert revoked.status_code == 200 and revoked.json()["revoked"] is not None
    response = anon.get("/v1/whoami")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "authentication_failed"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_api_keys_cannot_manage_keys(api):
    for response in (
        api.get("/v1/keys"),
        api.post("/v1/keys", {"name": "escape"}, format="json"),
        api.delete("/v1/keys/1"),
    ):
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "dashboard_only"
    assert not ApiKey.objects.filter(name="escape").exists()


def test_session_key_creation_requires_csrf_token(dashboard):
    response = dashboard.post("/v1/keys", {"name": "no-csrf"}, format="json")
    assert response.status_code == 403
    assert "error" in response.json()
    assert not ApiKey.objects.filter(name="no-csrf").exists()


def test_cannot_revoke_another_accounts_key(dashboard, other_account):
    from accounts.services import api_key_create

    theirs, _ = api_key_create(account=other_account, name="theirs")
    token = csrf_token(dashboard)
    response = dashboard.delete(f"/v1/keys/{theirs.id}", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "key_not_found"
    theirs.refresh_from_db()
    assert theirs.revoked is None


def test_key_name_is_validated(dashboard):
    token = csrf_token(dashboard)
    for body in ({}, {"name": ""}, {"name": "x" * 101}, {"name": 5, "extra": 1}):
        response = dashboard.post("/v1/keys", body, format="json", HTTP_X_CSRFTOKEN=token)
        assert response.status_code == 400, body
        assert response.json()["error"]["code"] == "invalid"
    assert dashboard.get("/v1/keys").json()["keys"] == []
