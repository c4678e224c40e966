"""POST /v1/jobs/<id>/revert end to end: jobs run inline through the offline extractor,
the revert is read back through the API (memories, history, retrieval), on the local
object store and on S3 over HTTP."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support.archives import memory_bytes, tar_gz


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    return "default"


@pytest.fixture
def ingest(settings, django_capture_on_commit_callbacks, api, ns):
    """Post user messages as one session and run its job inline; returns the done job."""
    settings.GITLOOM_QUEUE_SYNC = True
    sessions = iter(range(1000))

    def post(*texts: str, client=None) -> dict:
        client = client or api
        n = next(sessions)
        when = datetime.now(UTC) - timedelta(days=10 - n)
        body = {
            "session_id": f"s{n}",
            "messages": [
                {"id": f"s{n}-m{i}", "role": "user", "content": t, "timestamp": when.isoformat()}
                for i, t in enumerate(texts)
            ],
        }
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post("/v1/memories", body, format="json")
        assert response.status_code == 202, response.json()
        job = client.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
        assert job["status"] == "done", job
        return job

    return post


def revert(api, job_id: str, **body):
    return api.post(f"/v1/jobs/{job_id}/revert", body, format="json")


def head(api) -> str:
    return api.get("/v1/memories").json()["commit"]


def paths(api) -> list[str]:
    return [m["path"] for m in api.get("/v1/memories?limit=200").json()["memories"]]


DOG = "I have a three-year-old beagle named Biscuit."
DOG_FIX = "Quick correction: Biscuit is actually four years old, not three."
WORK = "I work at Zalando and my manager is Tom Becker."
CAMERA = "I bought a Sony A7III camera yesterday from Fotocentre in Bengaluru."


# --- what a revert does ---------------------------------------------------------------


@pytest.mark.usefixtures("object_store")
def test_reverting_a_create_removes_its_files_and_retrieval_stops_finding_them(api, ingest):
    kept = ingest(WORK)
    job = ingest(CAMERA)
    created = job["result"]["created"]
    assert created
    assert any(
        r["path"] in created for r in api.get("/v1/retrieve?query=Sony A7III").json()["results"]
    )

    response = revert(api, job["id"])
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["job"] == job["id"] and body["namespace"] == "default"
    assert body["reverted_commit"] == job["commit"]
    assert body["already_reverted"] is False
    assert body["removed"] == sorted(created)
    assert body["restored"] == [] and body["skipped"] == []
    assert head(api) == body["commit"]

    assert sorted(paths(api)) == sorted(kept["result"]["created"])
    for path in created:
        gone = api.get(f"/v1/memories/{path}")
        assert gone.status_code == 404 and gone.json()["error"]["code"] == "memory_not_found"
        versions = api.get(f"/v1/memories/{path}/history").json()["versions"]
        assert [v["change"] for v in versions] == ["delete", "add"]
        assert versions[0]["commit"] == body["commit"]
        assert versions[0]["trailers"]["Gitloom-Action"] == "revert"
        assert versions[0]["trailers"]["Gitloom-Reverts"] == job["id"]
        assert versions[0]["trailers"]["Gitloom-Reverts-Commit"] == job["commit"]
        assert versions[0]["message"].startswith(f"Revert job {job['id']}: ")
    found = api.get("/v1/retrieve?query=which camera did I buy Sony A7III").json()
    assert found["commit"] == found["indexed_commit"] == body["commit"]
    assert not {r["path"] for r in found["results"]} & set(created)

    # Idempotent: the same revert commit, nothing written.
    again = revert(api, job["id"])
    assert again.status_code == 200, again.json()
    assert again.json() == {**body, "already_reverted": True}
    assert head(api) == body["commit"]


@pytest.mark.usefixtures("object_store")
def test_reverting_a_rewrite_brings_back_the_content_before_it(api, ingest):
    first = ingest(DOG, WORK)
    biscuit = next(p for p in first["result"]["created"] if "biscuit" in p)
    before = api.get(f"/v1/memories/{biscuit}").json()["raw"]
    fix = ingest(DOG_FIX)
    assert fix["result"]["rewritten"] == [biscuit] and fix["result"]["created"] == []
    assert "four" in api.get(f"/v1/memories/{biscuit}").json()["body"]

    response = revert(api, fix["id"])
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["restored"] == [biscuit] and body["removed"] == [] and body["unlinked"] == []

    assert api.get(f"/v1/memories/{biscuit}").json()["raw"] == before
    versions = api.get(f"/v1/memories/{biscuit}/history").json()["versions"]
    assert [v["change"] for v in versions] == ["modify", "modify", "add"]
    assert versions[0]["commit"] == body["commit"]
    # the rewrite said the new age and quoted the rest of the old statement, as said
    assert (
        "-Biscuit is actually four years old, not three"
        " (I have a … beagle named Biscuit)." in versions[0]["diff"]
    )
    assert "+I have a three-year-old beagle named Biscuit." in versions[0]["diff"]
    top = api.get("/v1/retrieve?query=how old is Biscuit").json()["results"][0]
    assert top["path"] == biscuit and "three" in top["content"] and "four" not in top["content"]
    assert revert(api, fix["id"]).status_code == 200


def test_reverting_drops_links_to_removed_memories_from_other_memories(api, ingest):
    job = ingest(CAMERA)
    (camera,) = job["result"]["created"]
    lens = "facts/camera-gear/kit-lens-28-70-1b2c3d4e.md"
    lens_file = memory_bytes(
        "The A7III came with the FE 28-70mm kit lens.",
        cues=["which lens came with the Sony camera"],
        related=[("same-purchase", camera)],
    )
    imported = api.post(
        "/v1/namespaces/default/import", tar_gz({lens: lens_file}), content_type="application/gzip"
    )
    assert imported.status_code == 201, imported.json()
    assert api.get(f"/v1/memories/{lens}").json()["related"] == [
        {"type": "same-purchase", "path": camera}
    ]

    body = revert(api, job["id"]).json()
    assert body["removed"] == [camera] and body["unlinked"] == [lens]
    assert api.get(f"/v1/memories/{lens}").json()["related"] == []
    # The lens file is not "in the way": only its link changed, in the revert commit.
    versions = api.get(f"/v1/memories/{lens}/history").json()["versions"]
    assert versions[0]["commit"] == body["commit"]
    # The namespace's own export imports again: no link points at a missing file.
    api.post("/v1/namespaces", {"name": "copy"}, format="json")
    export = api.get("/v1/namespaces/default/export?format=tar").content
    again = api.post("/v1/namespaces/copy/import", export, content_type="application/gzip")
    assert again.status_code == 201, again.json()
    # Asked again, the answer names the same unlinked memory.
    assert revert(api, job["id"]).json()["unlinked"] == [lens]


# --- what stands in the way ------------------------------------------------------------


@pytest.mark.usefixtures("object_store")
def test_a_file_changed_since_is_a_conflict_with_nothing_written_and_force_reverts_the_rest(
    api, ingest
):
    first = ingest(DOG, WORK)
    biscuit = next(p for p in first["result"]["created"] if "biscuit" in p)
    others = sorted(p for p in first["result"]["created"] if p != biscuit)
    fix = ingest(DOG_FIX)
    before = head(api)

    refused = revert(api, first["id"])
    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "revert_conflict"
    assert error["details"]["conflicts"] == [
        {
            "path": biscuit,
            "change": "add",
            "now": "changed",
            "commits": [
                {
                    "commit": fix["commit"],
                    "time": error["details"]["conflicts"][0]["commits"][0]["time"],
                    "message": error["details"]["conflicts"][0]["commits"][0]["message"],
                    "action": "ingest",
                    "job": fix["id"],
                }
            ],
        }
    ]
    assert head(api) == before
    assert sorted(paths(api)) == sorted(first["result"]["created"])

    forced = revert(api, first["id"], force=True)
    assert forced.status_code == 201, forced.json()
    body = forced.json()
    assert body["removed"] == others and body["skipped"] == error["details"]["conflicts"]
    assert paths(api) == [biscuit]
    assert "four" in api.get(f"/v1/memories/{biscuit}").json()["body"]
    log = api.get(f"/v1/memories/{others[0]}/history").json()["versions"][0]
    assert log["trailers"]["Gitloom-Skipped"] == "1"
    assert f"- {biscuit} (changed by {fix['commit'][:10]})" in log["message"]

    # Reverted once: asked again (with or without force) it is the same commit.
    again = revert(api, first["id"])
    assert again.status_code == 200 and again.json() == {**body, "already_reverted": True}

    # Reverting the later job first clears the way: the content is what the first left.
    assert revert(api, fix["id"]).json()["restored"] == [biscuit]


def test_a_job_whose_memories_were_all_forgotten_has_nothing_left_to_revert(api, ingest):
    job = ingest(CAMERA)
    (camera,) = job["result"]["created"]
    forgot = api.delete(f"/v1/memories/{camera}").json()["commit"]
    for body in ({}, {"force": True}):
        refused = revert(api, job["id"], **body)
        assert refused.status_code == 409, refused.json()
        error = refused.json()["error"]
        assert error["code"] == "nothing_to_revert"
        assert "forgotten" in error["message"]
    assert head(api) == forgot


def test_a_forget_does_not_block_reverting_an_earlier_job_and_its_dropped_links_are_shown(
    api, ingest, client, account
):
    """The issue's newcomer: a dog and its colour, a correction of the dog, the colour
    forgotten (which drops the dog memory's link to it), then the correction reverted.
    The forget's link drop is seen through: the dog memory goes back to what it was,
    without the link to the forgotten colour. The forget's page said beforehand which
    memory it would touch, and its answer says which it did."""
    from django.contrib.auth import get_user_model

    from accounts.models import Membership

    # the second sentence continues the first ("his"), so the dog links to the colour
    first = ingest(DOG + " His favourite colour is green.")
    colour = next(p for p in first["result"]["created"] if "colour" in p or "color" in p)
    dog = next(p for p in first["result"]["created"] if p != colour)
    body = api.get(f"/v1/memories/{dog}").json()
    assert colour in [link["path"] for link in body["related"]], body  # they were linked
    fix = ingest(DOG_FIX)
    assert fix["result"]["rewritten"] == [dog], fix

    user = get_user_model().objects.create_user("newcomer", password="pw-123456789")
    Membership.objects.create(user=user, account=account)
    client.force_login(user)
    page = client.get(f"/namespaces/default/forget/{colour}")
    assert page.status_code == 200
    text = page.content.decode()
    assert dog in text and "link" in text  # it names the memory it will touch

    forgotten = api.delete(f"/v1/memories/{colour}").json()
    assert forgotten["unlinked"] == [dog]

    response = revert(api, fix["id"])
    assert response.status_code == 201, response.json()
    assert response.json()["restored"] == [dog] and response.json()["skipped"] == []
    restored = api.get(f"/v1/memories/{dog}").json()
    assert "three-year-old" in restored["body"] and "four" not in restored["body"]
    assert restored["related"] == []  # the forgotten colour stays forgotten, and unlinked
    assert colour not in paths(api)

    # Reverting the first job now: its colour is already gone, its dog is removed.
    preview = client.get(f"/namespaces/default/jobs/{first['id']}/revert/")
    assert preview.status_code == 200 and "It will remove" in preview.text
    assert dog in preview.text and "Reverting now would write nothing" not in preview.text
    assert revert(api, first["id"]).json()["removed"] == [dog]
    # A job with nothing left to undo is said so on its page, not offered a button.
    again = client.get(f"/namespaces/default/jobs/{fix['id']}/revert/", follow=True)
    assert "already reverted" in again.text


def test_every_conflict_names_what_to_do(api, ingest):
    first = ingest(DOG, WORK)
    biscuit = next(p for p in first["result"]["created"] if "biscuit" in p)
    fix = ingest(DOG_FIX)
    message = revert(api, first["id"]).json()["error"]["message"]
    assert f"revert the later job {fix['id']} first" in message
    assert "send force to revert the other" in message
    # A rewrite forgotten since: a revert would bring it back, and says so.
    api.delete(f"/v1/memories/{biscuit}")
    refused = revert(api, fix["id"]).json()["error"]
    assert refused["code"] == "revert_conflict"
    assert "a forget" in refused["message"] and "leave it as it is" in refused["message"]


def test_a_file_changed_and_changed_back_is_not_in_the_way(api, ingest):
    first = ingest(DOG)
    (biscuit,) = first["result"]["created"]
    fix = ingest(DOG_FIX)
    assert revert(api, fix["id"]).status_code == 201  # back to what `first` left
    body = revert(api, first["id"]).json()
    assert body["removed"] == [biscuit] and body["skipped"] == []
    assert paths(api) == []


# --- what cannot be reverted -----------------------------------------------------------


def test_only_a_done_job_with_a_commit_can_be_reverted(api, ns, ingest, settings):
    quiet = ingest("ok")
    assert quiet["commit"] == ""
    response = revert(api, quiet["id"])
    assert response.status_code == 409 and response.json()["error"]["code"] == "nothing_to_revert"

    settings.GITLOOM_QUEUE_SYNC = False  # accepted, never run
    queued = api.post(
        "/v1/memories", {"messages": [{"role": "user", "content": CAMERA}]}, format="json"
    ).json()["job"]
    response = revert(api, queued["id"])
    assert response.status_code == 409 and response.json()["error"]["code"] == "job_not_finished"


def test_a_failed_job_has_nothing_to_revert(
    api, ingest, settings, django_capture_on_commit_callbacks
):
    settings.GITLOOM_LLM_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens there
    settings.GITLOOM_LLM_MODEL = "any"
    settings.GITLOOM_LLM_MAX_RETRIES = 0
    with django_capture_on_commit_callbacks(execute=True):
        job = api.post(
            "/v1/memories", {"messages": [{"role": "user", "content": CAMERA}]}, format="json"
        ).json()["job"]
    assert api.get(f"/v1/jobs/{job['id']}").json()["job"]["status"] == "failed"
    response = revert(api, job["id"])
    assert response.status_code == 409 and response.json()["error"]["code"] == "nothing_to_revert"


@pytest.mark.parametrize(
    "body", [{"force": "yes"}, {"force": 1}, {"surprise": True}, {"namespace": 7}, []]
)
def test_bad_bodies_are_refused_and_nothing_is_written(api, ingest, body):
    job = ingest(CAMERA)
    before = head(api)
    response = api.post(f"/v1/jobs/{job['id']}/revert", body, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid"
    assert head(api) == before


# --- tenancy ---------------------------------------------------------------------------


def test_another_accounts_or_namespaces_job_is_not_found_and_untouched(api, other_api, ingest):
    job = ingest(CAMERA)
    before = head(api)
    for client, body in (
        (other_api, {}),
        (other_api, {"force": True}),
        (api, {"namespace": "other"}),
    ):
        response = revert(client, job["id"], **body)
        assert response.status_code == 404 and response.json()["error"]["code"] == "job_not_found"
    assert revert(api, "not-a-uuid").status_code == 404
    assert head(api) == before
    assert revert(api, job["id"], namespace="default").status_code == 201


def test_a_revert_waits_for_the_running_job_and_asks_to_try_again_if_it_runs_on(
    api, ingest, account, monkeypatch
):
    """A drain holds the namespace's queue lock while its job runs (here, another
    thread's database session holds it): the revert waits, then answers write_conflict
    with nothing written; once the job is done it goes through."""
    import threading

    from memories import reverts
    from memories.jobs import namespace_queue_held
    from namespaces.models import Namespace

    job = ingest(CAMERA)
    namespace = Namespace.objects.get(account=account, name="default")
    monkeypatch.setattr(reverts, "REVERT_WAIT_SECONDS", 0.3)
    held, release = threading.Event(), threading.Event()

    def running_job():
        from django.db import connection

        with namespace_queue_held(namespace_id=namespace.pk, wait=5):
            held.set()
            release.wait(30)
        connection.close()

    worker = threading.Thread(target=running_job)
    worker.start()
    try:
        assert held.wait(30)
        before = head(api)
        busy = revert(api, job["id"])
        assert busy.status_code == 409 and busy.json()["error"]["code"] == "write_conflict"
        assert head(api) == before
    finally:
        release.set()
        worker.join(30)
    assert revert(api, job["id"]).status_code == 201


def test_jobs_accepted_before_a_revert_run_after_it_against_the_reverted_state(
    api, ingest, settings, django_capture_on_commit_callbacks
):
    """A job accepted before the revert but not yet run reconciles against the reverted
    state: the revert took the queue's lock, and the drain it queued ran the job."""
    first = ingest(DOG)
    (biscuit,) = first["result"]["created"]
    settings.GITLOOM_QUEUE_SYNC = False
    pending = api.post(
        "/v1/memories", {"messages": [{"role": "user", "content": WORK}]}, format="json"
    ).json()["job"]
    settings.GITLOOM_QUEUE_SYNC = True
    with django_capture_on_commit_callbacks(execute=True):
        assert revert(api, first["id"]).status_code == 201
    done = api.get(f"/v1/jobs/{pending['id']}").json()["job"]
    assert done["status"] == "done", done
    assert biscuit not in paths(api) and set(done["result"]["created"]) <= set(paths(api))


# --- the dashboard ---------------------------------------------------------------------


def test_the_job_page_reverts_after_asking_and_shows_what_is_in_the_way(api, ingest, account):
    from django.contrib.auth import get_user_model
    from django.test import Client

    from accounts.models import Membership
    from tests.fixtures_browser import csrf_post

    user = get_user_model().objects.create_user(username="dana", password="correct-horse-42")
    Membership.objects.create(user=user, account=account)
    page = Client(enforce_csrf_checks=True)
    page.force_login(user)

    first = ingest(DOG, WORK)
    biscuit = next(p for p in first["result"]["created"] if "biscuit" in p)
    fix = ingest(DOG_FIX)
    quiet = ingest("ok")
    url = f"/namespaces/default/jobs/{first['id']}/"

    detail = page.get(url)
    assert f'href="{url}revert/"' in detail.text and "Revert this job" in detail.text
    assert "revert/" not in page.get(f"/namespaces/default/jobs/{quiet['id']}/").text

    asked = page.get(url + "revert/")  # asks first, showing what is in the way; nothing written
    assert asked.status_code == 200 and "Reverting now would write nothing." in asked.text
    assert biscuit in asked.text and f"revert the later job {fix['id']} first" in asked.text
    assert page.get(f"/namespaces/default/jobs/{fix['id']}/revert/").status_code == 200
    assert "It will restore" in page.get(f"/namespaces/default/jobs/{fix['id']}/revert/").text
    before = head(api)
    refused = page.post(url + "revert/")  # no CSRF token
    assert refused.status_code == 403 and head(api) == before

    conflict = csrf_post(page, url + "revert/")
    assert conflict.status_code == 409
    assert "Nothing was reverted." in conflict.text and biscuit in conflict.text
    assert fix["commit"][:10] in conflict.text
    assert f'href="/namespaces/default/jobs/{fix["id"]}/"' in conflict.text
    assert head(api) == before

    forced = csrf_post(page, url + "revert/", {"force": "1"})
    assert forced.status_code == 302 and forced["Location"] == url
    shown = page.get(url).text
    assert "Reverted in commit" in shown and f"skipped (changed since): {biscuit}" in shown
    assert paths(api) == [biscuit]
    again = csrf_post(page, url + "revert/")
    assert again.status_code == 302 and "already reverted" in page.get(url).text

    # Another namespace's page does not reach the job.
    api.post("/v1/namespaces", {"name": "elsewhere"}, format="json")
    assert page.get(f"/namespaces/elsewhere/jobs/{first['id']}/revert/").status_code == 404


# --- import jobs -----------------------------------------------------------------------


@pytest.fixture
def import_job(settings, django_capture_on_commit_callbacks, api, ns):
    """A big import (over GITLOOM_IMPORT_INLINE_BYTES) is a job; returns it done."""
    settings.GITLOOM_QUEUE_SYNC = True
    settings.GITLOOM_IMPORT_INLINE_BYTES = 100

    def post(data: bytes, namespace: str = "default", fmt: str = "tar") -> dict:
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(
                f"/v1/namespaces/{namespace}/import?format={fmt}",
                data,
                content_type="application/gzip",
            )
        assert response.status_code == 202, response.json()
        job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
        assert job["status"] == "done", job
        return job

    return post


def test_a_tar_import_job_is_reverted_like_an_ingest_and_a_bundle_import_is_not(api, import_job):
    leica, fuji = "facts/gear/leica-m6.md", "facts/gear/fuji-x100v.md"
    first = import_job(
        tar_gz(
            {
                leica: memory_bytes("Owns a Leica M6 bought in 2019.", cues=["which Leica"]),
                fuji: memory_bytes("Owns a Fujifilm X100V.", cues=["which Fujifilm camera"]),
            }
        )
    )
    old = api.get(f"/v1/memories/{leica}").json()["raw"]
    second = import_job(
        tar_gz({leica: memory_bytes("Sold the Leica M6 in 2026.", cues=["which Leica"])})
    )
    assert second["result"]["rewritten"] == [leica]
    assert revert(api, first["id"]).json()["error"]["code"] == "revert_conflict"
    assert revert(api, second["id"]).json()["restored"] == [leica]
    assert api.get(f"/v1/memories/{leica}").json()["raw"] == old
    assert revert(api, first["id"]).json()["removed"] == [fuji, leica]
    assert paths(api) == []

    api.post("/v1/namespaces", {"name": "copy"}, format="json")
    bundle = api.get("/v1/namespaces/default/export?format=bundle").content
    brought = import_job(bundle, namespace="copy", fmt="bundle")
    refused = revert(api, brought["id"])
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "job_not_revertible"


def test_a_job_whose_every_memory_a_purge_erased_has_nothing_to_revert(api, ingest):
    """A purge keeps the job's commit, empty; reverting it would be an empty commit."""
    job = ingest("I visited Zorblax Castle with Tom in May.")
    kept = ingest(DOG)
    purge = api.post("/v1/namespaces/default/purge", {"match": "zorblax"}, format="json")
    assert purge.status_code == 200 and purge.json()["versions"] == 1, purge.json()
    before = head(api)
    response = revert(api, job["id"])
    assert response.status_code == 409, response.json()
    assert response.json()["error"]["code"] == "nothing_to_revert"
    assert "purge" in response.json()["error"]["message"]
    assert head(api) == before
    assert revert(api, kept["id"]).status_code == 201
