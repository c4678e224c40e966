"""Every posting carries its memory's term signature, so BM25 knows which query terms a
candidate has before it looks any of them up.

A signature is a 128-bit Bloom filter of the memory's terms (two bigints, ``sig_a`` and
``sig_b``; a term sets one bit in each, from ``retrieval_term_hash``), the same on
every posting of the memory. The lexical arm reads a budget of postings and then looks
up, per candidate, the query terms whose postings it did not read in full; at 100,000
memories ~90% of those lookups found nothing. With the signature it ranks candidates by
what they can still score (the terms their signature has) and looks up only those
terms: a term missing from the signature is certainly not in the memory, a term in it
is, except for a Bloom filter's false positives (~8% for a memory of ~20 terms).
Signatures only ever make the arm skip a lookup that would have found nothing, so the
scores are BM25's exactly.

Existing postings (and their history) get the signature of their memory, computed from
its postings: row-level security is lifted for the update by the tables' owner (who
runs migrations) and forced again after it. ``-1`` (every bit set) is the default of a
row written by anything that does not compute one: such a memory is looked up for
every term, as before. The update rewrites every posting once (~7 minutes for the
~10 million postings of bench_retrieve's 1,000,000 cues on a busy 2-core machine).

The impact-ordered index that finds candidates includes the signature, so reading a
posting stays an index-only scan; the as-of view of postings shows it too.
"""

from django.db import migrations, models

POSTING_COLUMNS = (
    "namespace_id, term, document_id, tf_cues, tf_body, cue_length, body_length, impact"
)
AS_OF = "(SELECT NULLIF(current_setting('gitloom.as_of_seq', true), '')::integer)"

COLUMNS = """
-- A term's 64-bit hash: the first 16 hex digits of its MD5 (stable across Postgres
-- versions and platforms, unlike hashtext). Its low 6 bits pick the term's bit in
-- sig_a, the next 6 its bit in sig_b.
CREATE FUNCTION retrieval_term_hash(term text) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT ('x' || left(md5(term), 16))::bit(64)::bigint $$;

ALTER TABLE retrieval_posting
    ADD COLUMN sig_a bigint NOT NULL DEFAULT -1,
    ADD COLUMN sig_b bigint NOT NULL DEFAULT -1;
ALTER TABLE retrieval_posting_history
    ADD COLUMN sig_a bigint NOT NULL DEFAULT -1,
    ADD COLUMN sig_b bigint NOT NULL DEFAULT -1;
"""

# Each memory's signature from its postings (history rows keep their documents' ids).
FILL = """
ALTER TABLE __TABLE__ NO FORCE ROW LEVEL SECURITY;
UPDATE __TABLE__ p SET sig_a = s.a, sig_b = s.b
FROM (
    SELECT document_id,
           bit_or(1::int8 << (retrieval_term_hash(term) & 63)::int) AS a,
           bit_or(1::int8 << ((retrieval_term_hash(term) >> 6) & 63)::int) AS b
    FROM __TABLE__ GROUP BY document_id
) s
WHERE p.document_id = s.document_id;
ALTER TABLE __TABLE__ FORCE ROW LEVEL SECURITY;
"""

INDEXES = f"""
CREATE INDEX retrieval_posting_impact_sig ON retrieval_posting
    (namespace_id, term, impact DESC, document_id)
    INCLUDE (tf_cues, tf_body, cue_length, body_length, sig_a, sig_b);
DROP INDEX retrieval_posting_impact;
ALTER INDEX retrieval_posting_impact_sig RENAME TO retrieval_posting_impact;

CREATE INDEX retrieval_posting_history_impact_sig ON retrieval_posting_history
    (namespace_id, term, impact DESC, document_id)
    INCLUDE (tf_cues, tf_body, cue_length, body_length, from_seq, to_seq, sig_a, sig_b);
DROP INDEX retrieval_posting_history_impact;
ALTER INDEX retrieval_posting_history_impact_sig RENAME TO retrieval_posting_history_impact;

-- As migration 0009 made it, with the signature as its last columns.
CREATE OR REPLACE VIEW retrieval_asof_posting WITH (security_invoker = true) AS
SELECT {POSTING_COLUMNS}, sig_a, sig_b FROM (
    SELECT {POSTING_COLUMNS}, sig_a, sig_b, from_seq, 2147483647 AS to_seq
    FROM retrieval_posting
    UNION ALL
    SELECT {POSTING_COLUMNS}, sig_a, sig_b, from_seq, to_seq FROM retrieval_posting_history
) versions WHERE from_seq <= {AS_OF} AND to_seq > {AS_OF};
"""  # noqa: S608 - constants only

BACKWARD = f"""
DROP VIEW retrieval_asof_posting;
CREATE VIEW retrieval_asof_posting WITH (security_invoker = true) AS
SELECT {POSTING_COLUMNS} FROM (
    SELECT {POSTING_COLUMNS}, from_seq, 2147483647 AS to_seq FROM retrieval_posting
    UNION ALL
    SELECT {POSTING_COLUMNS}, from_seq, to_seq FROM retrieval_posting_history
) versions WHERE from_seq <= {AS_OF} AND to_seq > {AS_OF};
CREATE INDEX retrieval_posting_impact_old ON retrieval_posting
    (namespace_id, term, impact DESC, document_id)
    INCLUDE (tf_cues, tf_body, cue_length, body_length);
DROP INDEX retrieval_posting_impact;
ALTER INDEX retrieval_posting_impact_old RENAME TO retrieval_posting_impact;
CREATE INDEX retrieval_posting_history_impact_old ON retrieval_posting_history
    (namespace_id, term, impact DESC, document_id)
    INCLUDE (tf_cues, tf_body, cue_length, body_length, from_seq, to_seq);
DROP INDEX retrieval_posting_history_impact;
ALTER INDEX retrieval_posting_history_impact_old RENAME TO retrieval_posting_history_impact;
ALTER TABLE retrieval_posting DROP COLUMN sig_a, DROP COLUMN sig_b;
ALTER TABLE retrieval_posting_history DROP COLUMN sig_a, DROP COLUMN sig_b;
DROP FUNCTION retrieval_term_hash(text);
"""  # noqa: S608 - constants only


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0010_index_steps")]

    # Not one transaction: an index built in the transaction that updated every posting
    # indexes the rows the update replaced too (twice the size until a REINDEX), so
    # the updates commit first and the indexes are built after them.
    atomic = False

    operations = [
        migrations.RunSQL(COLUMNS, BACKWARD),
        migrations.RunSQL(FILL.replace("__TABLE__", "retrieval_posting"), migrations.RunSQL.noop),
        migrations.RunSQL(
            FILL.replace("__TABLE__", "retrieval_posting_history"), migrations.RunSQL.noop
        ),
        migrations.RunSQL(INDEXES, migrations.RunSQL.noop),
        migrations.AddField(
            model_name="posting", name="sig_a", field=models.BigIntegerField(default=-1)
        ),
        migrations.AddField(
            model_name="posting", name="sig_b", field=models.BigIntegerField(default=-1)
        ),
    ]
