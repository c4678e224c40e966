"""The (document, term) posting index carries the namespace, so BM25's exact rescoring
probes are index-only.

Each probe checks ``namespace_id`` twice (the statement's condition and the row-level
security policy); without the column in the index every probe also read the heap row.
At 100,000 memories a query makes several hundred probes.
"""

from django.db import migrations

FORWARD = """
CREATE UNIQUE INDEX retrieval_posting_document_term_ns ON retrieval_posting (document_id, term)
    INCLUDE (namespace_id, tf_cues, tf_body, cue_length, body_length);
DROP INDEX retrieval_posting_document_term;
ALTER INDEX retrieval_posting_document_term_ns RENAME TO retrieval_posting_document_term;
"""

BACKWARD = """
CREATE UNIQUE INDEX retrieval_posting_document_term_old ON retrieval_posting (document_id, term)
    INCLUDE (tf_cues, tf_body, cue_length, body_length);
DROP INDEX retrieval_posting_document_term;
ALTER INDEX retrieval_posting_document_term_old RENAME TO retrieval_posting_document_term;
"""


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0005_cue_hnsw_ef_construction")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
