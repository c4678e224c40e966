"""Postings read in impact order, so BM25 can stop early on very common terms.

A term that half the namespace contains would otherwise make the lexical arm read and
aggregate tens of thousands of postings per query. Each posting now carries an
``impact`` (the term's share of the memory's words, a length-normalised tf) and the
index that finds candidates is ordered by it within each term, so the query takes a
term's strongest postings first and stops after ``FusionParams.lexical_term_postings``
(all of them for every rarer term); the best candidates are then rescored with every
query term through the (document, term) index. The column is generated, so existing
rows get it without anyone having to be inside a namespace's scope.

Terms are compared byte-wise (``COLLATE "C"``): lexemes are only ever matched for
equality, and C comparisons make every index descent cheaper.
"""

from django.db import migrations, models

FORWARD = """
ALTER TABLE retrieval_posting
    ALTER COLUMN term TYPE text COLLATE "C",
    ADD COLUMN impact real GENERATED ALWAYS AS (
        (tf_cues + tf_body) / GREATEST(cue_length + body_length, 1)
    ) STORED;
ALTER TABLE retrieval_term_stat ALTER COLUMN term TYPE text COLLATE "C";
ALTER TABLE retrieval_posting DROP CONSTRAINT retrieval_posting_pkey;
CREATE INDEX retrieval_posting_impact ON retrieval_posting
    (namespace_id, term, impact DESC, document_id)
    INCLUDE (tf_cues, tf_body, cue_length, body_length);
-- Rescoring the candidates looks their postings up by (document, term); the unique
-- index also keeps one posting per term and memory, as the primary key did.
DROP INDEX retrieval_posting_document;
CREATE UNIQUE INDEX retrieval_posting_document_term ON retrieval_posting (document_id, term)
    INCLUDE (tf_cues, tf_body, cue_length, body_length);
"""

BACKWARD = """
DROP INDEX retrieval_posting_impact;
DROP INDEX IF EXISTS retrieval_posting_document_term;
CREATE INDEX IF NOT EXISTS retrieval_posting_document ON retrieval_posting (document_id);
ALTER TABLE retrieval_posting DROP COLUMN impact;
ALTER TABLE retrieval_posting ALTER COLUMN term TYPE text COLLATE "default";
ALTER TABLE retrieval_term_stat ALTER COLUMN term TYPE text COLLATE "default";
ALTER TABLE retrieval_posting ADD PRIMARY KEY (namespace_id, term, document_id)
    INCLUDE (tf_cues, tf_body, cue_length, body_length);
"""


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0002_index_tables")]

    operations = [
        migrations.RunSQL(FORWARD, BACKWARD),
        migrations.AddField(
            model_name="posting", name="impact", field=models.FloatField(editable=False)
        ),
    ]
