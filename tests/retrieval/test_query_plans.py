"""The fused statement is prepared per namespace and runs on a generic plan; what a
caller sees must not depend on it: same hits, own namespace only, filters honoured."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from gitloom.core.errors import NamespaceNotFound
from retrieval.models import cue_partition
from retrieval.query import fused_search
from tests.retrieval.helpers import memory, write

KAYAK = "facts/hobbies/kayak-0000aaaa.md"
PASTA = "preferences/food/pasta-0000bbbb.md"
RIVER = "events/hobbies/river-trip-0000cccc.md"


@pytest.fixture
def hobbies(notes):
    write(
        notes,
        {
            KAYAK: memory(cues=["what boat do I paddle"], body="Paddles a green sea kayak."),
            PASTA: memory(
                tier="preferences", cues=["favourite pasta"], body="Likes cacio e pepe best."
            ),
            RIVER: memory(
                tier="events",
                cues=["kayak trip on the river"],
                body="Took the kayak down the Kaveri in March.",
                related={KAYAK: "used"},
            ),
        },
    )
    return notes


def retrieve(api, query, namespace="notes", **params):
    response = api.get("/v1/retrieve", {"query": query, "namespace": namespace, **params})
    assert response.status_code == 200, response.json()
    return [r["path"] for r in response.json()["results"]]


def plans_of(namespace_id: int) -> tuple[int, int]:
    """(generic, custom) executions of the fused statement prepared for a namespace."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(generic_plans), 0), coalesce(sum(custom_plans), 0)"
            " FROM pg_prepared_statements WHERE statement LIKE %s",
            [f"%{cue_partition(namespace_id)}%"],
        )
        return tuple(int(x) for x in cursor.fetchone())


def scope_setting() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('gitloom.namespace_id', true)")
        return cursor.fetchone()[0] or ""


def test_repeated_retrievals_run_on_a_prepared_generic_plan(transactional_db, api, hobbies):
    first = retrieve(api, "kayak")
    assert first[:2] == [KAYAK, RIVER] or first[:2] == [RIVER, KAYAK]
    for _ in range(3):
        assert retrieve(api, "kayak") == first
    generic, custom = plans_of(hobbies.pk)
    assert generic == 4 and custom == 0
    # the namespace scope ended with the statement: the connection sees nothing now
    assert scope_setting() == ""


def test_each_namespace_answers_from_its_own_statement(
    transactional_db, api, other_api, hobbies, other_notes
):
    write(other_notes, {"facts/boats/canoe-0000dddd.md": memory(
        cues=["what boat do I paddle"], body="Paddles a red canoe.")})  # fmt: skip
    for _ in range(2):  # alternate on the same connection
        mine = retrieve(api, "what boat do I paddle")
        theirs = retrieve(other_api, "what boat do I paddle")
        assert "facts/boats/canoe-0000dddd.md" not in mine and KAYAK in mine
        assert theirs == ["facts/boats/canoe-0000dddd.md"]
    assert plans_of(hobbies.pk)[0] == 2 and plans_of(other_notes.pk)[0] == 2


def test_a_filtered_retrieval_is_planned_for_its_filter(transactional_db, api, hobbies):
    retrieve(api, "kayak")  # the statement is prepared and has run generically
    assert retrieve(api, "kayak", tier="events") == [RIVER]
    assert retrieve(api, "kayak", tier="facts") == [KAYAK]
    generic, custom = plans_of(hobbies.pk)
    assert (generic, custom) == (1, 2)


def test_inside_a_transaction_the_prepared_statement_answers_the_same(db, api, hobbies):
    assert connection.in_atomic_block
    assert retrieve(api, "cacio e pepe")[0] == PASTA
    assert retrieve(api, "cacio e pepe", arms="lexical") == [PASTA]
    assert retrieve(api, "kayak", arms="lexical,graph")[:2] in ([KAYAK, RIVER], [RIVER, KAYAK])


def test_without_prepared_statements_retrieval_is_the_same(
    transactional_db, api, hobbies, settings
):
    prepared = retrieve(api, "kayak")
    settings.GITLOOM_PREPARED_STATEMENTS = False
    assert retrieve(api, "kayak") == prepared
    assert retrieve(api, "kayak", tier="events") == [RIVER]
    assert plans_of(hobbies.pk) == (1, 0)  # only the first, prepared, call


def test_a_query_with_more_terms_than_it_counts_still_answers(db, api, hobbies):
    words = [f"word{chr(97 + n // 26)}{chr(97 + n % 26)}" for n in range(100)]
    write(
        hobbies, {"facts/misc/long-0000eeee.md": memory(cues=["many words"], body=" ".join(words))}
    )
    query = " ".join(words) + " kaveri"
    assert len(query) <= 1000
    found = retrieve(api, query, arms="lexical")
    # 101 known terms, 63 counted (the rarest, then by term): "kaveri" is among them
    assert set(found) == {"facts/misc/long-0000eeee.md", RIVER}


def test_a_namespace_deleted_under_a_retrieval_is_not_found(transactional_db, hobbies):
    from retrieval.services import cue_partition_drop

    assert fused_search(namespace=hobbies, query="kayak", embedding=None, arms=("lexical",)).hits
    cue_partition_drop(hobbies.pk)  # what a concurrent delete leaves behind
    with pytest.raises(NamespaceNotFound):
        fused_search(namespace=hobbies, query="kayak", embedding=None, arms=("lexical",))


def test_the_fused_statement_reads_only_its_own_namespaces_rows(db, hobbies, other_notes):
    """Every table scan in the fused statement's plan is bounded by the namespace's key
    (an index condition or filter on namespace_id, or a scan of the namespace's own cue
    partition), and the only cue partition it reads is the namespace's own: what a
    router query on a shard needs (docs/SCALING.md)."""
    import re

    from retrieval.embeddings import embed_query

    write(other_notes, {"facts/boats/canoe-0000dddd.md": memory(
        cues=["what boat do I paddle"], body="Paddles a red canoe.")})  # fmt: skip
    query = "kayak boat river"
    plan = fused_search(
        namespace=hobbies, query=query, embedding=embed_query(query), explain=True
    ).plan
    partitions = set(re.findall(r"retrieval_cue_ns_\d+", plan))
    assert partitions == {cue_partition(hobbies.pk)}, plan
    lines = plan.splitlines()
    scans = [
        i for i, line in enumerate(lines) if re.search(r"Scan (using \S+ )?on retrieval_", line)
    ]
    assert len(scans) >= 5, plan  # state, term stats, postings, cues, documents, edges
    for i in scans:
        # A sequential scan is fine on these few rows (the planner's choice depends on
        # the statistics earlier tests left); what routes a query to one shard is that
        # every scan is bounded by namespace_id.
        details = [lines[i]]
        for line in lines[i + 1 :]:
            if "->" in line:
                break
            details.append(line)
        own_partition = cue_partition(hobbies.pk) in lines[i]
        assert own_partition or any("namespace_id" in line for line in details), (
            lines[i],
            details,
        )


def _answers(result) -> list[tuple]:
    return [(hit.path, hit.arms) for hit in result.hits]


def _scores(result) -> list[float]:
    return [hit.score for hit in result.hits]


def assert_embedding_meanwhile_answers_the_same(namespace) -> None:
    """With ``embed`` the lexical arm runs on the server while the query is embedded;
    the hits, their scores and every arm's detail are those of the single statement."""
    from retrieval.embeddings import embed_texts

    for query, tiers in (
        ("kayak", ()),
        ("which boat do I paddle on the river", ()),
        ("cacio e pepe", ()),
        ("kayak", ("events",)),
    ):
        vector = embed_texts([query])[0]
        calls = []

        def embed(vector=vector):
            calls.append(1)
            return vector

        # one `now`: ageing makes a score of a second later a little lower
        common = {"namespace": namespace, "query": query, "tiers": tiers, "now": timezone.now()}
        whole = fused_search(**common, embedding=vector)
        split = fused_search(**common, embedding=None, embed=embed)
        assert calls == [1]
        assert _answers(split) == _answers(whole) and split.commit == whole.commit
        # the same sums, added up in whatever order the plan met the arms' rows
        assert _scores(split) == pytest.approx(_scores(whole), rel=1e-12)
        assert any("lexical" in hit.arms for hit in split.hits)


def test_embedding_while_the_lexical_arm_runs_answers_the_same(transactional_db, hobbies):
    assert not connection.in_atomic_block
    assert_embedding_meanwhile_answers_the_same(hobbies)
    # the scope and the snapshot ended with the second statement
    assert connection.connection.info.transaction_status.name == "IDLE"
    assert scope_setting() == ""


def test_inside_a_transaction_embedding_meanwhile_answers_the_same(db, hobbies):
    assert connection.in_atomic_block
    assert_embedding_meanwhile_answers_the_same(hobbies)


def test_a_failed_embedding_leaves_no_transaction_open(transactional_db, hobbies):
    def embed():
        raise RuntimeError("the embedding endpoint is down")

    with pytest.raises(RuntimeError, match="endpoint is down"):
        fused_search(namespace=hobbies, query="kayak", embedding=None, embed=embed)
    assert connection.connection.info.transaction_status.name == "IDLE"
    assert scope_setting() == ""
    assert fused_search(namespace=hobbies, query="kayak", embedding=None, arms=("lexical",)).hits
