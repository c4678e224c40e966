"""The operators' console (Django admin): find things fast and fix them with actions."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import ApiKey
from accounts.services import api_key_create
from memories.services import memory_import
from namespaces.services import namespace_create
from tests.fixtures_browser import *  # noqa: F403
from tests.support.archives import sample_files, tar_gz

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_store")]


@pytest.fixture
def operator(db):
    user = get_user_model().objects.create_superuser(
        username="root", email="ops@example.com", password="operator-pass-77"
    )
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def notes(person):
    namespace = namespace_create(account=person.memberships.get().account, name="notes")
    memory_import(namespace=namespace, data=tar_gz(sample_files()))
    return namespace


def whoami(secret: str) -> int:
    return Client().get("/v1/whoami", HTTP_AUTHORIZATION=f"Bearer {secret}").status_code


def test_namespaces_list_shows_memory_and_job_counts(operator, notes):
    page = operator.get("/admin/namespaces/namespace/")
    assert page.status_code == 200
    row = next(ns for ns in page.context["cl"].result_list if ns.pk == notes.pk)
    assert row.memory_count == 3
    assert row.job_total == 0
    assert '<td class="field-memories">3</td>' in page.text


def test_reindex_action_rebuilds_a_lost_index_from_the_repository(operator, notes, person):
    from django.db import connection

    from retrieval.scope import namespace_scope
    from retrieval.selectors import retrieve

    with namespace_scope(notes), connection.cursor() as cursor:
        # Lose the index (as after a bad restore); the repository still holds everything.
        cursor.execute("DELETE FROM retrieval_document WHERE namespace_id = %s", [notes.pk])
        cursor.execute(
            "UPDATE retrieval_index_state SET doc_count = 0 WHERE namespace_id = %s", [notes.pk]
        )
    assert retrieve(namespace=notes, query="Sony A7III").results == []

    response = operator.post(
        "/admin/namespaces/namespace/",
        {"action": "reindex", "_selected_action": [notes.pk]},
        follow=True,
    )
    assert "Rebuilt the index of 1 namespace(s)." in response.text
    found = retrieve(namespace=notes, query="Sony A7III")
    assert found.results and found.results[0].path.startswith("facts/camera-gear/sony")
    page = operator.get("/admin/namespaces/namespace/")
    assert '<td class="field-memories">3</td>' in page.text


def test_keys_are_found_by_prefix_and_revoked_by_action(operator, person):
    key, secret = api_key_create(account=person.memberships.get().account, name="leaked")
    found = operator.get("/admin/accounts/apikey/", {"q": key.prefix})
    assert [k.pk for k in found.context["cl"].result_list] == [key.pk]
    assert whoami(secret) == 200
    operator.post(
        "/admin/accounts/apikey/", {"action": "revoke", "_selected_action": [key.pk]}, follow=True
    )
    assert ApiKey.objects.get(pk=key.pk).revoked is not None
    assert whoami(secret) == 401


def test_deactivating_an_account_stops_its_keys(operator, person):
    account = person.memberships.get().account
    _, secret = api_key_create(account=account, name="k")
    found = operator.get("/admin/accounts/account/", {"q": "pat"})  # by member username
    assert [a.pk for a in found.context["cl"].result_list] == [account.pk]
    operator.post(
        "/admin/accounts/account/",
        {"action": "deactivate", "_selected_action": [account.pk]},
        follow=True,
    )
    assert whoami(secret) == 401


def _job(person, text: str):
    from memories.services import job_accept
    from namespaces.selectors import namespace_get_for_account

    job, _ = job_accept(
        namespace=namespace_get_for_account(account=person.memberships.get().account, name="notes"),
        messages=[{"role": "user", "content": text, "id": "m1"}],
    )
    return job


def test_jobs_filter_by_status_and_failed_ones_can_be_retried(operator, person, notes, settings):
    from memories.jobs import job_run
    from memories.models import Job

    done = job_run(job=_job(person, "I bought a Fujifilm X100V camera in Tokyo."))
    settings.GITLOOM_LLM_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens there
    settings.GITLOOM_LLM_MODEL = "any"
    settings.GITLOOM_LLM_MAX_RETRIES = 0
    failed = job_run(job=_job(person, "I moved to Lisbon in May."))
    assert (done.status, failed.status) == ("done", "failed")

    listing = operator.get("/admin/memories/job/", {"status__exact": "failed"})
    assert [j.pk for j in listing.context["cl"].result_list] == [failed.pk]
    by_id = operator.get("/admin/memories/job/", {"q": str(failed.public_id)})
    assert [j.pk for j in by_id.context["cl"].result_list] == [failed.pk]
    assert operator.get("/admin/memories/job/", {"q": "not-a-uuid"}).status_code == 200

    response = operator.post(
        "/admin/memories/job/",
        {"action": "retry_failed", "_selected_action": [done.pk, failed.pk]},
        follow=True,
    )
    assert "Queued 1 job(s) again (1 not failed, left alone)." in response.text
    assert Job.objects.get(pk=failed.pk).status == "queued"
    assert Job.objects.get(pk=done.pk).status == "done"


def test_the_admin_is_for_staff_only(page_client):
    response = page_client.get("/admin/memories/job/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


def test_deleting_an_account_deletes_its_memories_and_a_new_owner_of_the_id_starts_empty(
    operator, notes, person, fresh_store
):
    from accounts.models import Account
    from accounts.services import account_create

    account = notes.account
    prefix = notes.storage_prefix
    assert list(fresh_store.list(prefix))  # the repository is in object storage

    page = operator.post(
        f"/admin/accounts/account/{account.pk}/delete/", {"post": "yes"}, follow=True
    )
    assert page.status_code == 200
    assert not Account.objects.filter(pk=account.pk).exists()
    assert not list(fresh_store.list(prefix))  # and now it is not

    # Someone else signs up with the freed id and makes a namespace of the same name.
    newcomer = account_create(account_id=account.pk)
    namespace_create(account=newcomer, name="notes")
    _, secret = api_key_create(account=newcomer, name="k")
    listed = Client().get("/v1/memories?namespace=notes", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert listed.status_code == 200
    assert listed.json()["memories"] == []


def test_a_leftover_repository_never_comes_back_under_a_new_namespace(person, notes, fresh_store):
    from accounts.models import Account
    from accounts.services import account_create

    account_id = notes.account.pk
    Account.objects.filter(pk=account_id).delete()  # a cascade that skips object storage
    newcomer = account_create(account_id=account_id)
    namespace_create(account=newcomer, name="notes")
    _, secret = api_key_create(account=newcomer, name="k")
    listed = Client().get("/v1/memories?namespace=notes", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert listed.json()["memories"] == []
