# ruff: noqa: F811 — pytest fixtures are imported by name and used as parameters
"""Purging (issue 15, part 5): erasure that really erases, on both storage backends.

Driven through the HTTP API; what storage holds afterwards is read back raw (every
object under the namespace's prefix, and every pack's objects inflated with dulwich),
and the exported bundle is cloned and checked by the real git CLI.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from tests.support.archives import CAMERA, LENS, TRIP, memory_bytes, sample_files, tar_gz
from tests.support.stored import cached_texts, git, holding, stored_texts

SECRET = "Fotocentre"  # only in CAMERA's body
WORK = "facts/work/zalando-engineer-1a2b3c4d.md"
BOSS = "facts/work/manager-tom-5e6f7a8b.md"
PET = "facts/pets/biscuit-9c0d1e2f.md"


@pytest.fixture
def run_inline(settings, django_capture_on_commit_callbacks):
    """Post a transcript and run its job at once, in this process."""
    settings.GITLOOM_QUEUE_SYNC = True

    def post(api, text, namespace="default"):
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(
                "/v1/memories",
                {"namespace": namespace, "messages": [{"role": "user", "content": text}]},
                format="json",
            )
        assert response.status_code == 202, response.json()
        job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
        assert job["status"] == "done", job
        return job

    return post


@pytest.fixture
def ns(api, object_store):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    return "default"


def _import(api, files, namespace="default"):
    response = api.post(
        f"/v1/namespaces/{namespace}/import?format=tar",
        tar_gz(files),
        content_type="application/gzip",
    )
    assert response.status_code == 201, response.json()
    return response.json()["commit"]


def _head(api, namespace="default"):
    return api.get(f"/v1/memories?namespace={namespace}").json()["commit"]


def clone_of_export(api, tmp_path: Path, name: str = "clone") -> Path:
    response = api.get("/v1/namespaces/default/export?format=bundle")
    assert response.status_code == 200
    bundle = tmp_path / f"{name}.bundle"
    bundle.write_bytes(response.content)
    clone = tmp_path / name
    git("clone", "-q", str(bundle), str(clone))
    git("-C", str(clone), "fsck", "--full", "--strict")
    return clone


def tar_paths(api) -> list[str]:
    response = api.get("/v1/namespaces/default/export?format=tar")
    with tarfile.open(fileobj=io.BytesIO(response.content), mode="r:gz") as archive:
        return sorted(archive.getnames())


def git_log_trailers(prefix: str) -> dict[str, str]:
    """Every trailer of the history, the newest value of each."""
    from namespaces.repository import repository_log

    found: dict[str, str] = {}
    for entry in repository_log(prefix=prefix):
        for key, value in entry.trailers.items():
            found.setdefault(key, value)
    return found


def _namespace(name="default"):
    from namespaces.models import Namespace

    return Namespace.objects.get(account_id="acme", name=name)


# --------------------------------------------------------------------------- by path


def test_purging_a_memory_erases_every_version_from_storage_history_index_and_exports(
    api, ns, object_store, tmp_path
):
    from namespaces.errors import CommitPurged
    from namespaces.selectors import commit_check

    prefix = _namespace().storage_prefix
    _import(api, sample_files())
    rewritten = memory_bytes(
        f"Bought a Sony A7III from {SECRET} in Bengaluru; the receipt is in the drawer.",
        cues=["what camera do I own"],
        related=[("same-purchase", LENS)],
    )
    second = _import(api, {CAMERA: rewritten})
    assert api.delete(f"/v1/memories/{TRIP}").status_code == 200  # forgotten before
    old_versions = api.get(f"/v1/memories/{CAMERA}/history").json()["versions"]
    old_head = _head(api)
    old_log = git("-C", str(clone_of_export(api, tmp_path, "before")), "log", "--format=%s%n%b")
    hits = api.get("/v1/retrieve", {"query": SECRET}).json()["results"]
    assert CAMERA in [r["path"] for r in hits]
    assert holding(stored_texts(object_store, prefix), SECRET)  # the scan does see it

    response = api.post(f"/v1/memories/{CAMERA}/purge", {}, format="json")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["kind"] == "path" and body["paths"] == [CAMERA] and body["versions"] == 2
    assert body["previous_commit"] == old_head and body["commit"] == _head(api)
    assert body["credential"] == "api_key test (" + api.secret[:12] + ")"
    assert body["commits_replaced"] >= 3 and body["objects_deleted"] >= 2

    # Storage holds it nowhere, nor does this process's cache of the packs.
    assert holding(stored_texts(object_store, prefix), SECRET) == []
    assert holding(cached_texts(object_store, prefix), SECRET) == []
    # The memory and its history are gone; the files that linked to it do not any more.
    assert api.get(f"/v1/memories/{CAMERA}").status_code == 404
    history = api.get(f"/v1/memories/{CAMERA}/history")
    assert history.status_code == 404 and history.json()["error"]["code"] == "memory_not_found"
    assert api.get(f"/v1/memories/{LENS}").json()["related"] == []
    # The forgotten memory stays forgotten, with its history.
    assert api.get(f"/v1/memories/{TRIP}").status_code == 404
    trip = api.get(f"/v1/memories/{TRIP}/history").json()["versions"]
    assert [v["change"] for v in trip] == ["delete", "add"]
    # Retrieval no longer finds it.
    results = api.get("/v1/retrieve", {"query": SECRET}).json()["results"]
    assert CAMERA not in [r["path"] for r in results]
    assert all(SECRET not in r["content"] for r in results)
    # Exports: the bundle clones and fscks clean, holds it nowhere, and keeps every
    # commit message; the tar lacks it.
    clone = clone_of_export(api, tmp_path, "after")
    assert SECRET not in git("-C", str(clone), "log", "--all", "-p")
    log = git("-C", str(clone), "log", "--format=%s%n%b")
    assert log.split("\n", 1)[0] == f"Purge {CAMERA}"
    assert log.endswith(old_log)
    assert "Gitloom-Action: purge" in log and "Gitloom-Credential: api_key test" in log
    assert tar_paths(api) == [LENS]
    # The replaced commit ids are gone for good: 410 with where the history went.
    for version in old_versions:
        with pytest.raises(CommitPurged) as gone:
            commit_check(namespace=_namespace(), commit=version["commit"])
        assert gone.value.status == 410 and gone.value.code == "commit_purged"
    assert commit_check(namespace=_namespace(), commit=body["commit"]) == body["commit"]
    # Blame and changes stay consistent with the new history.
    new_ids = set(git("-C", str(clone), "log", "--format=%H").split())
    blame = api.get(f"/v1/memories/{LENS}/blame").json()
    assert {hunk["commit"] for hunk in blame["hunks"]} <= new_ids
    full = api.get("/v1/namespaces/default/changes").json()
    assert full["commit"] == body["commit"] and CAMERA not in [c["path"] for c in full["changes"]]
    with pytest.raises(CommitPurged) as gone:
        commit_check(namespace=_namespace(), commit=second)
    assert gone.value.details["replaced_by"] in git("-C", str(clone), "log", "--format=%H")


def test_a_purge_record_says_when_who_and_what_but_not_the_content(api, ns):
    from namespaces.models import Purge

    _import(api, sample_files())
    body = api.post(f"/v1/memories/{CAMERA}/purge", {"namespace": "default"}, format="json").json()
    record = Purge.objects.get(public_id=body["id"])
    assert record.kind == "path" and record.paths == [CAMERA]
    assert record.credential.startswith("api_key test (glk_")
    assert record.created is not None and record.commit == body["commit"]
    assert SECRET not in str(record.__dict__)
    trailers = api.get(f"/v1/memories/{LENS}/history").json()["versions"][0]["trailers"]
    assert trailers["Gitloom-Action"] == "purge" and trailers["Gitloom-Purge"] == body["id"]


def test_job_rows_follow_their_commits_to_the_new_ids(api, ns, run_inline):
    from memories.models import Job
    from namespaces.repository import repository_log

    _import(api, sample_files())
    job = run_inline(api, "My beagle Biscuit turned four in Berlin.")
    done = Job.objects.get(public_id=job["id"])
    assert done.status == "done" and done.commit
    api.post(f"/v1/memories/{CAMERA}/purge", {}, format="json")
    done.refresh_from_db()
    by_job = {
        entry.trailers.get("Gitloom-Job"): entry.commit
        for entry in repository_log(prefix=_namespace().storage_prefix)
    }
    assert done.commit == by_job[job["id"]]
    assert api.get(f"/v1/jobs/{job['id']}").json()["job"]["commit"] == done.commit


def test_a_reverts_commit_trailer_follows_the_reverted_commit_to_its_new_id(api, ns, run_inline):
    from memories.models import Job

    _import(api, sample_files())
    job = run_inline(api, "My beagle Biscuit turned four in Berlin.")
    reverted = api.post(f"/v1/jobs/{job['id']}/revert", {}, format="json")
    assert reverted.status_code == 201, reverted.json()
    api.post(f"/v1/memories/{CAMERA}/purge", {}, format="json")
    commit = Job.objects.get(public_id=job["id"]).commit
    versions = api.get(f"/v1/memories/{LENS}/history").json()["versions"]
    assert versions[-1]["trailers"]["Gitloom-Import"] == "tar"
    log = git_log_trailers(_namespace().storage_prefix)
    assert log["Gitloom-Reverts-Commit"] == commit


def test_the_path_may_also_be_named_in_the_query_but_not_twice_differently(api, ns):
    assert api.post("/v1/namespaces", {"name": "other"}, format="json").status_code == 201
    _import(api, sample_files(), namespace="other")
    head = _head(api)
    clash = api.post(
        f"/v1/memories/{CAMERA}/purge?namespace=default", {"namespace": "other"}, format="json"
    )
    assert clash.status_code == 400 and clash.json()["error"]["code"] == "invalid"
    response = api.post(f"/v1/memories/{CAMERA}/purge?namespace=other", {}, format="json")
    assert response.status_code == 200 and response.json()["paths"] == [CAMERA]
    assert _head(api) == head


def test_changes_since_a_replaced_commit_is_410_commit_purged(api, ns):
    _import(api, sample_files())
    old = _head(api)
    _import(
        api, {f"facts/more/fact-{i}-1234567{i}.md": memory_bytes(f"Fact {i}") for i in range(3)}
    )
    first = api.get("/v1/namespaces/default/changes", {"since": old, "limit": 1}).json()
    listing = api.get("/v1/namespaces/default/changes", {"limit": 1}).json()
    assert first["next_cursor"] and listing["next_cursor"]

    body = api.post(f"/v1/memories/{CAMERA}/purge", {}, format="json").json()

    gone = api.get("/v1/namespaces/default/changes", {"since": old})
    assert gone.status_code == 410
    error = gone.json()["error"]
    assert error["code"] == "commit_purged" and error["details"]["replaced_by"]
    assert error["details"]["replaced_by"] != old
    # A listing whose pinned commit was rewritten between two pages says so too.
    for params in (
        {"since": old, "cursor": first["next_cursor"]},
        {"cursor": listing["next_cursor"]},
    ):
        later = api.get("/v1/namespaces/default/changes", params)
        assert later.status_code == 410, later.json()
        assert later.json()["error"]["code"] == "commit_purged"
    fresh = api.get("/v1/namespaces/default/changes").json()
    assert fresh["commit"] == body["commit"]


def test_retrieval_as_of_a_replaced_commit_is_410_and_no_past_answer_holds_it(api, ns):
    _import(api, sample_files())
    held = _head(api)  # CAMERA is here
    later = _import(api, {TRIP: memory_bytes("Flew to Porto instead.", tier="events")})
    before = api.get("/v1/retrieve", {"query": SECRET, "as_of": held}).json()["results"]
    assert CAMERA in [r["path"] for r in before]

    api.post(f"/v1/memories/{CAMERA}/purge", {}, format="json")

    for asked in (held, held[:12], later):
        gone = api.get("/v1/retrieve", {"query": SECRET, "as_of": asked})
        assert gone.status_code == 410, asked
        error = gone.json()["error"]
        assert error["code"] == "commit_purged" and error["details"]["replaced_by"]
    # Every commit of the new history, and a time, answer without it.
    versions = api.get(f"/v1/memories/{LENS}/history").json()["versions"]
    for asked in [v["commit"] for v in versions] + ["2099-01-01T00:00:00Z"]:
        response = api.get("/v1/retrieve", {"query": f"{SECRET} Sony camera", "as_of": asked})
        assert response.status_code == 200, response.json()
        for result in response.json()["results"]:
            assert result["path"] != CAMERA and SECRET not in result["content"]


# --------------------------------------------------------------------------- by match


def test_a_match_purge_erases_every_version_that_mentions_it_and_keeps_the_rest(
    api, ns, object_store, tmp_path, run_inline
):
    from memories.models import Job
    from namespaces.models import Purge

    prefix = _namespace().storage_prefix
    _import(
        api,
        {
            WORK: memory_bytes("I work at Zalando as a data engineer.", cues=["where do I work"]),
            BOSS: memory_bytes(
                "My manager is Tom Becker.", cues=["who is my manager"], related=[("same", WORK)]
            ),
            PET: memory_bytes("My beagle is called Biscuit.", cues=["what is my dog called"]),
        },
    )
    # A later wording that no longer says it survives; the earlier one goes.
    _import(api, {BOSS: memory_bytes("My manager at ZALANDO is Tom.", cues=["who is my boss"])})
    _import(api, {BOSS: memory_bytes("My manager is Sofia Lindqvist.", cues=["my manager"])})
    run_inline(api, "Zalando gave me a bonus of 2,000 euros in March.")
    before = _head(api)

    response = api.post("/v1/namespaces/default/purge", {"match": "  zalando "}, format="json")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["kind"] == "match" and body["previous_commit"] == before
    # The file named after it is listed without the name; the match is kept nowhere.
    assert BOSS in body["paths"] and "facts/work/[purged]-engineer-1a2b3c4d.md" in body["paths"]
    assert "zalando" not in str(body["paths"]).lower()
    # WORK, BOSS's first (it links to WORK) and second, and the job's new memory.
    assert body["versions"] == 4 and len(body["paths"]) == 3
    assert holding(stored_texts(object_store, prefix), "zalando") == []
    assert holding(cached_texts(object_store, prefix), "zalando") == []
    record = Purge.objects.get(public_id=body["id"])
    assert "zalando" not in str(record.paths).lower()
    # BOSS's last wording survives, as its only version; PET is untouched.
    assert api.get(f"/v1/memories/{WORK}").status_code == 404
    assert api.get(f"/v1/memories/{BOSS}").json()["body"] == "My manager is Sofia Lindqvist."
    assert [v["change"] for v in api.get(f"/v1/memories/{BOSS}/history").json()["versions"]] == [
        "add"
    ]
    assert api.get(f"/v1/memories/{PET}").status_code == 200
    # Finished jobs' transcripts no longer hold it either.
    for job in Job.objects.filter(namespace=_namespace()):
        assert "zalando" not in str(job.payload).lower()
    clone = clone_of_export(api, tmp_path)
    assert "zalando" not in git("-C", str(clone), "log", "--all", "-p").lower()
    results = api.get("/v1/retrieve", {"query": "Zalando bonus engineer"}).json()["results"]
    assert all("zalando" not in r["content"].lower() for r in results)

    again = api.post("/v1/namespaces/default/purge", {"match": "Zalando"}, format="json")
    assert again.status_code == 200
    assert again.json()["id"] is None and again.json()["versions"] == 0
    assert again.json()["commit"] == body["commit"] == _head(api)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("match", "code"),
    [
        ("", "invalid_match"),
        ("ab", "invalid_match"),
        ("  ab  ", "invalid_match"),
        ("x" * 201, "invalid_match"),
        ("two\nlines", "invalid_match"),
        (42, "invalid"),
        (None, "invalid"),
    ],
)
def test_a_bad_match_is_400_and_changes_nothing(api, ns, object_store, match, code):
    _import(api, sample_files())
    prefix = _namespace().storage_prefix
    before = stored_texts(object_store, prefix)
    response = api.post("/v1/namespaces/default/purge", {"match": match}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == code
    assert stored_texts(object_store, prefix) == before


def test_an_unknown_or_invalid_path_changes_nothing(api, ns, object_store):
    from namespaces.models import Purge

    _import(api, sample_files())
    prefix = _namespace().storage_prefix
    before = stored_texts(object_store, prefix)
    missing = api.post("/v1/memories/facts/nope/never-12345678.md/purge", {}, format="json")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "memory_not_found"
    invalid = api.post("/v1/memories/facts/../etc/passwd.md/purge", {}, format="json")
    assert invalid.status_code in (400, 404)
    unknown_field = api.post(f"/v1/memories/{CAMERA}/purge", {"confirm": 1}, format="json")
    assert unknown_field.status_code == 400
    assert stored_texts(object_store, prefix) == before
    assert not Purge.objects.exists()


def test_another_accounts_namespace_is_404_and_its_data_is_untouched(
    api, other_api, ns, object_store
):
    from namespaces.models import Namespace

    assert other_api.post("/v1/namespaces", {"name": "mine"}, format="json").status_code == 201
    _import(other_api, sample_files(), namespace="mine")
    theirs = Namespace.objects.get(account_id="globex", name="mine").storage_prefix
    before = stored_texts(object_store, theirs)
    _import(api, sample_files())
    mine = stored_texts(object_store, _namespace().storage_prefix)
    # globex cannot reach acme's namespace: the same 404 as a missing one.
    refused = other_api.post("/v1/namespaces/default/purge", {"match": SECRET}, format="json")
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "namespace_not_found"
    refused = other_api.post(f"/v1/memories/{CAMERA}/purge?namespace=default", {}, format="json")
    assert refused.status_code == 404
    assert stored_texts(object_store, _namespace().storage_prefix) == mine
    # acme's purges never touch globex's namespace, which holds the same files.
    assert api.post(f"/v1/memories/{CAMERA}/purge", {}, format="json").status_code == 200
    assert api.post("/v1/namespaces/default/purge", {"match": "Lisbon"}, format="json").json()[
        "versions"
    ]
    assert stored_texts(object_store, theirs) == before
    kept = other_api.get(f"/v1/memories/{CAMERA}?namespace=mine")
    assert kept.status_code == 200 and SECRET in kept.json()["body"]
