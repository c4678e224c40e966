"""Every primary key and unique index of the index tables includes ``namespace_id``.

A distributed Postgres (Citus, sharding the index by namespace: docs/SCALING.md)
accepts a primary key or unique constraint on a distributed table only when it includes
the distribution column, since uniqueness is checked on one shard. Four keys did not:

``retrieval_document``                 primary key ``(id)`` -> ``(namespace_id, id)``
``retrieval_document_history``         primary key ``(id)`` -> ``(namespace_id, id)``
``retrieval_posting_document_term``    unique ``(document_id, term)``
                                       -> ``(namespace_id, document_id, term)``
``retrieval_posting_history_document_term``   the same

``id`` stays a global identity, so a document id is still unique on its own (the
indexer, the query and the as-of views use it as before); the key just states it
within the namespace. Every statement that reads these indexes already names
``namespace_id`` (the statement's own condition and the row-level-security policy),
so each probe is still one descent with every key column fixed. The posting index
carried ``namespace_id`` as an INCLUDE column (``0006``, for index-only probes); it
moves into the key, so its entries are the same size and the probes stay index-only.

Rebuilding the four indexes takes an ACCESS EXCLUSIVE lock on each table for the time
it takes (seconds per million postings); run it in a quiet moment on a large index.
"""

from django.db import migrations

FORWARD = """
ALTER TABLE retrieval_document DROP CONSTRAINT retrieval_document_pkey,
    ADD CONSTRAINT retrieval_document_pkey PRIMARY KEY (namespace_id, id);
ALTER TABLE retrieval_document_history DROP CONSTRAINT retrieval_document_history_pkey,
    ADD CONSTRAINT retrieval_document_history_pkey PRIMARY KEY (namespace_id, id);
DROP INDEX retrieval_posting_document_term;
CREATE UNIQUE INDEX retrieval_posting_document_term
    ON retrieval_posting (namespace_id, document_id, term)
    INCLUDE (tf_cues, tf_body, cue_length, body_length);
DROP INDEX retrieval_posting_history_document_term;
CREATE UNIQUE INDEX retrieval_posting_history_document_term
    ON retrieval_posting_history (namespace_id, document_id, term)
    INCLUDE (tf_cues, tf_body, cue_length, body_length);
"""

BACKWARD = """
ALTER TABLE retrieval_document DROP CONSTRAINT retrieval_document_pkey,
    ADD CONSTRAINT retrieval_document_pkey PRIMARY KEY (id);
ALTER TABLE retrieval_document_history DROP CONSTRAINT retrieval_document_history_pkey,
    ADD CONSTRAINT retrieval_document_history_pkey PRIMARY KEY (id);
DROP INDEX retrieval_posting_document_term;
CREATE UNIQUE INDEX retrieval_posting_document_term ON retrieval_posting (document_id, term)
    INCLUDE (namespace_id, tf_cues, tf_body, cue_length, body_length);
DROP INDEX retrieval_posting_history_document_term;
CREATE UNIQUE INDEX retrieval_posting_history_document_term
    ON retrieval_posting_history (document_id, term)
    INCLUDE (namespace_id, tf_cues, tf_body, cue_length, body_length);
"""


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0011_posting_term_signature")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
