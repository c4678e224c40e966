"""The memory browser, one memory with its header, raw markdown and history, forgetting,
jobs, and export/import — all from the dashboard, through the real repository, index
and job services."""

from __future__ import annotations

import io
import re
import tarfile

import pytest

from memories.selectors import memory_list
from namespaces.services import namespace_create
from tests.fixtures_browser import *  # noqa: F403
from tests.fixtures_browser import csrf_post
from tests.support.archives import CAMERA, LENS, TRIP, memory_bytes, sample_files, tar_gz

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_store")]


def account_of(user):
    return user.memberships.get().account


@pytest.fixture
def notes(person):
    return namespace_create(account=account_of(person), name="notes")


def upload(page_client, data: bytes, *, fmt: str = "tar", namespace: str = "notes"):
    archive = io.BytesIO(data)
    archive.name = "memories.tar.gz" if fmt == "tar" else "notes.bundle"
    return csrf_post(
        page_client, f"/namespaces/{namespace}/data/", {"archive": archive, "format": fmt}
    )


@pytest.fixture
def imported(page_client, notes):
    response = upload(page_client, tar_gz(sample_files()))
    assert response.status_code == 302, response.content
    return notes


def test_importing_a_tar_from_the_page_fills_the_browser(page_client, notes):
    response = upload(page_client, tar_gz(sample_files()))
    assert response.status_code == 302
    assert response["Location"] == "/namespaces/notes/"
    page = page_client.get("/namespaces/notes/")
    assert "3 new, 0 changed, 0 removed" in page.text
    # The tree by tier and topic, each memory linked by its path.
    for heading in ("facts", "camera-gear", "events", "travel"):
        assert f">{heading}</div>" in page.text
    for path in (CAMERA, LENS, TRIP):
        assert f'href="/namespaces/notes/memories/{path}"' in page.text
    assert "Bought a Sony A7III" in page.text


def test_the_browser_filters_by_tier_and_tag(page_client, imported):
    events = page_client.get("/namespaces/notes/", {"tier": "events"})
    assert TRIP in events.text and CAMERA not in events.text
    lens = page_client.get("/namespaces/notes/", {"tag": "lens"})
    assert LENS in lens.text and CAMERA not in lens.text
    bad = page_client.get("/namespaces/notes/", {"tier": "nonsense"})
    assert bad.status_code == 400
    assert "pick a tier from the list" in bad.text


def test_one_memory_shows_its_header_links_and_raw_markdown(page_client, imported):
    page = page_client.get(f"/namespaces/notes/memories/{CAMERA}")
    assert page.status_code == 200
    text = page.text
    assert "Bought a Sony A7III on 2026-07-31" in text
    for shown in ("what camera do I own", "Sony A7III purchase", "msg-2041", "0.9", "camera"):
        assert shown in text
    # `related` navigates to the linked memory's page.
    assert f'href="/namespaces/notes/memories/{LENS}"' in text
    assert page_client.get(f"/namespaces/notes/memories/{LENS}").status_code == 200
    # The raw markdown, exactly as stored (escaped for HTML).
    assert "tier: facts" in text and "same-purchase: " in text
    assert page.context["raw"] == sample_files()[CAMERA].decode()


def test_history_shows_each_version_with_a_coloured_diff(page_client, imported):
    changed = memory_bytes(
        "Bought a Sony A7III on 2026-07-31 from Fotocentre; sold it in 2027.",
        cues=["what camera do I own"],
        tags=["camera"],
    )
    assert upload(page_client, tar_gz({CAMERA: changed})).status_code == 302
    page = page_client.get(f"/namespaces/notes/history/{CAMERA}")
    assert page.status_code == 200
    assert "2 versions" in page.text
    assert "rewritten" in page.text and "created" in page.text
    # The words the rewrite changed are marked; without the marks, the lines read whole.
    assert "<mark>" in page.text
    text = re.sub(r"</?mark>", "", page.text)
    assert re.search(r'<div class="add">.*sold it in 2027', text)
    assert re.search(r'<div class="del">.*for ₹142,000', text)


def test_forgetting_asks_first_then_the_memory_is_gone_but_its_history_stays(page_client, imported):
    confirm = page_client.get(f"/namespaces/notes/forget/{TRIP}")
    assert confirm.status_code == 200
    assert "Forget this memory" in confirm.text
    response = csrf_post(page_client, f"/namespaces/notes/forget/{TRIP}")
    assert response.status_code == 302
    browser = page_client.get("/namespaces/notes/").text
    assert f"Forgot {TRIP}" in browser
    assert f'href="/namespaces/notes/memories/{TRIP}"' not in browser
    gone = page_client.get(f"/namespaces/notes/memories/{TRIP}")
    assert gone.status_code == 404
    assert "This memory was forgotten" in gone.text
    assert f"/namespaces/notes/history/{TRIP}" in gone.text
    history = page_client.get(f"/namespaces/notes/history/{TRIP}")
    assert "forgotten" in history.text


def test_a_memory_that_never_existed_is_a_plain_404(page_client, imported):
    page = page_client.get("/namespaces/notes/memories/facts/nothing/here-00000000.md")
    assert page.status_code == 404
    assert "Memory not found." in page.text


@pytest.mark.parametrize("path", ["../../etc/passwd", "facts/../x.md", "FACTS/a/b.md", "a"])
def test_hostile_memory_paths_are_a_readable_400(page_client, imported, path):
    page = page_client.get(f"/namespaces/notes/memories/{path}")
    assert page.status_code in (400, 404)
    assert "Traceback" not in page.text


def test_a_bad_archive_is_explained_beside_the_field_and_writes_nothing(page_client, notes):
    before = memory_list(namespace=notes).commit
    response = upload(page_client, b"this is not a tarball")
    assert response.status_code == 400
    assert "The upload is not a tar.gz archive." in response.text
    assert memory_list(namespace=notes).commit == before


def test_an_archive_with_a_broken_file_is_refused_whole(page_client, notes):
    files = sample_files()
    files["facts/misc/broken-00000000.md"] = b"---\ntier: facts\n---\n"
    response = upload(page_client, tar_gz(files))
    assert response.status_code == 400
    assert "errors" in response.text
    assert memory_list(namespace=notes).items == []


def test_import_without_the_csrf_token_is_refused(page_client, notes):
    archive = io.BytesIO(tar_gz(sample_files()))
    archive.name = "m.tar.gz"
    response = page_client.post("/namespaces/notes/data/", {"archive": archive, "format": "tar"})
    assert response.status_code == 403
    assert memory_list(namespace=notes).items == []


def test_export_downloads_the_files_and_the_bundle(page_client, imported):
    tar = page_client.get("/namespaces/notes/data/", {"format": "tar"})
    assert tar.status_code == 200
    assert tar["Content-Disposition"] == 'attachment; filename="notes.tar.gz"'
    with tarfile.open(fileobj=io.BytesIO(tar.content), mode="r:gz") as archive:
        names = {member.name.removeprefix("./") for member in archive if member.isfile()}
    assert {CAMERA, LENS, TRIP} <= names

    bundle = page_client.get("/namespaces/notes/data/", {"format": "bundle"})
    assert bundle.status_code == 200
    assert bundle.content.startswith(b"# v2 git bundle")

    bad = page_client.get("/namespaces/notes/data/", {"format": "zip"})
    assert bad.status_code == 400
    assert "Export format is" in bad.text


def test_a_bundle_exported_from_one_namespace_imports_into_another(page_client, person, imported):
    bundle = page_client.get("/namespaces/notes/data/", {"format": "bundle"}).content
    namespace_create(account=account_of(person), name="copy")
    response = upload(page_client, bundle, fmt="bundle", namespace="copy")
    assert response.status_code == 302
    assert CAMERA in page_client.get("/namespaces/copy/").text
    assert page_client.get(f"/namespaces/copy/history/{CAMERA}").status_code == 200


# --- jobs --------------------------------------------------------------------------


def _accept(person, text: str):
    from memories.services import job_accept
    from namespaces.selectors import namespace_get_for_account

    job, _ = job_accept(
        namespace=namespace_get_for_account(account=account_of(person), name="notes"),
        messages=[{"role": "user", "content": text, "id": "m1"}],
        session_id="s-1",
    )
    return job


def test_jobs_list_their_status_commit_and_the_memories_they_touched(page_client, person, notes):
    from memories.jobs import job_run

    job = job_run(
        job=_accept(person, "I bought a Fujifilm X100V camera in Tokyo for 1200 dollars.")
    )
    assert job.status == "done" and job.commit

    listing = page_client.get("/namespaces/notes/jobs/")
    assert listing.status_code == 200
    assert str(job.public_id)[:8] in listing.text
    assert "Done" in listing.text
    assert job.commit[:10] in listing.text

    detail = page_client.get(f"/namespaces/notes/jobs/{job.public_id}/")
    assert detail.status_code == 200
    assert job.commit in detail.text
    created = job.result["created"]
    assert created
    for path in created:
        assert f'href="/namespaces/notes/memories/{path}"' in detail.text
        assert page_client.get(f"/namespaces/notes/memories/{path}").status_code == 200


def test_a_memory_page_shows_each_lines_job_and_the_messages_that_produced_it(
    page_client, person, notes
):
    from memories.jobs import job_run

    job = job_run(
        job=_accept(person, "I bought a Fujifilm X100V camera in Tokyo for 1200 dollars.")
    )
    path = job.result["created"][0]
    page = page_client.get(f"/namespaces/notes/memories/{path}")
    assert page.status_code == 200
    section = page.text[page.text.index('id="blame-title"') :]
    # line -> job (a link to its page) -> the message it came from
    assert "1–" in section and "Fujifilm X100V" in section
    assert f'href="/namespaces/notes/jobs/{job.public_id}/"' in section
    assert job.commit[:10] in section
    assert "<code>m1</code>" in section and "I bought a Fujifilm X100V camera in Tokyo" in section
    assert "extractor <code>offline</code>" in section and "session <code>s-1</code>" in section
    job_page = page_client.get(f"/namespaces/notes/jobs/{job.public_id}/").text
    assert "<code>m1</code>" in job_page and "I bought a Fujifilm X100V camera" in job_page

    # A later import rewrites the body: that line is the import's, the rest the job's.
    raw = page_client.get(f"/namespaces/notes/memories/{path}").context["raw"]
    changed = raw.replace("Fujifilm X100V", "Fujifilm X100VI")
    assert upload(page_client, tar_gz({path: changed.encode()})).status_code == 302
    section = page_client.get(f"/namespaces/notes/memories/{path}").text
    section = section[section.index('id="blame-title"') :]
    assert '<span class="badge">import</span>' in section
    assert f'href="/namespaces/notes/jobs/{job.public_id}/"' in section


def test_a_failed_job_shows_its_error_in_words(page_client, person, notes, settings):
    from memories.jobs import job_run

    settings.GITLOOM_LLM_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens there
    settings.GITLOOM_LLM_MODEL = "any"
    settings.GITLOOM_LLM_MAX_RETRIES = 0
    job = job_run(job=_accept(person, "I moved to Lisbon in May."))
    assert job.status == "failed"
    detail = page_client.get(f"/namespaces/notes/jobs/{job.public_id}/")
    assert "It failed:" in detail.text
    assert job.error_message in detail.text
    assert job.error_message in page_client.get("/namespaces/notes/jobs/").text
    assert "Traceback" not in detail.text


def test_a_job_is_only_shown_under_its_own_namespace(page_client, person, notes):
    job = _accept(person, "I like green tea.")
    namespace_create(account=account_of(person), name="elsewhere")
    assert page_client.get(f"/namespaces/notes/jobs/{job.public_id}/").status_code == 200
    wrong = page_client.get(f"/namespaces/elsewhere/jobs/{job.public_id}/")
    assert wrong.status_code == 404
    assert "Job not found." in wrong.text
    assert page_client.get("/namespaces/notes/jobs/not-a-uuid/").status_code == 404


# --- another account's namespace ---------------------------------------------------


def test_no_memory_page_reads_or_changes_another_accounts_namespace(
    page_client, other_person, person
):
    from memories.services import memory_import

    theirs = namespace_create(account=account_of(other_person), name="notes")
    memory_import(namespace=theirs, data=tar_gz(sample_files()))
    job = _accept_for(other_person)
    reads = [
        "/namespaces/notes/",
        f"/namespaces/notes/memories/{CAMERA}",
        f"/namespaces/notes/history/{CAMERA}",
        f"/namespaces/notes/forget/{CAMERA}",
        "/namespaces/notes/jobs/",
        f"/namespaces/notes/jobs/{job.public_id}/",
        "/namespaces/notes/data/",
        "/namespaces/notes/data/?format=bundle",
        "/namespaces/notes/data/?format=tar",
        "/namespaces/notes/retrieve/?query=camera",
    ]
    for url in reads:
        response = page_client.get(url)
        assert response.status_code == 404, url
        assert "Namespace not found." in response.text, url
        assert "Sony" not in response.text, url

    forget = csrf_post(page_client, f"/namespaces/notes/forget/{CAMERA}", page="/namespaces/")
    assert forget.status_code == 404
    archive = io.BytesIO(tar_gz({TRIP: memory_bytes("Planted", tier="events")}))
    archive.name = "x.tar.gz"
    imported = csrf_post(
        page_client,
        "/namespaces/notes/data/",
        {"archive": archive, "format": "tar"},
        page="/namespaces/",
    )
    assert imported.status_code == 404
    # Their namespace is exactly as it was.
    assert {item.path for item in memory_list(namespace=theirs).items} == set(sample_files())


def _accept_for(user):
    from memories.services import job_accept
    from namespaces.selectors import namespace_get_for_account

    job, _ = job_accept(
        namespace=namespace_get_for_account(account=account_of(user), name="notes"),
        messages=[{"role": "user", "content": "I like green tea.", "id": "m1"}],
    )
    return job


def test_an_object_storage_outage_is_a_503_page_in_words(page_client, notes, tmp_path, monkeypatch):
    from namespaces.storage import S3ObjectStore, using_object_store

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "gitloom-test")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "gitloom-test-secret")
    # A real S3 client pointed at a port nothing listens on.
    down = S3ObjectStore(
        bucket="gone",
        endpoint_url="http://127.0.0.1:9",
        region_name="us-east-1",
        cache_dir=tmp_path / "s3-cache",
    )
    with using_object_store(down):
        page = page_client.get("/namespaces/notes/")
    assert page.status_code == 503
    assert "Temporarily unavailable" in page.text
    assert "Object storage is unavailable" in page.text
    assert "Traceback" not in page.text


def test_forget_without_the_csrf_token_is_refused(page_client, imported):
    response = page_client.post(f"/namespaces/notes/forget/{TRIP}")
    assert response.status_code == 403
    assert page_client.get(f"/namespaces/notes/memories/{TRIP}").status_code == 200


def test_a_long_memory_list_pages_on(page_client, imported, monkeypatch):
    from memories import views

    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    first = page_client.get("/namespaces/notes/")
    shown = [item.path for item in first.context["page"].items]
    assert len(shown) == 2
    assert "Next memories" in first.text
    rest = page_client.get("/namespaces/notes/", {"after": first.context["page"].next_cursor})
    more = [item.path for item in rest.context["page"].items]
    assert sorted(shown + more) == sorted(sample_files())
    assert "Next memories" not in rest.text
