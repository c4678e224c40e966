"""A big import runs as a job: 202, then either done (committed and indexed) or failed
(nothing committed); it never holds a web worker through validation and indexing."""

import pytest

from tests.fixtures_browser import *  # noqa: F403
from tests.support.archives import memory_bytes, tar_gz


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201


@pytest.fixture
def import_inline(settings, django_capture_on_commit_callbacks):
    settings.GITLOOM_QUEUE_SYNC = True
    settings.GITLOOM_IMPORT_INLINE_BYTES = 100  # every archive below is "big"

    def post(api, data):
        with django_capture_on_commit_callbacks(execute=True):
            return api.post("/v1/namespaces/default/import", data, content_type="application/gzip")

    return post


def _files(count: int) -> dict[str, bytes]:
    return {
        f"facts/gear/item-{i:04d}.md": memory_bytes(
            f"Owns camera body number {i} of the Leica M{i} series.",
            cues=[f"which Leica M{i} do I own"],
        )
        for i in range(count)
    }


def _head(api):
    body = api.get("/v1/retrieve?query=Leica&limit=5").json()
    return body["commit"], body["indexed_commit"], body["results"]


def test_a_big_import_is_a_job_that_ends_committed_and_indexed(api, ns, import_inline):
    response = import_inline(api, tar_gz(_files(40)))
    assert response.status_code == 202, response.json()
    job = response.json()["job"]
    done = api.get(f"/v1/jobs/{job['id']}").json()["job"]
    assert done["status"] == "done", done
    assert len(done["result"]["created"]) == 40 and done["commit"]
    commit, indexed, results = _head(api)
    assert commit == indexed == done["commit"]
    assert results, "the imported memories are retrievable"
    # The upload is not kept once the job is over.
    from namespaces.storage import object_store

    assert not list(object_store().list("acme#default/uploads/"))


def test_a_big_invalid_import_fails_its_job_and_commits_nothing(api, ns, import_inline):
    before = api.get("/v1/memories").json()["commit"]
    files = {**_files(40), "facts/gear/broken-0000.md": b"no header\n"}
    response = import_inline(api, tar_gz(files))
    assert response.status_code == 202, response.json()
    job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
    assert job["status"] == "failed"
    assert job["error"]["code"] == "invalid_memory"
    assert api.get("/v1/memories").json()["commit"] == before


def test_a_big_import_repeated_ends_done_with_no_second_commit(api, ns, import_inline):
    data = tar_gz(_files(30))
    first = import_inline(api, data).json()["job"]
    second = import_inline(api, data).json()["job"]
    first = api.get(f"/v1/jobs/{first['id']}").json()["job"]
    second = api.get(f"/v1/jobs/{second['id']}").json()["job"]
    assert first["status"] == second["status"] == "done"
    assert second["commit"] == "" and second["result"]["created"] == []


def test_a_big_import_from_the_dashboard_is_queued_too(
    page_client, person, settings, django_capture_on_commit_callbacks
):
    import io

    from memories.models import Job
    from namespaces.services import namespace_create
    from tests.fixtures_browser import csrf_post

    settings.GITLOOM_QUEUE_SYNC = True
    settings.GITLOOM_IMPORT_INLINE_BYTES = 100
    namespace_create(account=person.memberships.get().account, name="notes")
    archive = io.BytesIO(tar_gz(_files(20)))
    archive.name = "memories.tar.gz"
    with django_capture_on_commit_callbacks(execute=True):
        response = csrf_post(
            page_client, "/namespaces/notes/data/", {"archive": archive, "format": "tar"}
        )
    assert response.status_code == 302, response.content
    job = Job.objects.get(namespace__name="notes")
    assert job.status == Job.Status.DONE and len(job.result["created"]) == 20


def test_an_import_whose_worker_died_after_its_commit_is_finished_once_by_the_rerun(
    api, ns, import_inline, monkeypatch
):
    from memories import ingest
    from memories.models import Job

    real_done, died = ingest.job_done, []

    def worker_killed_after_commit(**kwargs):
        if not died:
            died.append(True)
            raise KeyboardInterrupt  # not an error the job handles: the process is gone
        return real_done(**kwargs)

    monkeypatch.setattr(ingest, "job_done", worker_killed_after_commit)
    with pytest.raises(KeyboardInterrupt):
        import_inline(api, tar_gz(_files(30)))
    job = Job.objects.get()
    assert job.status == Job.Status.RUNNING
    ingest.job_run(job=job)  # the queue hands the job out again

    done = api.get(f"/v1/jobs/{job.public_id}").json()["job"]
    assert done["status"] == "done" and done["commit"], done
    assert len(done["result"]["created"]) == 30
    commit, indexed, results = _head(api)
    assert commit == indexed == done["commit"] and results
    # One import commit, and it names its job: blame leads from a line to the job.
    path = done["result"]["created"][0]
    history = api.get(f"/v1/memories/{path}/history").json()["versions"]
    assert [v["commit"] for v in history] == [done["commit"]]
    assert history[0]["trailers"]["Gitloom-Job"] == str(job.public_id)
    blame = api.get(f"/v1/memories/{path}/blame").json()
    assert {c["job"]["id"] for c in blame["commits"] if c.get("job")} == {str(job.public_id)}
