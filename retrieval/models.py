"""The derived index: rows rebuilt from the namespace repositories, never edited by hand.

The tables are created by plain SQL in ``migrations/0002_index_tables`` because Django
cannot express what they need: the cue table is LIST-partitioned by namespace (one
partition, with its own HNSW index, per namespace), and every table has row-level
security forced on, keyed to the ``gitloom.namespace_id`` setting that
:func:`retrieval.scope.namespace_scope` sets. These models are unmanaged mirrors for
reading in tests and the admin; the indexer and the query use SQL.

Layout (every table carries ``namespace_id`` and is visible only inside that
namespace's scope):

``retrieval_index_state``  one row per namespace: the indexed commit, the BM25
                           document count and total cue and body lengths. The indexer
                           locks this row, so one namespace is indexed by one
                           transaction at a time.
``retrieval_document``     one row per memory file: path, the git blob hash it was
                           built from, header fields, body, the weighted tsvector
                           (cues weight A, body weight B) and its lengths in terms
                           (cues, body).
``retrieval_posting``      the inverted index BM25 reads: (term, document) with the
                           term's frequency in the cues and in the body and the
                           document's lengths, so cue and body weights are chosen at
                           query time, and the document's term signature (a Bloom
                           filter of all its terms, migration 0011).
``retrieval_term_stat``    per-namespace document frequency of each term.
``retrieval_cue``          one row per (memory, cue): the cue text and its embedding,
                           with the memory's tier and tags copied so a filtered vector
                           search filters inside the index scan. Partitioned by
                           namespace.
``retrieval_edge``         typed ``related`` links: source memory -> target path, and
                           the target's document id while a memory is at that path.

History (``migrations/0008_index_history``, read by ``retrieval.asof``): the head tables
above hold the head; what a commit replaced or removed moves to a ``*_history`` twin
(documents, postings, term statistics, cues with their vectors, edges) stamped with the
commits it was at the head, ``[from_seq, to_seq)``; head rows carry ``from_seq``.
``retrieval_commit`` lists the namespace's indexed commits in order (``seq``), with
their times and BM25 totals.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from pgvector.django import VectorField


class IndexState(models.Model):
    namespace = models.OneToOneField(
        "namespaces.Namespace", on_delete=models.DO_NOTHING, primary_key=True
    )
    indexed_commit = models.CharField(max_length=40)
    doc_count = models.IntegerField()
    cue_length_total = models.FloatField()
    body_length_total = models.FloatField()
    updated = models.DateTimeField()

    class Meta:
        managed = False
        db_table = "retrieval_index_state"

    def __str__(self) -> str:
        return f"{self.namespace_id}@{self.indexed_commit}"


class Document(models.Model):
    # Keyed within its namespace (migration 0010: what sharding by namespace needs);
    # ``id`` alone is unique too (one identity sequence), and the other tables refer to
    # a document by it.
    pk = models.CompositePrimaryKey("namespace_id", "id")
    id = models.BigIntegerField()
    namespace = models.ForeignKey("namespaces.Namespace", on_delete=models.DO_NOTHING)
    path = models.CharField(max_length=200)
    blob_sha = models.CharField(max_length=40)
    tier = models.CharField(max_length=16)
    tags = ArrayField(models.TextField())
    cues = ArrayField(models.TextField())
    created = models.DateTimeField()
    updated = models.DateTimeField()
    confidence = models.FloatField(null=True)
    sources = ArrayField(models.TextField())
    related = models.JSONField()
    body = models.TextField()
    cue_length = models.FloatField()
    body_length = models.FloatField()

    class Meta:
        managed = False
        db_table = "retrieval_document"

    def __str__(self) -> str:
        return self.path


class Cue(models.Model):
    pk = models.CompositePrimaryKey("namespace_id", "document_id", "cue")
    namespace = models.ForeignKey("namespaces.Namespace", on_delete=models.DO_NOTHING)
    document_id = models.BigIntegerField()
    cue = models.TextField()
    tier = models.CharField(max_length=16)
    tags = ArrayField(models.TextField())
    embedding = VectorField()

    class Meta:
        managed = False
        db_table = "retrieval_cue"

    def __str__(self) -> str:
        return self.cue


class Edge(models.Model):
    pk = models.CompositePrimaryKey("namespace_id", "src_document_id", "type", "dst_path")
    namespace = models.ForeignKey("namespaces.Namespace", on_delete=models.DO_NOTHING)
    src_document_id = models.BigIntegerField()
    src_path = models.CharField(max_length=200)
    dst_path = models.CharField(max_length=200)
    # The document now at dst_path (NULL while none is); kept current by the indexer.
    dst_document_id = models.BigIntegerField(null=True)
    type = models.CharField(max_length=64)

    class Meta:
        managed = False
        db_table = "retrieval_edge"

    def __str__(self) -> str:
        return f"{self.src_path} -{self.type}-> {self.dst_path}"


class Posting(models.Model):
    pk = models.CompositePrimaryKey("namespace_id", "term", "document_id")
    namespace = models.ForeignKey("namespaces.Namespace", on_delete=models.DO_NOTHING)
    term = models.TextField()
    document_id = models.BigIntegerField()
    tf_cues = models.FloatField()
    tf_body = models.FloatField()
    cue_length = models.FloatField()
    body_length = models.FloatField()
    impact = models.FloatField(editable=False)  # generated: (tf_cues + tf_body) / length
    # The memory's term signature, a 128-bit Bloom filter of its terms (migration 0011).
    sig_a = models.BigIntegerField(default=-1)
    sig_b = models.BigIntegerField(default=-1)

    class Meta:
        managed = False
        db_table = "retrieval_posting"

    def __str__(self) -> str:
        return f"{self.term} in {self.document_id}"


class TermStat(models.Model):
    pk = models.CompositePrimaryKey("namespace_id", "term")
    namespace = models.ForeignKey("namespaces.Namespace", on_delete=models.DO_NOTHING)
    term = models.TextField()
    df = models.IntegerField()

    class Meta:
        managed = False
        db_table = "retrieval_term_stat"

    def __str__(self) -> str:
        return f"{self.term}: {self.df}"


def cue_partition(namespace_id: int) -> str:
    """The name of a namespace's cue partition (``retrieval_cue_partition_create``)."""
    return f"retrieval_cue_ns_{int(namespace_id)}"


# Tables under the namespace boundary (row-level security on each).
INDEX_TABLES = (
    "retrieval_edge",
    "retrieval_posting",
    "retrieval_term_stat",
    "retrieval_cue",
    "retrieval_document",
    "retrieval_index_state",
)

# The history of the index, under the same boundary (migration 0008).
HISTORY_TABLES = (
    "retrieval_edge_history",
    "retrieval_posting_history",
    "retrieval_term_stat_history",
    "retrieval_cue_history",
    "retrieval_document_history",
    "retrieval_commit",
)
