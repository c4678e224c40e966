"""A namespace's index is born with it and dies with it, partition included."""

from __future__ import annotations

from django.db import connection

from namespaces.services import namespace_create, namespace_delete
from retrieval.scope import namespace_scope
from tests.retrieval.helpers import memory, write


def partition_exists(namespace_id: int) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f"retrieval_cue_ns_{namespace_id}"])
        return cursor.fetchone()[0]


def test_creating_a_namespace_gives_it_its_own_cue_partition_with_an_hnsw_index(account):
    namespace = namespace_create(account=account, name="fresh")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = %s",
            [f"retrieval_cue_ns_{namespace.pk}"],
        )
        definitions = " ".join(row[0] for row in cursor.fetchall())
    assert "USING hnsw (embedding vector_cosine_ops)" in definitions


def test_deleting_a_namespace_removes_its_rows_and_partition(transactional_db, account):
    keep = namespace_create(account=account, name="keep")
    gone = namespace_create(account=account, name="gone")
    for namespace in (keep, gone):
        write(namespace, {"facts/a/x-00000001.md": memory(cues=["x marks"], body="X.")})
    gone_id = gone.pk
    namespace_delete(namespace=gone)
    assert not partition_exists(gone_id)  # detached and dropped after the commit
    assert partition_exists(keep.pk)

    class Gone:
        pk = gone_id

    with namespace_scope(Gone()), connection.cursor() as cursor:
        for table in (
            "retrieval_document",
            "retrieval_posting",
            "retrieval_term_stat",
            "retrieval_edge",
            "retrieval_index_state",
        ):
            cursor.execute(f"SELECT count(*) FROM {table}")
            assert cursor.fetchone()[0] == 0, table
    with namespace_scope(keep), connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM retrieval_cue")
        assert cursor.fetchone()[0] == 1


def test_deleting_an_account_forgets_its_namespaces_index_rows(account, other_account):
    mine = namespace_create(account=account, name="mine")
    theirs = namespace_create(account=other_account, name="theirs")
    for namespace in (mine, theirs):
        write(namespace, {"facts/a/x-00000001.md": memory(cues=["x marks"], body="X.")})
    mine_id = mine.pk
    account.delete()  # the ORM cascades to the namespace rows

    class Deleted:
        pk = mine_id

    with namespace_scope(Deleted()), connection.cursor() as cursor:
        for table in ("retrieval_document", "retrieval_posting", "retrieval_cue"):
            cursor.execute(f"SELECT count(*) FROM {table}")
            assert cursor.fetchone()[0] == 0, table
    with namespace_scope(theirs), connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM retrieval_document")
        assert cursor.fetchone()[0] == 1


def test_memory_counts_come_from_each_namespaces_own_index(account, other_account):
    from retrieval.selectors import index_memory_counts

    one = namespace_create(account=account, name="one")
    two = namespace_create(account=other_account, name="two")
    write(one, {f"facts/a/x{i}-0000000{i}.md": memory(cues=[f"x{i}"], body="X.") for i in range(3)})
    assert index_memory_counts(namespaces=[one, two]) == {one.pk: 3, two.pk: 0}


def test_reindex_drops_cue_partitions_left_by_namespaces_that_are_gone(transactional_db, account):
    import io

    from django.core.management import call_command

    from namespaces.models import Namespace

    gone = namespace_create(account=account, name="gone")
    write(gone, {"facts/a/x-00000001.md": memory(cues=["x marks"], body="X.")})
    # A raw delete, as a crash between the commit and the partition drop would leave it.
    Namespace.objects.filter(pk=gone.pk).delete()
    assert partition_exists(gone.pk)
    out = io.StringIO()
    call_command("reindex", stdout=out)
    assert f"dropped orphaned partition retrieval_cue_ns_{gone.pk}" in out.getvalue()
    assert not partition_exists(gone.pk)
