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
    from memories import import_jobs
    from memories.jobs import job_run
    from memories.models import Job

    real_done, died = import_jobs.job_done, []

    def worker_killed_after_commit(**kwargs):
        if not died:
            died.append(True)
            raise KeyboardInterrupt  # not an error the job handles: the process is gone
        return real_done(**kwargs)

    monkeypatch.setattr(import_jobs, "job_done", worker_killed_after_commit)
    with pytest.raises(KeyboardInterrupt):
        import_inline(api, tar_gz(_files(30)))
    job = Job.objects.get()
    assert job.status == Job.Status.RUNNING
    job_run(job=job)  # the queue hands the job out again

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


def _versioned(count: int, word: str) -> dict[str, bytes]:
    return {
        f"facts/gear/item-{i:04d}.md": memory_bytes(
            f"{word} camera body number {i} of the Leica M{i} series.",
            cues=[f"which Leica M{i} do I {word.lower()}"],
        )
        for i in range(count)
    }


def _all_hits(api):
    body = api.get("/v1/retrieve?query=Leica camera body&limit=100").json()
    return body["commit"], body["indexed_commit"], {hit["content"] for hit in body["results"]}


def test_an_import_whose_indexing_outlasts_half_the_job_timeout_pauses_and_ends_indexed(
    api, ns, import_inline, settings
):
    # Every drain may index one step of 7 files before its time is up: the job goes on
    # over several drains instead of being killed at the timeout, and ends done only
    # once its commit is indexed.
    settings.GITLOOM_JOB_TIMEOUT = 0
    settings.GITLOOM_INDEX_STEP_FILES = 7
    response = import_inline(api, tar_gz(_versioned(40, "Owns")))
    assert response.status_code == 202, response.json()
    job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
    assert job["status"] == "done", job
    assert job["attempts"] == 1  # its pauses are not attempts
    assert len(job["result"]["created"]) == 40
    commit, indexed, contents = _all_hits(api)
    assert commit == indexed == job["commit"]
    assert len(contents) == 40


def test_a_half_indexed_import_is_not_seen_until_it_is_whole_and_a_rerun_finishes_it(
    api, ns, import_inline, settings, monkeypatch
):
    from memories.jobs import job_run
    from memories.models import Job
    from retrieval import indexer

    settings.GITLOOM_INDEX_STEP_FILES = 1000
    first = import_inline(api, tar_gz(_versioned(3, "Owns"))).json()["job"]
    first = api.get(f"/v1/jobs/{first['id']}").json()["job"]
    assert first["status"] == "done"
    old = _all_hits(api)
    assert old[0] == old[1] == first["commit"] and len(old[2]) == 3

    # The second import rewrites those 3 and adds 37; its worker is killed in the
    # third step of its indexing, after two steps of 7 files were committed.
    settings.GITLOOM_INDEX_STEP_FILES = 7
    real_step, steps = indexer._step, []

    def killed_in_third_step(*args, **kwargs):
        steps.append(True)
        if len(steps) == 3:
            raise KeyboardInterrupt  # the worker is gone mid-transaction
        return real_step(*args, **kwargs)

    monkeypatch.setattr(indexer, "_step", killed_in_third_step)
    with pytest.raises(KeyboardInterrupt):
        import_inline(api, tar_gz(_versioned(40, "Sold")))
    job = Job.objects.get(status=Job.Status.RUNNING)
    monkeypatch.setattr(indexer, "_step", real_step)

    # Committed, not yet indexed: /v1/retrieve says so, and answers from the old
    # commit exactly (the old versions of the 3, none of the new files).
    commit, indexed, contents = _all_hits(api)
    assert commit != first["commit"] and indexed == first["commit"]
    assert contents == old[2]
    as_of = api.get(f"/v1/retrieve?query=Leica camera body&limit=100&as_of={indexed}").json()
    assert {hit["content"] for hit in as_of["results"]} == old[2]

    job_run(job=job)  # the queue hands the job out again: it goes on from step 3
    done = api.get(f"/v1/jobs/{job.public_id}").json()["job"]
    assert done["status"] == "done" and done["commit"] == commit, done
    assert len(done["result"]["created"]) == 37 and len(done["result"]["rewritten"]) == 3
    commit, indexed, contents = _all_hits(api)
    assert commit == indexed == done["commit"]
    assert len(contents) == 40 and all(text.startswith("Sold") for text in contents)
    # The commit before it is still readable as it was.
    as_of = api.get(f"/v1/retrieve?query=Leica camera body&limit=100&as_of={first['commit']}")
    assert {hit["content"] for hit in as_of.json()["results"]} == old[2]


def test_a_big_bundle_into_a_fresh_namespace_is_indexed_over_several_drains(
    api, ns, import_inline, settings, django_capture_on_commit_callbacks
):
    # The bundle's history replaces the fresh namespace's empty root commit, so its
    # index is built from nothing; that goes in steps too, and no drain does it all.
    from namespaces.repository import repository_head

    settings.GITLOOM_INDEX_STEP_FILES = 1000
    source = import_inline(api, tar_gz(_versioned(40, "Owns"))).json()["job"]
    assert api.get(f"/v1/jobs/{source['id']}").json()["job"]["status"] == "done"
    bundle = api.get("/v1/namespaces/default/export?format=bundle")
    assert bundle.status_code == 200
    assert api.post("/v1/namespaces", {"name": "copy"}, format="json").status_code == 201

    settings.GITLOOM_JOB_TIMEOUT = 0
    settings.GITLOOM_INDEX_STEP_FILES = 7
    data = b"".join(bundle.streaming_content) if bundle.streaming else bundle.content
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/namespaces/copy/import", data, content_type="application/x-git-bundle"
        )
    assert response.status_code == 202, response.json()
    job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
    assert job["status"] == "done", job
    body = api.get("/v1/retrieve?query=Leica camera body&limit=100&namespace=copy").json()
    assert body["commit"] == body["indexed_commit"] == repository_head(prefix="acme#copy/")
    assert len(body["results"]) == 40
