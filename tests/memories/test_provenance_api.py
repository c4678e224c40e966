"""Provenance through the HTTP API: who wrote each line of a memory (blame), and which
memories changed since a commit (for keeping a copy in sync), on the local object store
and on S3."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from tests.support.archives import CAMERA, LENS, TRIP, memory_bytes, sample_files, tar_gz


@pytest.fixture
def ns(api):
    assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    return "default"


@pytest.fixture
def post_inline(settings, django_capture_on_commit_callbacks):
    """Post a transcript and run its job at once; returns the finished job."""
    settings.GITLOOM_QUEUE_SYNC = True

    def post(api, texts, n, *, ids=True, session=True):
        when = datetime.now(UTC) - timedelta(days=10 - n)
        messages = []
        for i, text in enumerate(texts):
            message = {"role": "user", "content": text, "timestamp": when.isoformat()}
            if ids:
                message["id"] = f"s{n}-m{i}"
            messages.append(message)
        body = {"messages": messages}
        if session:
            body["session_id"] = f"chat-{n}"
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post("/v1/memories", body, format="json")
        job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
        assert job["status"] == "done", job
        return job

    return post


def _import(api, files):
    response = api.post(
        "/v1/namespaces/default/import", tar_gz(files), content_type="application/gzip"
    )
    assert response.status_code in (200, 201), response.json()
    return response.json()["commit"]


def _line_commits(blame) -> list[str]:
    """The commit of each line, in file order, from the hunks."""
    out = []
    for hunk in blame["hunks"]:
        assert hunk["start"] == len(out) + 1
        out += [hunk["commit"]] * len(hunk["lines"])
    return out


def _lines(blame) -> list[str]:
    return [line for hunk in blame["hunks"] for line in hunk["lines"]]


# --- blame -------------------------------------------------------------------------


def test_blame_names_the_job_session_extractor_and_messages_of_each_line(api, ns, post_inline):
    first = post_inline(
        api,
        [
            "I have a three-year-old beagle named Biscuit.",
            "My favourite colour is blue.",
        ],
        0,
    )
    biscuit = next(p for p in first["result"]["created"] if "biscuit" in p)
    fix = post_inline(api, ["Quick correction: Biscuit is actually four years old, not three."], 1)
    assert fix["result"]["rewritten"] == [biscuit]

    response = api.get(f"/v1/memories/{biscuit}/blame")
    assert response.status_code == 200, response.json()
    blame = response.json()
    memory = api.get(f"/v1/memories/{biscuit}").json()
    assert blame["path"] == biscuit and blame["commit"] == fix["commit"]
    assert blame["blob"] == memory["blob"]
    assert _lines(blame) == memory["raw"].split("\n")[:-1]
    assert blame["lines"] == len(_lines(blame))

    by_commit = {c["commit"]: c for c in blame["commits"]}
    assert list(by_commit) == [fix["commit"], first["commit"]]  # newest first
    line_commits = _line_commits(blame)
    body_line = next(
        i for i, line in enumerate(_lines(blame)) if line.startswith("Biscuit is actually four")
    )
    assert line_commits[body_line] == fix["commit"]
    assert line_commits[0] == first["commit"]  # the opening "---" is the first job's

    newer, older = by_commit[fix["commit"]], by_commit[first["commit"]]
    assert newer["action"] == "ingest" and newer["job"]["id"] == fix["id"]
    assert newer["job"]["status"] == "done" and newer["session_id"] == "chat-1"
    assert newer["extractor"] == "offline" and newer["prompt_version"] == fix["prompt_version"]
    assert newer["trailers"]["Gitloom-Job"] == fix["id"]
    assert newer["sources"] == memory["sources"] and "s1-m0" in newer["sources"]
    assert [m["id"] for m in newer["messages"]] == ["s1-m0"]
    assert newer["messages"][0]["content"].startswith("Quick correction: Biscuit")
    assert newer["messages"][0]["role"] == "user"

    assert older["job"]["id"] == first["id"] and older["session_id"] == "chat-0"
    assert older["sources"] == ["s0-m0"]
    assert [m["content"] for m in older["messages"]] == [
        "I have a three-year-old beagle named Biscuit."
    ]


def test_blame_cites_messages_posted_without_ids_by_the_ids_the_job_gave_them(api, ns, post_inline):
    job = post_inline(
        api, ["I have a three-year-old beagle named Biscuit."], 0, ids=False, session=False
    )
    path = job["result"]["created"][0]
    (entry,) = api.get(f"/v1/memories/{path}/blame").json()["commits"]
    assert entry["session_id"] is None
    assert entry["sources"] == [f"{job['id'].replace('-', '')[:8]}-m1"]
    assert [m["id"] for m in entry["messages"]] == entry["sources"]
    assert entry["messages"][0]["name"] is None and entry["messages"][0]["timestamp"]


def test_blame_answers_for_import_and_forget_commits_without_a_job(api, ns):
    first = _import(api, sample_files())
    # Forgetting the lens removes the camera's link to it: a forget commit rewrites it.
    forget = api.delete(f"/v1/memories/{LENS}").json()["commit"]
    changed = sample_files()[CAMERA].replace(b"Bought a Sony", b"Bought a used Sony")
    second = _import(
        api,
        {CAMERA: changed.replace(b"related:\n  - same-purchase: " + LENS.encode() + b"\n", b"")},
    )

    blame = api.get(f"/v1/memories/{CAMERA}/blame").json()
    by_commit = {c["commit"]: c for c in blame["commits"]}
    assert set(by_commit) <= {first, forget, second} and second in by_commit
    body = next(i for i, line in enumerate(_lines(blame)) if "used Sony" in line)
    assert _line_commits(blame)[body] == second
    entry = by_commit[second]
    assert entry["action"] == "import" and entry["job"] is None
    assert entry["trailers"]["Gitloom-Import"] == "tar"
    assert entry["extractor"] is None and entry["messages"] == []
    assert entry["sources"] == ["msg-2041"]
    assert by_commit[first]["action"] == "import"


def test_blame_of_a_missing_or_forgotten_memory_is_memory_not_found(api, ns):
    _import(api, sample_files())
    api.delete(f"/v1/memories/{TRIP}")
    for path in (TRIP, "facts/none/nothing-00000000.md"):
        response = api.get(f"/v1/memories/{path}/blame")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "memory_not_found"
    bad = api.get("/v1/memories/facts/../x.md/blame")
    assert bad.status_code in (400, 404)


def test_blame_follows_the_namespace_rules(api, other_api, ns):
    _import(api, sample_files())
    assert api.get(f"/v1/memories/{CAMERA}/blame?namespace=nope").status_code == 404
    other = other_api.get(f"/v1/memories/{CAMERA}/blame")
    assert other.json()["error"]["code"] == "namespace_not_found"
    assert other_api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
    mine_there = other_api.get(f"/v1/memories/{CAMERA}/blame")
    assert mine_there.json()["error"]["code"] == "memory_not_found"


def test_blame_of_a_file_with_many_versions_carries_unchanged_lines_back(api, ns):
    commits = []
    for version in range(6):
        body = "\n".join(
            f"Line {i} of the diary, version {i if i <= version else 0}." for i in range(6)
        )
        commits.append(
            _import(api, {TRIP: memory_bytes(body, tier="events", cues=["what is in my diary"])})
        )
    blame = api.get(f"/v1/memories/{TRIP}/blame").json()
    lines, owners = _lines(blame), _line_commits(blame)
    for i in range(1, 6):
        at = lines.index(f"Line {i} of the diary, version {i}.")
        assert owners[at] == commits[i]
    assert owners[lines.index("Line 0 of the diary, version 0.")] == commits[0]


def test_blame_of_a_long_repetitive_file_answers_at_once(api, ns):
    """Exact line matching (difflib without its junk heuristic) takes minutes on two
    versions of a few thousand repeated lines, which a 64 KiB memory can hold; the
    matcher is bounded (namespaces/repository/linediff.py)."""
    lines = 1500
    first = _import(
        api, {TRIP: memory_bytes("\n".join(["x"] * lines), tier="events", cues=["diary"])}
    )
    second = _import(
        api,
        {TRIP: memory_bytes("\n".join(["x", "y"] * (lines // 2)), tier="events", cues=["diary"])},
    )
    started = time.perf_counter()
    response = api.get(f"/v1/memories/{TRIP}/blame")
    assert time.perf_counter() - started < 3, "blame took seconds"
    assert response.status_code == 200
    blame = response.json()
    owners = _line_commits(blame)
    assert len(owners) == blame["lines"] > lines and set(owners) <= {first, second}
    assert owners[0] == first  # the unchanged opening line is still the first import's


def test_history_of_a_long_repetitive_file_answers_at_once(api, ns):
    """difflib's unified diff (with its junk heuristic) still takes seconds to minutes on
    thousands of lines that each recur just under its 1% threshold."""
    lines = 8000
    body = "\n".join(f"l{i % 100}" for i in range(lines))
    _import(api, {TRIP: memory_bytes(body, tier="events", cues=["diary"])})
    changed = "\n".join(f"l{(i * 7) % 100}" for i in range(lines))
    _import(api, {TRIP: memory_bytes(changed, tier="events", cues=["diary"])})
    started = time.perf_counter()
    response = api.get(f"/v1/memories/{TRIP}/history")
    assert time.perf_counter() - started < 3, "history took seconds"
    newest, oldest = response.json()["versions"]
    assert newest["change"] == "modify" and oldest["change"] == "add"
    assert newest["diff"].startswith(f"--- a/{TRIP}\n+++ b/{TRIP}\n@@ -")
    added = [line[1:] for line in newest["diff"].splitlines() if line.startswith("+l")]
    assert added and set(added) <= set(changed.splitlines())


# --- changes since a commit --------------------------------------------------------


def _changes(api, **params):
    return api.get("/v1/namespaces/default/changes", params)


def test_changes_since_a_commit_list_added_modified_and_deleted_paths(api, ns):
    start = _import(api, sample_files())
    forget = api.delete(f"/v1/memories/{TRIP}").json()["commit"]
    new_path = "facts/pets/biscuit-beagle-0badcafe.md"
    edited = sample_files()[CAMERA].replace(b"Bought a Sony", b"Bought a used Sony")
    last = _import(api, {CAMERA: edited, new_path: memory_bytes("Biscuit is a beagle.")})

    response = _changes(api, since=start)
    assert response.status_code == 200, response.json()
    page = response.json()
    assert page["since"] == start and page["commit"] == last and page["next_cursor"] is None
    changes = {c["path"]: c for c in page["changes"]}
    assert [c["path"] for c in page["changes"]] == sorted(changes)
    assert changes[TRIP]["change"] == "delete" and changes[TRIP]["blob"] is None
    assert changes[TRIP]["commit"] == forget and changes[TRIP]["action"] == "forget"
    assert changes[CAMERA]["change"] == "modify" and changes[CAMERA]["commit"] == last
    assert changes[CAMERA]["blob"] == api.get(f"/v1/memories/{CAMERA}").json()["blob"]
    assert changes[new_path]["change"] == "add" and changes[new_path]["action"] == "import"
    assert changes[new_path]["job"] is None
    # The forget also rewrote the lens (its link to the trip went): touched last there.
    if LENS in changes:
        assert changes[LENS]["commit"] == forget

    assert _changes(api, since=last).json()["changes"] == []
    everything = _changes(api).json()
    assert everything["since"] is None
    assert {c["path"] for c in everything["changes"]} == {CAMERA, LENS, new_path}
    assert {c["change"] for c in everything["changes"]} == {"add"}


def test_changes_name_the_job_that_last_touched_each_path(api, ns, post_inline):
    start = (
        api.get("/v1/namespaces/default").json()["head_commit"] or _changes(api).json()["commit"]
    )
    job = post_inline(api, ["I have a three-year-old beagle named Biscuit."], 0)
    (change,) = _changes(api, since=start).json()["changes"]
    assert change["job"] == job["id"] and change["action"] == "ingest"
    assert change["commit"] == job["commit"]


def test_changes_page_with_a_cursor_pinned_to_the_first_pages_head(api, ns):
    start = _changes(api).json()["commit"]
    files = {f"facts/topic/item-{i:02d}.md": memory_bytes(f"Fact number {i}") for i in range(7)}
    _import(api, files)
    first = _changes(api, since=start, limit=3).json()
    assert len(first["changes"]) == 3 and first["next_cursor"]
    # The namespace moves on between pages: later pages still answer for `commit`.
    _import(api, {"facts/topic/item-99.md": memory_bytes("A later fact")})
    seen, cursor = [c["path"] for c in first["changes"]], first["next_cursor"]
    while cursor:
        page = _changes(api, since=start, limit=3, cursor=cursor).json()
        assert page["commit"] == first["commit"]
        seen += [c["path"] for c in page["changes"]]
        cursor = page["next_cursor"]
    assert seen == sorted(files)
    later = _changes(api, since=first["commit"]).json()
    assert [c["path"] for c in later["changes"]] == ["facts/topic/item-99.md"]


@pytest.mark.parametrize(
    "params,status,code",
    [
        ({"since": "abc"}, 400, "invalid_commit"),
        ({"since": "g" * 40}, 400, "invalid_commit"),
        ({"since": "0" * 40}, 410, "commit_not_in_history"),
        ({"limit": "0"}, 400, "invalid"),
        ({"cursor": "nonsense"}, 400, "invalid"),
        ({"cursor": "0" * 40 + ":facts/a.md"}, 400, "invalid"),
    ],
)
def test_changes_refuse_bad_input_clearly(api, ns, params, status, code):
    _import(api, sample_files())
    response = _changes(api, **params)
    assert response.status_code == status, response.json()
    assert response.json()["error"]["code"] == code


def test_a_changes_cursor_is_good_only_for_the_listing_it_was_handed_out_for(api, ns):
    """A cursor pins a commit; a made-up, edited or borrowed one is 400, never a listing
    up to a commit of the caller's choosing nor a 410 that would send it to re-sync."""
    start = _changes(api).json()["commit"]
    files = {f"facts/topic/item-{i:02d}.md": memory_bytes(f"Fact number {i}") for i in range(5)}
    middle = _import(api, files)
    last = _import(api, {"facts/topic/item-99.md": memory_bytes("A later fact")})
    first = _changes(api, since=start, limit=2).json()
    cursor = first["next_cursor"]
    assert first["commit"] == last and cursor

    assert api.post("/v1/namespaces", {"name": "second"}, format="json").status_code == 201
    api.post("/v1/namespaces/second/import", tar_gz(files), content_type="application/gzip")
    forged = []
    # The same position pinned to an earlier commit, as the old "<commit>:<path>" form.
    forged.append({"since": start, "cursor": f"{middle}:{first['changes'][-1]['path']}"})
    # The real cursor with a character changed, or given with another since.
    forged.append({"since": start, "cursor": cursor[:-1] + ("A" if cursor[-1] != "A" else "B")})
    forged.append({"since": middle, "cursor": cursor})
    forged.append({"cursor": cursor})
    for params in forged:
        response = _changes(api, limit=2, **params)
        assert response.status_code == 400, (params, response.json())
        assert response.json()["error"]["code"] == "invalid"
    # Another namespace of the same account: its own cursor is refused.
    borrowed = api.get("/v1/namespaces/second/changes", {"since": start, "cursor": cursor})
    assert borrowed.status_code == 400 and borrowed.json()["error"]["code"] == "invalid"
    # The genuine cursor still works, and gives the same page asked twice.
    again = _changes(api, since=start, limit=2, cursor=cursor).json()
    assert again == _changes(api, since=start, limit=2, cursor=cursor).json()
    assert again["commit"] == last and [c["path"] for c in again["changes"]] == sorted(files)[2:4]


def test_changes_since_another_namespaces_commit_is_gone(api, ns):
    assert api.post("/v1/namespaces", {"name": "other"}, format="json").status_code == 201
    theirs = api.post(
        "/v1/namespaces/other/import",
        tar_gz({TRIP: memory_bytes("Only in the other namespace.", tier="events")}),
        content_type="application/gzip",
    ).json()["commit"]
    _import(api, sample_files())
    response = _changes(api, since=theirs)
    assert response.status_code == 410
    assert "export" in response.json()["error"]["message"]


def test_changes_follow_the_namespace_rules(api, other_api, ns):
    assert other_api.get("/v1/namespaces/default/changes").status_code == 404
    assert api.get("/v1/namespaces/nope/changes").json()["error"]["code"] == "namespace_not_found"


# --- the same on S3 ----------------------------------------------------------------


def test_blame_and_changes_on_s3(api, s3_store, post_inline):
    from namespaces.storage import using_object_store

    with using_object_store(s3_store):
        assert api.post("/v1/namespaces", {"name": "default"}, format="json").status_code == 201
        start = _changes(api).json()["commit"]
        first = post_inline(api, ["I have a three-year-old beagle named Biscuit."], 0)
        path = first["result"]["created"][0]
        fix = post_inline(
            api, ["Quick correction: Biscuit is actually four years old, not three."], 1
        )
        blame = api.get(f"/v1/memories/{path}/blame").json()
        assert [c["commit"] for c in blame["commits"]] == [fix["commit"], first["commit"]]
        assert blame["commits"][0]["messages"][0]["id"] == "s1-m0"
        page = _changes(api, since=start).json()
        assert page["commit"] == fix["commit"]
        assert [(c["path"], c["change"], c["job"]) for c in page["changes"]] == [
            (path, "add", fix["id"])
        ]
        assert _changes(api, since="f" * 40).status_code == 410


def test_blame_and_changes_answer_for_a_revert_commit(api, ns, post_inline):
    first = post_inline(api, ["I have a three-year-old beagle named Biscuit."], 0)
    path = first["result"]["created"][0]
    fix = post_inline(api, ["Quick correction: Biscuit is actually four years old, not three."], 1)
    assert fix["result"]["rewritten"] == [path]
    response = api.post(f"/v1/jobs/{fix['id']}/revert", {}, format="json")
    assert response.status_code == 201, response.json()
    revert = response.json()["commit"]

    blame = api.get(f"/v1/memories/{path}/blame").json()
    by_commit = {c["commit"]: c for c in blame["commits"]}
    assert fix["commit"] not in by_commit  # every line it wrote was undone
    assert set(by_commit) <= {first["commit"], revert}
    if revert in by_commit:  # lines the revert restored (e.g. `updated:`) are its own
        entry = by_commit[revert]
        assert entry["action"] == "revert" and entry["job"] is None
        assert entry["trailers"]["Gitloom-Reverts"] == fix["id"] and entry["messages"] == []
    body = next(i for i, line in enumerate(_lines(blame)) if "beagle named Biscuit" in line)
    assert "three-year-old" in _lines(blame)[body]

    (change,) = _changes(api, since=fix["commit"]).json()["changes"]
    assert (change["path"], change["change"], change["commit"]) == (path, "modify", revert)
    assert change["action"] == "revert" and change["job"] is None


def test_a_full_listing_pages_through_every_file_in_path_order():
    """Git's tree order (a folder sorts as its name and '/') is path order, so a page
    of a full listing reads only its own files, skipping whole folders before it."""
    from namespaces import repository

    prefix = "acme#listing/"
    repository.repository_init(prefix=prefix)
    paths = [
        "a-b/y.md",
        "a/b/c.md",
        "a/x.md",
        "a/x.md0/deep.md",
        "a0/z.md",
        "ab.md",
        "b/c/d/e.md",
        "b/c-d.md",
        "b/c/f.md",
    ]
    repository.repository_commit(
        prefix=prefix, apply=lambda _s: {p: p.encode() for p in paths}, message="files"
    )
    for limit in (1, 2, 3, 100):
        seen, after, until = [], None, None
        while True:
            page = repository.repository_changes(
                prefix=prefix, since=None, until=until, after=after, limit=limit
            )
            assert len(page.changes) <= limit
            seen += [change.path for change in page.changes]
            if not page.more:
                break
            after, until = page.changes[-1].path, page.commit
        assert seen == sorted(paths), limit
