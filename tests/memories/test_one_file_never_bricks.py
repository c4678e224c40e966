"""One imported file never bricks a namespace (issue 28, item 1).

An import with ``created: 0999-06-01T00:00:00Z`` was stored with an unpadded year that
the reader then refused, so the listing, every page, retrieval and the namespace's own
export failed for every memory in it. Writing now gives four digits and reads back what
it wrote; a file that does not parse (written by an older GitLoom, or brought in with
history) is skipped and reported, never a failure for its neighbours.
"""

import logging

import pytest

from accounts.models import Account
from namespaces import repository
from namespaces.models import Namespace
from tests.support.archives import CAMERA, sample_files, tar_gz

OLD = "facts/history/old-coin-0a0b0c0d.md"
DAWN = "facts/history/dawn-of-time-1a1b1c1d.md"
FAINT = "facts/history/faint-rumour-2a2b2c2d.md"


def _file(created: str, body: str, cue: str) -> bytes:
    return (
        f"---\ntier: facts\ncreated: {created}\nupdated: {created}\ncues:\n  - {cue}\n---\n\n"
        f"{body}\n"
    ).encode()


def _import(api, namespace, data, kind="tar"):
    return api.post(
        f"/v1/namespaces/{namespace}/import?format={kind}",
        data,
        content_type="application/octet-stream",
    )


def _listed(api, namespace):
    response = api.get(f"/v1/memories?namespace={namespace}&limit=200")
    assert response.status_code == 200, response.json()
    return {m["path"] for m in response.json()["memories"]}


def _plant(namespace: Namespace, files: dict[str, bytes]) -> None:
    """Put files in the repository as they are, the way an older GitLoom wrote them."""
    repository.repository_commit(
        prefix=namespace.storage_prefix, apply=lambda _snapshot: files, message="Planted"
    )


@pytest.fixture
def notes(api):
    assert api.post("/v1/namespaces", {"name": "notes"}, format="json").status_code == 201
    return Namespace.objects.get(name="notes")


def test_extreme_dates_are_stored_canonically_and_everything_keeps_working(api, notes):
    files = {
        **sample_files(),
        OLD: _file("0999-06-01T00:00:00Z", "Minted a silver penny in 999.", "silver penny mint"),
        DAWN: _file("0001-01-01T00:00:00-23:59", "The calendar starts here.", "calendar start"),
        # Was written back as "confidence: 1e-05", which YAML reads as a string.
        FAINT: _file("2026-07-31T00:00:00Z", "A faint rumour.", "rumour").replace(
            b"cues:", b"confidence: 0.00001\ncues:"
        ),
    }
    response = _import(api, "notes", tar_gz(files))
    assert response.status_code == 201, response.json()

    assert _listed(api, "notes") == set(files)
    old = api.get(f"/v1/memories/{OLD}?namespace=notes").json()
    assert "created: 0999-06-01T00:00:00Z\n" in old["raw"]
    dawn = api.get(f"/v1/memories/{DAWN}?namespace=notes").json()
    assert "created: 0001-01-01T23:59:00Z\n" in dawn["raw"]  # the same instant, in UTC
    faint = api.get(f"/v1/memories/{FAINT}?namespace=notes").json()
    assert "confidence: 1.0e-05\n" in faint["raw"]

    found = api.get("/v1/retrieve", {"query": "silver penny mint", "namespace": "notes"})
    assert found.status_code == 200
    assert OLD in [r["path"] for r in found.json()["results"]]

    for kind in ("bundle", "tar"):
        exported = api.get(f"/v1/namespaces/notes/export?format={kind}")
        assert exported.status_code == 200
        fresh = f"fresh-{kind}"
        assert api.post("/v1/namespaces", {"name": fresh}, format="json").status_code == 201
        response = _import(api, fresh, exported.content, kind)
        assert response.status_code == 201, response.json()
        assert _listed(api, fresh) == set(files)


def test_a_date_the_reader_cannot_hold_is_refused_at_the_door(api, notes):
    # 9999-12-31T23:59:59-01:00 is in year 10000 once in UTC.
    bad = _file("9999-12-31T23:59:59-01:00", "Too late.", "too late")
    response = _import(api, "notes", tar_gz({**sample_files(), OLD: bad}))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_memory"
    assert _listed(api, "notes") == set()


def test_a_file_an_older_gitloom_wrote_unpadded_is_read(api, notes):
    _plant(notes, {OLD: _file("999-06-01T00:00:00Z", "Minted in 999.", "silver penny")})
    assert _listed(api, "notes") == {OLD}
    exported = api.get("/v1/namespaces/notes/export?format=bundle")
    assert api.post("/v1/namespaces", {"name": "fresh"}, format="json").status_code == 201
    assert _import(api, "fresh", exported.content, "bundle").status_code == 201
    assert _listed(api, "fresh") == {OLD}


def test_an_unreadable_file_is_skipped_and_reported_not_fatal(api, notes, caplog):
    assert _import(api, "notes", tar_gz(sample_files())).status_code == 201
    unreadable = _file("the year 999", "Unreadable.", "unreadable").replace(
        b"cues:", f"related:\n  - same: {CAMERA}\ncues:".encode()
    )
    _plant(notes, {OLD: unreadable})

    with caplog.at_level(logging.WARNING, logger="gitloom.memories"):
        assert _listed(api, "notes") == set(sample_files())
    assert any(OLD in record.getMessage() for record in caplog.records)

    assert api.get(f"/v1/memories/{CAMERA}?namespace=notes").status_code == 200
    assert api.get("/v1/namespaces/notes/export?format=tar").status_code == 200
    found = api.get("/v1/retrieve", {"query": "what camera do I own", "namespace": "notes"})
    assert found.status_code == 200
    assert CAMERA in [r["path"] for r in found.json()["results"]]
    # Forgetting a memory the unreadable file links to still works.
    assert api.delete(f"/v1/memories/{CAMERA}?namespace=notes").status_code == 200


def test_the_dashboard_browser_skips_an_unreadable_file(dashboard):
    from namespaces.services import namespace_create

    namespace = namespace_create(account=Account.objects.get(pk="dash"), name="notes")
    _plant(namespace, {**sample_files(), OLD: _file("the year 999", "Unreadable.", "x")})
    page = dashboard.get("/namespaces/notes/")
    assert page.status_code == 200
    assert CAMERA in page.content.decode()
    assert dashboard.get(f"/namespaces/notes/memories/{CAMERA}").status_code == 200


@pytest.mark.parametrize("field", ["confidence", "tags", "cues"])
def test_an_integer_of_5000_digits_in_front_matter_is_400(api, notes, field):
    # Python refuses int("1" * 5000) (its int-string limit): was a 500 (issue 28, item 5).
    digits = "1" * 5000
    header = {
        "confidence": f"confidence: {digits}\ncues:\n  - q",
        "tags": f"tags: [{digits}]\ncues:\n  - q",
        "cues": f"cues:\n  - {digits}",
    }[field]
    data = (
        "---\ntier: facts\ncreated: 2026-07-31T00:00:00Z\nupdated: 2026-07-31T00:00:00Z\n"
        f"{header}\n---\n\nBody.\n"
    ).encode()
    response = _import(api, "notes", tar_gz({OLD: data}))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_memory"
    assert _listed(api, "notes") == set()
