"""Bundle imports: every version in the bundle's history is validated, and importing the
same bundle again changes nothing (no empty commit)."""

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


def _import(api, data):
    return api.post("/v1/namespaces/default/import", data, content_type="application/x-git-bundle")


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
    first = _import(api, data)
    assert first.status_code == 201, first.json()
    # ...and importing it again finds nothing to do.
    again = _import(api, data)
    assert again.status_code == 200, again.json()
    body = again.json()
    assert body["commit"] == first.json()["commit"]
    assert body["created"] == body["modified"] == body["deleted"] == []
    assert len(_history(api, CAMERA)) == 1
