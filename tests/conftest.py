"""Shared fixtures. Every service a test needs is real and started here, once per session:
the embedded Postgres (via settings, under the throwaway GITLOOM_DATA_DIR that
``tests/data_dir.py`` sets before settings load), a local object
store, the S3 server, the scripted model server and the embedder."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# The Python client under test is this tree's own: the venv's editable install of it may
# point at another checkout of the project.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients" / "python" / "src"))

from tests.fixtures_storage import (  # noqa: F401
    fake_aws_env,
    local_store,
    moto_server,
    object_store,
    s3_store,
)


@pytest.fixture(autouse=True, scope="session")
def fast_password_hashing():
    """Passwords hashed in the test process take 1,000 PBKDF2 rounds, not a million
    (tests/support/hashers.py); processes the tests start keep the real setting."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["tests.support.hashers.FastPBKDF2PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def fresh_object_store(tmp_path):
    """Each test gets an empty object store, as each test gets an empty database."""
    from namespaces.storage import LocalObjectStore, using_object_store

    store = LocalObjectStore(tmp_path / "objects", cache_dir=tmp_path / "cache")
    with using_object_store(store):
        yield store


@pytest.fixture(autouse=True)
def responses_match_the_schema(monkeypatch):
    """Every /v1/ response a test receives is checked against the OpenAPI schema (its
    status, content type and body): tests/support/openapi.py."""
    from django.test import Client

    from tests.support.openapi import check_response

    send = Client.request

    def request(self, **kwargs):
        response = send(self, **kwargs)
        check_response(response)
        return response

    monkeypatch.setattr(Client, "request", request)


@pytest.fixture
def account(db):
    from accounts.services import account_create

    return account_create(account_id="acme")


@pytest.fixture
def other_account(db):
    from accounts.services import account_create

    return account_create(account_id="globex")


def _key_client(account, name="test"):
    from rest_framework.test import APIClient

    from accounts.services import api_key_create

    _, secret = api_key_create(account=account, name=name)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret}")
    client.secret = secret
    return client


@pytest.fixture
def api(account):
    """An API client authenticated with an API key of the `acme` account."""
    return _key_client(account)


@pytest.fixture
def other_api(other_account):
    return _key_client(other_account)


@pytest.fixture
def anon():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def dashboard(db):
    """A logged-in dashboard session (CSRF enforced) of a freshly signed-up account."""
    from rest_framework.test import APIClient

    from accounts.services import account_signup

    user = account_signup(account_id="dash", username="dana", password="correct-horse-42")
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def csrf_token(client) -> str:
    """Fetch a CSRF token the way a browser page would get one."""
    response = client.get("/login/")
    return response.cookies["csrftoken"].value


@pytest.fixture
def serve_dir():
    """The served data directory, outside pytest's temporary root: a concurrent pytest
    session closes that root's permissions as it starts, and the embedded Postgres runs
    as its own user, which then could not reach its data (as the suite's own data
    directory, tests/data_dir.py)."""
    path = Path(tempfile.mkdtemp(prefix="gitloom-readyz-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)
