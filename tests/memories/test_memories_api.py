import subprocess
import tarfile

import pytest

from tests.support.archives import CAMERA, LENS, TRIP, memory_bytes, sample_files, tar_gz


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    return "default"


def _import(api, data, namespace="default", **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return api.post(
        f"/v1/namespaces/{namespace}/import" + (f"?{query}" if query else ""),
        data,
        content_type="application/gzip",
    )


def _head(api, namespace="default"):
    return api.get(f"/v1/memories?namespace={namespace}").json()["commit"]


def test_imported_memories_are_listed_and_filtered(api, ns):
    response = _import(api, tar_gz(sample_files()))
    assert response.status_code == 201, response.json()
    assert sorted(response.json()["created"]) == sorted([CAMERA, LENS, TRIP])

    listed = api.get("/v1/memories").json()
    assert [m["path"] for m in listed["memories"]] == sorted([CAMERA, LENS, TRIP])
    assert listed["commit"] == response.json()["commit"]
    camera = next(m for m in listed["memories"] if m["path"] == CAMERA)
    assert camera["tier"] == "facts" and camera["tags"] == ["camera", "purchase"]
    assert camera["cues"] == ["what camera do I own", "Sony A7III purchase"]
    assert len(camera["blob"]) == 40

    assert [m["path"] for m in api.get("/v1/memories?tier=events").json()["memories"]] == [TRIP]
    lens_tagged = api.get("/v1/memories?tag=lens").json()["memories"]
    assert [m["path"] for m in lens_tagged] == [LENS]


def test_list_is_paginated_with_a_cursor(api, ns):
    files = {f"facts/topic/item-{i:02d}.md": memory_bytes(f"Fact number {i}") for i in range(7)}
    _import(api, tar_gz(files))
    seen, cursor = [], None
    while True:
        url = "/v1/memories?limit=3" + (f"&cursor={cursor}" if cursor else "")
        page = api.get(url).json()
        seen += [m["path"] for m in page["memories"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == sorted(files)


def test_one_memory_has_header_body_raw_blob_and_commit(api, ns):
    commit = _import(api, tar_gz(sample_files())).json()["commit"]
    body = api.get(f"/v1/memories/{CAMERA}").json()
    assert body["path"] == CAMERA and body["commit"] == commit
    assert body["body"].startswith("Bought a Sony A7III")
    assert body["raw"].encode() == sample_files()[CAMERA]
    assert body["related"] == [{"type": "same-purchase", "path": LENS}]
    assert body["sources"] == ["msg-2041"]
    assert body["created"] == "2026-07-31T00:00:00Z"


def test_history_shows_each_version_with_a_diff(api, ns):
    _import(api, tar_gz(sample_files()))
    changed = sample_files()
    changed[TRIP] = memory_bytes(
        "Flew to Lisbon on 2026-09-02 and stayed at the Pestana Palace.",
        tier="events",
        cues=["when did I go to Lisbon", "Lisbon hotel"],
        tags=["travel"],
    )
    second = _import(api, tar_gz({TRIP: changed[TRIP]})).json()
    versions = api.get(f"/v1/memories/{TRIP}/history").json()["versions"]
    assert [v["change"] for v in versions] == ["modify", "add"]
    assert versions[0]["commit"] == second["commit"]
    assert (
        "-Flew to Lisbon on 2026-09-02 and stayed at the Hotel Avenida Palace."
        in (versions[0]["diff"])
    )
    assert "+Flew to Lisbon on 2026-09-02 and stayed at the Pestana Palace." in versions[0]["diff"]
    assert versions[0]["trailers"]["Gitloom-Import"] == "tar"


def test_forgetting_removes_the_file_but_history_keeps_it(api, ns):
    _import(api, tar_gz(sample_files()))
    response = api.delete(f"/v1/memories/{TRIP}")
    assert response.status_code == 200 and response.json()["deleted"] is True
    gone = api.get(f"/v1/memories/{TRIP}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "memory_not_found"
    assert [v["change"] for v in api.get(f"/v1/memories/{TRIP}/history").json()["versions"]] == [
        "delete",
        "add",
    ]
    again = api.delete(f"/v1/memories/{TRIP}")
    assert again.status_code == 404


def test_exported_bundle_clones_with_git_and_fscks_clean(api, ns, tmp_path):
    _import(api, tar_gz(sample_files()))
    api.delete(f"/v1/memories/{TRIP}")
    response = api.get("/v1/namespaces/default/export?format=bundle")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-git-bundle"
    bundle = tmp_path / "default.bundle"
    bundle.write_bytes(response.content)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(bundle), str(clone)], check=True)
    fsck = subprocess.run(
        ["git", "-C", str(clone), "fsck", "--full", "--strict"], capture_output=True, text=True
    )
    assert fsck.returncode == 0, fsck.stderr
    log = subprocess.run(
        ["git", "-C", str(clone), "log", "--format=%s"], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert log[0] == f"Forget {TRIP}" and len(log) == 3
    files = sorted(p.relative_to(clone).as_posix() for p in clone.rglob("*.md"))
    assert files == sorted([CAMERA, LENS])
    for path in files:
        assert (clone / path).read_text() == api.get(f"/v1/memories/{path}").json()["raw"]


def test_exported_tar_holds_the_markdown_tree(api, ns, tmp_path):
    _import(api, tar_gz(sample_files()))
    response = api.get("/v1/namespaces/default/export?format=tar")
    archive = tmp_path / "export.tar.gz"
    archive.write_bytes(response.content)
    with tarfile.open(archive) as tar:
        names = sorted(m.name for m in tar.getmembers() if m.isfile())
        assert names == sorted(sample_files())
        assert tar.extractfile(CAMERA).read() == sample_files()[CAMERA]


def test_bundle_round_trips_into_a_new_namespace(api, ns):
    _import(api, tar_gz(sample_files()))
    bundle = api.get("/v1/namespaces/default/export?format=bundle").content
    api.post("/v1/namespaces", {"name": "copy"}, format="json")
    response = api.post(
        "/v1/namespaces/copy/import", bundle, content_type="application/x-git-bundle"
    )
    assert response.status_code == 201, response.json()
    original = api.get("/v1/memories").json()
    copied = api.get("/v1/memories?namespace=copy").json()
    assert copied["memories"] == original["memories"]


def test_a_v3_bundle_made_by_git_imports_without_naming_its_format(api, ns, tmp_path):
    # git writes a v3 bundle when asked; the import tells it from a tar by its header alone.
    repo = tmp_path / "repo"
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    for path, data in sample_files().items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(data)
    subprocess.run([*git, "add", "-A"], check=True, env=env)
    subprocess.run([*git, "commit", "-q", "-m", "Memories kept by hand"], check=True, env=env)
    bundle = tmp_path / "v3.bundle"
    subprocess.run(
        [*git, "bundle", "create", "-q", "--version=3", str(bundle), "--all"], check=True, env=env
    )
    data = bundle.read_bytes()
    assert data.startswith(b"# v3 git bundle\n")

    response = api.post(
        "/v1/namespaces/default/import", data, content_type="application/octet-stream"
    )
    assert response.status_code == 201, response.json()
    listed = api.get("/v1/memories").json()
    assert [m["path"] for m in listed["memories"]] == sorted(sample_files())
    assert listed["commit"] == response.json()["commit"]
    for path, data in sample_files().items():
        assert api.get(f"/v1/memories/{path}").json()["raw"] == data.decode()


def _bad_link_files():
    files = sample_files()
    files["facts/misc/dangling-00000000.md"] = memory_bytes(
        "Points nowhere.", related=[("about", "facts/misc/missing-11111111.md")]
    )
    return files


def _symlink():
    info = tarfile.TarInfo("facts/misc/link.md")
    info.type = tarfile.SYMTYPE
    info.linkname = "/etc/passwd"
    return info


@pytest.mark.parametrize(
    "archive,code",
    [
        (lambda: tar_gz({"../escape.md": memory_bytes("x")}), "invalid_path"),
        (lambda: tar_gz({"/abs/facts/x.md": memory_bytes("x")}), "invalid_path"),
        (lambda: tar_gz({"secrets/a/b.md": memory_bytes("x")}), "invalid_path"),
        (lambda: tar_gz({"facts/a#b/c.md": memory_bytes("x")}), "invalid_path"),
        (lambda: tar_gz(sample_files(), extra=[_symlink()]), "invalid_archive"),
        (lambda: tar_gz(_bad_link_files()), "invalid_memory"),
        (
            lambda: tar_gz({"facts/a/bomb.md": b"---\na: &a [x, x]\nb: *a\n---\n\nboom\n"}),
            "invalid_memory",
        ),
        (
            lambda: tar_gz({"facts/a/obj.md": b"---\ntier: !!python/object:os.system x\n---\n"}),
            "invalid_memory",
        ),
        (lambda: tar_gz({"facts/a/big.md": b"x" * 70_000}), "invalid_memory"),
        (lambda: b"this is not an archive", "invalid_archive"),
        (lambda: tar_gz({}), "invalid_archive"),
    ],
)
def test_hostile_imports_are_refused_and_write_nothing(api, ns, archive, code):
    standalone = memory_bytes("Bought a Sony A7III.", cues=["what camera do I own"])
    assert _import(api, tar_gz({CAMERA: standalone})).status_code == 201
    before = _head(api)
    response = _import(api, archive())
    assert response.status_code == 400, response.json()
    assert response.json()["error"]["code"] == code
    assert _head(api) == before
    assert [m["path"] for m in api.get("/v1/memories").json()["memories"]] == [CAMERA]


@pytest.mark.parametrize(
    "path",
    [
        "../../etc/passwd",
        "facts/a/..%2F..%2Fx.md",
        "facts/a/b%00.md",
        "facts/a%23b/c.md",  # a "#" sent as such (a bare one would start a URL fragment)
        "x.md",
    ],
)
def test_hostile_memory_paths_are_400(api, ns, path):
    _import(api, tar_gz(sample_files()))
    before = _head(api)
    for response in (api.get(f"/v1/memories/{path}"), api.delete(f"/v1/memories/{path}")):
        assert response.status_code == 400, response.json()
        assert response.json()["error"]["code"] == "invalid_path"
    assert _head(api) == before


def test_bad_list_parameters_are_400(api, ns):
    assert api.get("/v1/memories?tier=secrets").json()["error"]["code"] == "invalid_tier"
    assert api.get("/v1/memories?limit=0").status_code == 400
    assert api.get("/v1/memories?limit=abc").status_code == 400
    assert api.get("/v1/namespaces/default/export?format=zip").status_code == 400


def test_missing_default_namespace_is_404(api):
    for response in (
        api.get("/v1/memories"),
        api.get(f"/v1/memories/{CAMERA}"),
        api.post("/v1/memories", {"messages": [{"role": "user", "content": "hi"}]}, format="json"),
    ):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "namespace_not_found"


def test_another_accounts_namespace_is_404_on_every_memory_route(api, other_api, ns):
    _import(api, tar_gz(sample_files()))
    other_api.post("/v1/namespaces", {"name": "default"}, format="json")
    routes = [
        ("get", "/v1/memories?namespace=default&tier=facts"),
        ("get", f"/v1/memories/{CAMERA}"),
        ("get", f"/v1/memories/{CAMERA}/history"),
        ("delete", f"/v1/memories/{CAMERA}"),
    ]
    for method, route in routes:
        response = getattr(other_api, method)(route)
        # Their own `default` exists but is empty: they never see acme's memories.
        if route.startswith("/v1/memories?"):
            assert response.json()["memories"] == []
        else:
            assert response.status_code == 404, route
    for method, route in [
        ("get", "/v1/memories?namespace=private"),
        ("get", "/v1/namespaces/private/export"),
        ("post", "/v1/namespaces/private/import"),
        ("get", "/v1/jobs?namespace=private"),
    ]:
        api.post("/v1/namespaces", {"name": "private"}, format="json")
        response = getattr(other_api, method)(route)
        assert response.status_code == 404, route
        assert response.json()["error"]["code"] == "namespace_not_found"
    assert api.get(f"/v1/memories/{CAMERA}").status_code == 200
