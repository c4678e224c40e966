"""A namespace's own export always imports into a fresh namespace (issue 12, item 5).

Driven through the HTTP API after each kind of write: ingestion jobs that create and
rewrite memories (the offline extractor, inline), forgetting a memory other memories
link to, and imports; for both export formats.
"""

import pytest

from tests.support.archives import CAMERA, LENS, TRIP, sample_files, tar_gz

SESSIONS = [
    [
        "I have a three-year-old beagle named Biscuit. Biscuit loves the park in Berlin.",
        "I work at Zalando as a data engineer and my manager is Tom Becker.",
    ],
    ["Quick correction: Biscuit is actually four years old, not three."],
    ["I now report to Sofia Lindqvist at Zalando."],
]


@pytest.fixture
def run_inline(settings, django_capture_on_commit_callbacks):
    settings.GITLOOM_QUEUE_SYNC = True

    def post(api, body):
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post("/v1/memories", body, format="json")
        assert response.status_code == 202, response.json()
        job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
        assert job["status"] == "done", job
        return job

    return post


def _import(api, namespace, data, kind):
    return api.post(
        f"/v1/namespaces/{namespace}/import?format={kind}",
        data,
        content_type="application/octet-stream",
    )


def _files(api, namespace):
    listed = api.get(f"/v1/memories?namespace={namespace}&limit=200").json()["memories"]
    return {
        m["path"]: api.get(f"/v1/memories/{m['path']}?namespace={namespace}").json()["raw"]
        for m in listed
    }


def _round_trips(api, kind, n):
    exported = api.get(f"/v1/namespaces/default/export?format={kind}")
    assert exported.status_code == 200
    fresh = f"fresh-{kind}-{n}"
    assert api.post("/v1/namespaces", {"name": fresh}, format="json").status_code == 201
    response = _import(api, fresh, exported.content, kind)
    assert response.status_code == 201, response.json()
    assert _files(api, fresh) == _files(api, "default")


def _links_to(api, path):
    return [
        source for source, raw in _files(api, "default").items() if path in raw and source != path
    ]


@pytest.mark.parametrize("kind", ["tar", "bundle"])
def test_own_export_imports_after_creates_rewrites_forgets_and_imports(api, run_inline, kind):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    n = 0
    for i, turns in enumerate(SESSIONS):
        messages = [
            {
                "id": f"s{i}-m{j}",
                "role": "user",
                "content": text,
                "timestamp": f"2026-0{i + 3}-01T10:00:00Z",
            }
            for j, text in enumerate(turns)
        ]
        run_inline(api, {"session_id": f"s{i}", "messages": messages})
        n += 1
        _round_trips(api, kind, n)

    # An import whose files link to each other, then forget one that is linked to.
    assert _import(api, "default", tar_gz(sample_files()), "tar").status_code == 201
    n += 1
    _round_trips(api, kind, n)
    assert _links_to(api, LENS) == [CAMERA]
    forgotten = api.delete(f"/v1/memories/{LENS}")
    assert forgotten.status_code == 200
    assert _links_to(api, LENS) == []
    camera = api.get(f"/v1/memories/{CAMERA}").json()
    assert camera["related"] == [] and camera["commit"] == forgotten.json()["commit"]
    history = api.get(f"/v1/memories/{CAMERA}/history").json()["versions"]
    assert history[0]["change"] == "modify" and history[0]["commit"] == camera["commit"]
    n += 1
    _round_trips(api, kind, n)

    # Forget every memory the jobs linked to, one by one; the export stays importable.
    for path in list(_files(api, "default")):
        if path in (CAMERA, TRIP) or not _links_to(api, path):
            continue
        assert api.delete(f"/v1/memories/{path}").status_code == 200
        assert _links_to(api, path) == []
        n += 1
        _round_trips(api, kind, n)
