"""Bundle imports: every version in the bundle's history is validated, its reference
names and file sizes too (before a job is queued for a big one), a bundle whose history
does not continue the namespace's replaces its files only when asked, and importing the
same bundle again changes nothing (no empty commit)."""

import secrets
import subprocess

import pytest

from tests.support.archives import CAMERA, memory_bytes, sample_files, tar_gz


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    return "default"


def _git_bundle(tmp_path, versions: list[dict[str, bytes]]) -> bytes:
    """A bundle made by git: one commit per version of the files."""
    repo = tmp_path / "repo"
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    for number, files in enumerate(versions):
        subprocess.run([*git, "rm", "-rq", "--ignore-unmatch", "."], check=True, env=env)
        for path, data in files.items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_bytes(data)
        subprocess.run([*git, "add", "-A"], check=True, env=env)
        subprocess.run([*git, "commit", "-q", "-m", f"v{number}"], check=True, env=env)
    bundle = tmp_path / "b.bundle"
    subprocess.run([*git, "bundle", "create", "-q", str(bundle), "--all"], check=True, env=env)
    return bundle.read_bytes()


def _import(api, data, query=""):
    return api.post(
        f"/v1/namespaces/default/import{query}", data, content_type="application/x-git-bundle"
    )


def _history(api, path):
    return api.get(f"/v1/memories/{path}/history").json()["versions"]


def test_a_bundle_whose_older_commit_holds_an_invalid_file_is_refused(api, ns, tmp_path):
    invalid = {**sample_files(), "facts/misc/broken-00000000.md": b"no header at all\n"}
    data = _git_bundle(tmp_path, [invalid, sample_files()])  # the head alone is valid
    before = api.get("/v1/memories").json()["commit"]
    response = _import(api, data)
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == "invalid_memory"
    assert "broken-00000000.md" in response.json()["error"]["message"]
    assert api.get("/v1/memories").json()["commit"] == before


def test_a_bundle_whose_older_commit_holds_a_hostile_path_is_refused(api, ns, tmp_path):
    hostile = {**sample_files(), "secrets/a/b.md": memory_bytes("x")}
    response = _import(api, _git_bundle(tmp_path, [hostile, sample_files()]))
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == "invalid_path"


def test_a_valid_history_is_imported_with_its_versions(api, ns, tmp_path):
    first = sample_files()
    second = {**first, CAMERA: memory_bytes("Bought a Sony A7III, then sold it.")}
    response = _import(api, _git_bundle(tmp_path, [first, second]))
    assert response.status_code == 201, response.json()
    assert len(_history(api, CAMERA)) == 2


def test_reimporting_the_same_bundle_over_other_history_adds_no_commit(api, ns, tmp_path):
    # The namespace has history of its own, so the bundle lands as one new commit...
    own = memory_bytes("A fact of the namespace's own.")
    assert (
        api.post(
            "/v1/namespaces/default/import",
            tar_gz({"facts/own/fact-00000000.md": own}),
            content_type="application/gzip",
        ).status_code
        == 201
    )
    data = _git_bundle(tmp_path, [sample_files()])
    first = _import(api, data, "?replace=true")
    assert first.status_code == 201, first.json()
    # ...and importing it again finds nothing to do.
    again = _import(api, data)
    assert again.status_code == 200, again.json()
    body = again.json()
    assert body["commit"] == first.json()["commit"]
    assert body["created"] == body["modified"] == body["deleted"] == []
    assert len(_history(api, CAMERA)) == 1


def _own_file(api) -> str:
    path = "facts/own/fact-00000000.md"
    body = tar_gz({path: memory_bytes("A fact of the namespace's own.")})
    response = api.post("/v1/namespaces/default/import", body, content_type="application/gzip")
    assert response.status_code == 201, response.json()
    return path


def test_a_bundle_of_unrelated_history_is_refused_unless_told_to_replace(api, ns, tmp_path):
    own = _own_file(api)
    before = api.get("/v1/memories").json()["commit"]
    data = _git_bundle(tmp_path, [sample_files()])
    refused = _import(api, data)
    assert refused.status_code == 409, refused.json()
    assert refused.json()["error"]["code"] == "unrelated_history"
    assert api.get("/v1/memories").json()["commit"] == before
    assert api.get(f"/v1/memories/{own}").status_code == 200
    # Asked to, the bundle's files replace the namespace's (history keeps the old one).
    replaced = _import(api, data, "?replace=true")
    assert replaced.status_code == 201, replaced.json()
    assert replaced.json()["deleted"] == [own]
    assert api.get(f"/v1/memories/{CAMERA}").status_code == 200
    assert api.get(f"/v1/memories/{own}").status_code == 404
    assert len(_history(api, own)) == 2
    assert _import(api, data, "?replace=maybe").json()["error"]["code"] == "invalid"


def test_a_bundle_that_continues_the_namespaces_history_needs_no_replace(api, ns, tmp_path):
    first = sample_files()
    assert _import(api, _git_bundle(tmp_path, [first])).status_code == 201
    exported = api.get("/v1/namespaces/default/export?format=bundle").content
    repo = tmp_path / "clone"
    bundle = tmp_path / "export.bundle"
    bundle.write_bytes(exported)
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    subprocess.run(["git", "clone", "-q", str(bundle), str(repo)], check=True, env=env)
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    (repo / CAMERA).write_bytes(memory_bytes("Bought a Sony A7III, then sold it."))
    subprocess.run([*git, "commit", "-qam", "edit"], check=True, env=env)
    out = tmp_path / "next.bundle"
    subprocess.run([*git, "bundle", "create", "-q", str(out), "--all"], check=True, env=env)
    response = _import(api, out.read_bytes())
    assert response.status_code == 201, response.json()
    assert response.json()["modified"] == [CAMERA]


@pytest.mark.parametrize("ref", [b"refs/heads/../../x", b"refs/heads/a b", b"refs/heads/x.lock"])
@pytest.mark.parametrize("size", ["small", "queued"])
def test_a_bundle_naming_an_invalid_reference_is_refused(api, ns, tmp_path, ref, size):
    files = sample_files()
    if size == "queued":  # over GITLOOM_IMPORT_INLINE_BYTES: refused before any job
        files["facts/misc/noise-00000000.md"] = memory_bytes(secrets.token_hex(15_000))
    data = _git_bundle(tmp_path, [files])
    assert b" refs/heads/main\n" in data
    data = data.replace(b" refs/heads/main\n", b" " + ref + b"\n", 1)
    before = api.get("/v1/memories").json()["commit"]
    response = _import(api, data)
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "invalid_bundle" and "invalid reference" in error["message"]
    assert api.get("/v1/memories").json()["commit"] == before
    assert api.get("/v1/jobs").json()["jobs"] == []


def test_a_20_mb_file_in_a_bundle_is_refused_for_the_per_file_limit_before_queueing(
    api, ns, tmp_path
):
    # A memory whose body runs on for 20 MB; it compresses to a bundle of ~20 KiB.
    big = memory_bytes("A long one.") + b"x" * (20 * 1024 * 1024)
    data = _git_bundle(tmp_path, [{**sample_files(), "facts/misc/huge-00000000.md": big}])
    assert len(data) > 16 * 1024  # so it would have been queued
    response = _import(api, data)
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert error["code"] == "invalid_memory", error  # was a failed job, bundle_too_large
    assert "65536-byte limit for one memory" in error["message"]
    assert api.get("/v1/jobs").json()["jobs"] == []
