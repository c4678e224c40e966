"""GET /v1/retrieve?as_of=: the fused retrieval over a namespace as it was at a commit.

Writes go through the API (import, forget), as a user's would; the index keeps every
version, and a query as of a past commit must answer exactly what the head answered
then, BM25 statistics included, whatever was written since.
"""

from __future__ import annotations

import io
import time

import pytest
from django.core.management import call_command
from django.db import connection

from retrieval.scope import namespace_scope
from tests.retrieval.helpers import commit, memory
from tests.support.archives import memory_bytes, tar_gz

CAMERA = "facts/gear/camera-00000001.md"
LENS = "facts/gear/lens-00000002.md"
TRIP = "events/travel/lisbon-00000003.md"
QUERY = "which Sony camera did I buy in Bengaluru"


def _import(api, files: dict[str, bytes], namespace: str = "notes") -> str:
    response = api.post(
        f"/v1/namespaces/{namespace}/import",
        tar_gz(files),
        content_type="application/gzip",
    )
    assert response.status_code == 201, response.json()
    return response.json()["commit"]


def _retrieve(api, namespace: str = "notes", **params) -> dict:
    response = api.get("/v1/retrieve", {"query": QUERY, "namespace": namespace, **params})
    assert response.status_code == 200, response.json()
    return response.json()


def _error(api, namespace: str = "notes", **params) -> tuple[int, str]:
    response = api.get("/v1/retrieve", {"query": QUERY, "namespace": namespace, **params})
    return response.status_code, response.json()["error"]["code"]


def _approx(value, rel: float = 1e-9):
    """Floats compared to the last bits: BM25 sums its terms in whatever order the plan
    reads them, and the head's plan and the as-of plan differ."""
    if isinstance(value, float):
        return pytest.approx(value, rel=rel)
    if isinstance(value, dict):
        return {key: _approx(item, rel) for key, item in value.items()}
    if isinstance(value, list):
        return [_approx(item, rel) for item in value]
    return value


def _same_results(old: list[dict], new: list[dict]) -> None:
    """Equal but for the ageing factor, measured to the commit's time rather than to
    the moment of the request (seconds apart here: commit times are whole seconds, and
    the first query loads the embedder; an `events` memory's factor moves by 1e-7 a
    second)."""
    assert [r["path"] for r in new] == [r["path"] for r in old]
    for before, after in zip(old, new, strict=True):
        assert after["score"] == pytest.approx(before["score"], rel=1e-5)
        assert {**after, "score": None} == _approx({**before, "score": None})


def _next_second() -> None:
    # Commit times have a resolution of one second: make the next commit's later.
    time.sleep(1.02 - time.time() % 1)


FIRST = {
    CAMERA: memory_bytes(
        "Bought a Sony A7III in Bengaluru from Fotocentre.",
        cues=["which camera did I buy", "Sony A7III purchase"],
        tags=["camera"],
        related=[("same-purchase", LENS)],
    ),
    LENS: memory_bytes(
        "The Sony camera came with a 28-70 mm kit lens.",
        cues=["which lens came with my camera"],
        tags=["lens"],
    ),
    TRIP: memory_bytes(
        "Flew to Lisbon and stayed at the Pestana Palace.",
        tier="events",
        cues=["where did I stay in Lisbon"],
        tags=["travel"],
    ),
}


@pytest.fixture
def timeline(api, notes):
    """Three commits through the API, each with the head's answer captured right after:
    import, a rewrite plus more Sony memories (changing BM25's statistics), a forget."""
    first = _import(api, FIRST)
    answers = {first: _retrieve(api)}
    _next_second()
    second = _import(
        api,
        {
            CAMERA: memory_bytes(
                "Sold the Sony A7III; bought a Sony A7IV in Bengaluru instead.",
                cues=["which camera did I buy", "Sony A7IV purchase"],
                tags=["camera"],
                related=[("same-purchase", LENS)],
            ),
            "facts/gear/tv-00000004.md": memory_bytes(
                "A Sony Bravia TV hangs in the living room.", cues=["which TV do I have"]
            ),
            "facts/gear/phone-00000005.md": memory_bytes(
                "My phone is a Sony Xperia bought in Bengaluru.", cues=["what phone do I use"]
            ),
        },
    )
    answers[second] = _retrieve(api)
    response = api.delete(f"/v1/memories/{LENS}?namespace=notes")
    assert response.status_code == 200, response.json()
    third = response.json()["commit"]
    answers[third] = _retrieve(api)
    return [first, second, third], answers


def test_as_of_an_old_commit_answers_what_the_head_answered_then(api, timeline):
    commits, answers = timeline
    first, second, third = commits
    head = _retrieve(api)
    assert head["commit"] == third and head["as_of"] is None
    assert LENS not in [r["path"] for r in head["results"]]
    for sha in commits:
        past = _retrieve(api, as_of=sha)
        assert past["commit"] == past["indexed_commit"] == sha
        assert past["as_of"]["commit"] == sha
        _same_results(answers[sha]["results"], past["results"])
    # The old memory, its old text, its old link and its old BM25 statistics.
    old = _retrieve(api, as_of=first[:7])
    assert old["as_of"]["commit"] == first
    camera = next(r for r in old["results"] if r["path"] == CAMERA)
    assert camera["content"] == "Bought a Sony A7III in Bengaluru from Fotocentre."
    assert LENS in [r["path"] for r in old["results"]]
    now_camera = next(r for r in head["results"] if r["path"] == CAMERA)
    assert now_camera["content"].startswith("Sold the Sony A7III")
    # More memories now say "Sony" and "Bengaluru": today's statistics would score the
    # old camera memory differently; the as-of answer kept that commit's.
    then = next(r for r in answers[first]["results"] if r["path"] == CAMERA)
    assert camera["arms"]["lexical"]["score"] == pytest.approx(then["arms"]["lexical"]["score"])
    assert camera["arms"]["lexical"]["score"] != pytest.approx(
        now_camera["arms"]["lexical"]["score"]
    )
    # Reproducible: asked again (and after another write), the same answer.
    _import(api, {"facts/gear/more-00000006.md": memory_bytes("Another Sony thing.")})
    again = _retrieve(api, as_of=first)
    assert again["results"] == old["results"]


def test_as_of_a_time_reads_the_last_commit_made_by_then(api, timeline):
    (first, second, third), answers = timeline
    made = _retrieve(api, as_of=first)["as_of"]["time"]
    past = _retrieve(api, as_of=made)
    # first was made a second before second: its own time names it.
    assert past["commit"] == first
    _same_results(answers[first]["results"], past["results"])
    later = _retrieve(api, as_of="2999-01-01T00:00:00+05:30")
    assert later["commit"] == third
    naive = _retrieve(api, as_of="2999-01-01T00:00:00")  # no offset: UTC
    assert naive["commit"] == third
    assert _retrieve(api, as_of="2999-01-01")["commit"] == third


@pytest.mark.parametrize(
    ("as_of", "status", "code"),
    [
        ("", 400, "invalid_as_of"),
        ("yesterday", 400, "invalid_as_of"),
        ("abc12", 400, "invalid_as_of"),  # too short for a commit id
        ("g" * 40, 400, "invalid_as_of"),
        ("2026-13-45T00:00:00Z", 400, "invalid_as_of"),
        ("x" * 5000, 400, "invalid_as_of"),  # not `invalid` from a length limit
        # Offsets Postgres cannot hold, and times whose UTC is outside years 1-9999
        # (each was a 500).
        ("2026-01-01T00:00:00+16:00", 400, "invalid_as_of"),
        ("2026-01-01T00:00:00-23:59", 400, "invalid_as_of"),
        ("9999-12-31T23:59:59-15:00", 400, "invalid_as_of"),
        ("0001-01-01T00:00:00+15:00", 400, "invalid_as_of"),
        ("0" * 39 + "1", 404, "as_of_not_found"),
        ("deadbeef", 404, "as_of_not_found"),
        ("2001-01-01T00:00:00Z", 404, "as_of_before_history"),
    ],
)
def test_bad_as_of_is_a_clear_error(api, notes, as_of, status, code):
    _import(api, FIRST)
    assert _error(api, as_of=as_of) == (status, code)


def test_another_namespaces_commit_is_not_found_and_its_rows_stay_unseen(
    api, other_api, notes, other_notes
):
    mine = _import(api, FIRST)
    theirs = _import(other_api, {CAMERA: memory_bytes("Their secret Sony camera.")})
    # A second version, so their index has a past (history rows) as well as a head.
    _import(other_api, {CAMERA: memory_bytes("Their secret Sony camera, sold.")})
    # Their commit is not in my namespace's history; their namespace is not mine.
    assert _error(api, as_of=theirs) == (404, "as_of_not_found")
    assert _error(other_api, as_of=mine) == (404, "as_of_not_found")
    response = api.get("/v1/retrieve", {"query": QUERY, "namespace": "notes", "as_of": mine})
    assert "secret" not in response.content.decode()
    with namespace_scope(other_notes), connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM retrieval_document_history")
        assert cursor.fetchone()[0] > 0  # their past exists, so what follows can fail
    # The history tables, and the views that show the past, are bounded by row-level
    # security like the head tables: in my scope, none of their rows is seen.
    with namespace_scope(notes), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('gitloom.as_of_seq', '1000000', true)")
        for view in ("document", "posting", "term_stat", "cue", "edge", "index_state"):
            cursor.execute(f"SELECT DISTINCT namespace_id FROM retrieval_asof_{view}")
            assert set(cursor.fetchall()) <= {(notes.pk,)}, view
        for table in ("retrieval_document_history", "retrieval_commit"):
            cursor.execute(f"SELECT DISTINCT namespace_id FROM {table}")  # noqa: S608 - fixed names
            assert set(cursor.fetchall()) <= {(notes.pk,)}, table


def test_head_results_are_those_of_the_same_memories_without_history(api, timeline, account):
    from namespaces.services import namespace_create

    namespace_create(account=account, name="fresh")
    # The head of `notes`, rebuilt in one commit in a namespace that has no history.
    snapshot = api.get("/v1/memories", {"namespace": "notes", "limit": 100}).json()
    files = {
        item["path"]: api.get(f"/v1/memories/{item['path']}", {"namespace": "notes"})
        .json()["raw"]
        .encode()
        for item in snapshot["memories"]
    }
    _import(api, files, namespace="fresh")
    _same_results(_retrieve(api, namespace="fresh")["results"], _retrieve(api)["results"])


def test_commits_that_landed_between_two_index_runs_are_each_recorded(api, notes):
    from retrieval.services import after_repository_change

    first = _import(api, FIRST)
    # Two commits straight to the repository, then one indexer run.
    second = commit(notes, {LENS: None})
    third = commit(notes, {TRIP: memory(cues=["Lisbon"], body="Lisbon again.", tier="events")})
    indexed = after_repository_change(namespace=notes)
    assert indexed.commits == 2
    assert _retrieve(api, as_of=first)["commit"] == first
    at_second = _retrieve(api, as_of=second)
    assert at_second["commit"] == second
    assert LENS not in [r["path"] for r in at_second["results"]]
    assert _retrieve(api, as_of=third)["commit"] == third
    assert _retrieve(api)["commit"] == third


def test_a_commit_the_index_has_not_reached_is_not_found_and_a_time_names_the_last_indexed(
    api, notes
):
    """As documented: as_of reads the index, so a commit not yet indexed is not there."""
    from retrieval.services import after_repository_change

    first = _import(api, FIRST)
    made = _retrieve(api, as_of=first)["as_of"]["time"]
    _next_second()
    second = commit(notes, {LENS: None})  # straight to the repository, not indexed yet
    assert _error(api, as_of=second) == (404, "as_of_not_found")
    assert _retrieve(api, as_of="2999-01-01")["as_of"] == {
        "commit": first,
        "time": made,
        "said": made,  # an import is said when it is stored
        "by": "stored",
    }
    after_repository_change(namespace=notes)
    assert _retrieve(api, as_of=second)["commit"] == second
    assert _retrieve(api, as_of="2999-01-01")["commit"] == second


@pytest.mark.usefixtures("object_store")
def test_reindex_rebuilds_the_history_from_the_repository_alone(api, timeline, notes):
    """On the local directory and on S3: the indexer walks the history it reads from
    object storage, both when writes land and when reindex rebuilds it."""
    commits, answers = timeline
    # A history row the repository never held (as if its text had been purged since).
    with namespace_scope(notes), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO retrieval_document_history (id, namespace_id, path, blob_sha, tier,"
            " tags, cues, created, updated, sources, related, body, cue_length, body_length,"
            " from_seq, to_seq) VALUES (-1, %s, 'facts/x/gone-00000009.md', '', 'facts', '{}',"
            " '{}', now(), now(), '{}', '[]', 'purged secret', 1, 1, 1, 2)",
            [notes.pk],
        )
    call_command("reindex", "--namespace", "acme/notes", stdout=io.StringIO())
    with namespace_scope(notes), connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM retrieval_document_history WHERE body LIKE '%%secret%%'"
        )
        assert cursor.fetchone()[0] == 0
        cursor.execute("SELECT sha FROM retrieval_commit ORDER BY seq")
        shas = [row[0] for row in cursor.fetchall()]
    # The root commit (namespace creation) and the three writes, in order.
    assert shas[-3:] == commits and len(shas) == 4
    for sha in commits:
        _same_results(answers[sha]["results"], _retrieve(api, as_of=sha)["results"])


def test_deleting_a_namespace_forgets_its_history(api, timeline, notes):
    namespace_id = notes.pk
    assert api.delete("/v1/namespaces/notes").status_code == 204

    class Gone:
        pk = namespace_id

    with namespace_scope(Gone()), connection.cursor() as cursor:
        for table in (
            "retrieval_commit",
            "retrieval_document_history",
            "retrieval_posting_history",
            "retrieval_term_stat_history",
            "retrieval_cue_history",
            "retrieval_edge_history",
        ):
            cursor.execute(f"SELECT count(*) FROM {table}")
            assert cursor.fetchone()[0] == 0, table


def test_the_as_of_statement_reads_only_its_own_cue_partition(api, timeline, notes, other_notes):
    import re

    from retrieval.asof import as_of_resolve
    from retrieval.embeddings import embed_query
    from retrieval.models import cue_partition
    from retrieval.query import fused_search

    commit(other_notes, {CAMERA: memory(cues=["their camera"], body="Their Sony camera.")})
    (first, _, _), _ = timeline
    past = as_of_resolve(namespace=notes, value=first)
    found = fused_search(
        namespace=notes, query=QUERY, embedding=embed_query(QUERY), as_of=past, explain=True
    )
    partitions = set(re.findall(r"retrieval_cue_ns_\d+", found.plan))
    assert partitions == {cue_partition(notes.pk)}, found.plan
    assert "retrieval_cue_history" in found.plan
    # Exact: the cue scan is not an HNSW index scan.
    assert "hnsw" not in found.plan.lower()


def test_every_history_table_has_forced_row_level_security(db):
    from retrieval.models import HISTORY_TABLES

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class"
            " WHERE relname = ANY(%s) ORDER BY relname",
            [list(HISTORY_TABLES)],
        )
        assert cursor.fetchall() == [(table, True, True) for table in sorted(HISTORY_TABLES)]
        # ...and the views over them check the caller's policies, not their owner's.
        cursor.execute(
            "SELECT count(*) FROM pg_class WHERE relname LIKE 'retrieval_asof_%%'"
            " AND relkind = 'v' AND 'security_invoker=true' = ANY(reloptions)"
        )
        assert cursor.fetchone()[0] == 6


def test_a_purges_rebuild_reuses_vectors_and_reindex_embeds_again(api, timeline, notes):
    from retrieval.services import after_repository_change

    commits, answers = timeline
    # A purge's rebuild: every row again from the repository, vectors kept by cue text.
    kept = after_repository_change(namespace=notes, rebuild=True, reuse_vectors=True)
    assert kept.commits == 4 and kept.embedded == 0 and kept.reused > 0
    # `reindex` (a changed embedding model, say) embeds every cue text again (once: a
    # later version with the same cue reuses the vector the rebuild just made).
    fresh = after_repository_change(namespace=notes, rebuild=True)
    assert fresh.embedded > 0 and fresh.embedded + fresh.reused == kept.reused
    for sha in commits:
        _same_results(answers[sha]["results"], _retrieve(api, as_of=sha)["results"])
    with connection.cursor() as cursor:  # the kept vectors went with the rebuild
        cursor.execute("SELECT to_regclass('pg_temp.retrieval_kept_vectors')")
        assert cursor.fetchone()[0] is None


def test_a_fused_statement_reading_a_table_the_as_of_views_do_not_cover_is_refused():
    from retrieval.asof import as_of_statement
    from retrieval.query import _sql

    assert "retrieval_asof_document" in as_of_statement(_sql())
    with pytest.raises(RuntimeError, match="retrieval_cue"):
        as_of_statement(_sql() + "\n-- and then\nSELECT 1 FROM retrieval_cue")


# --- as of when a thing was said (as_of_by=said) --------------------------------------


def _said(days_ago: float, *, hour: int = 10):
    from datetime import UTC, datetime, timedelta

    day = datetime.now(UTC) - timedelta(days=days_ago)
    return day.replace(hour=hour, minute=0, second=0, microsecond=0)


def _backfill(api, settings, django_capture_on_commit_callbacks, when, lines: list[str]):
    """POST /v1/memories with messages timestamped ``when`` (a minute apart), run inline."""
    from datetime import timedelta

    settings.GITLOOM_QUEUE_SYNC = True
    messages = [
        {
            "role": "user",
            "content": line,
            "timestamp": (when + timedelta(minutes=i)).isoformat().replace("+00:00", "Z"),
        }
        for i, line in enumerate(lines)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/memories", {"namespace": "notes", "messages": messages}, format="json"
        )
    assert response.status_code == 202, response.json()
    job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
    assert job["status"] == "done", job
    return job


def test_a_backfilled_conversation_is_searched_as_of_when_it_was_said(
    api, notes, settings, django_capture_on_commit_callbacks
):
    """Conversations posted today with last month's timestamps: as of a day last month
    by the commit's stored time there is no history yet, by when it was said there is,
    and only what had been said by then."""
    camera = _backfill(
        api,
        settings,
        django_capture_on_commit_callbacks,
        _said(30),
        ["I bought a Sony A7III camera from Fotocentre in Bengaluru."],
    )
    dog = _backfill(
        api,
        settings,
        django_capture_on_commit_callbacks,
        _said(10),
        ["I adopted a beagle named Biscuit from the shelter in Pune."],
    )
    mid_month = _said(20).isoformat()

    response = api.get("/v1/retrieve", {"query": QUERY, "namespace": "notes", "as_of": mid_month})
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "as_of_before_history"
    assert "as_of_by=said" in error["message"]  # the way out is named

    then = _retrieve(api, as_of=mid_month, as_of_by="said")
    assert then["as_of"]["by"] == "said"
    assert then["as_of"]["commit"] == then["commit"] == camera["commit"]
    assert then["as_of"]["said"] == (_said(30)).isoformat().replace("+00:00", "Z")
    assert then["as_of"]["time"] > then["as_of"]["said"]  # stored today
    paths = [hit["path"] for hit in then["results"]]
    assert paths and set(paths) <= set(camera["result"]["created"])
    assert "Sony A7III" in then["results"][0]["content"]

    later = _retrieve(api, as_of=_said(5).isoformat(), as_of_by="said")
    assert later["as_of"]["commit"] == dog["commit"]
    assert set(dog["result"]["created"]) <= {hit["path"] for hit in later["results"]}

    before = api.get(
        "/v1/retrieve",
        {"query": QUERY, "namespace": "notes", "as_of": _said(40).isoformat(), "as_of_by": "said"},
    )
    assert before.status_code == 404
    assert before.json()["error"]["code"] == "as_of_before_history"
    # The namespace was made today: its first commit was said today too.
    assert "before anything in this namespace was said" in before.json()["error"]["message"]

    assert _error(api, as_of=mid_month, as_of_by="spoken") == (400, "invalid_as_of")

    # History says both times: stored now, said a month back.
    path = camera["result"]["created"][0]
    version = api.get(f"/v1/memories/{path}/history?namespace=notes").json()["versions"][0]
    assert version["said"] == _said(30).isoformat().replace("+00:00", "Z")
    assert version["time"] > version["said"]


def test_a_job_without_timestamps_was_said_when_it_was_stored(
    api, notes, settings, django_capture_on_commit_callbacks
):
    settings.GITLOOM_QUEUE_SYNC = True
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/memories",
            {
                "namespace": "notes",
                "messages": [
                    {"role": "user", "content": "I bought a Sony A7III camera in Bengaluru."}
                ],
            },
            format="json",
        )
    job = api.get(f"/v1/jobs/{response.json()['job']['id']}").json()["job"]
    path = job["result"]["created"][0]
    version = api.get(f"/v1/memories/{path}/history?namespace=notes").json()["versions"][0]
    assert version["said"] == version["time"]
    now = _retrieve(api, as_of=version["time"], as_of_by="said")
    assert now["as_of"]["commit"] == job["commit"]
