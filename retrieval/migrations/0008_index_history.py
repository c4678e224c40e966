"""The index keeps every indexed version: retrieval as of a past commit.

Design (docs/design/retrieval.md, "Retrieval as of a commit"): the head tables stay exactly
what the head query reads (no new condition, no new index, the same plans); what a
commit replaced or removed moves to a history twin of each table, stamped with the
validity range ``[from_seq, to_seq)`` in the namespace's commit sequence:

``retrieval_commit``                 every indexed commit of the namespace, in order
                                     (``seq`` 1, 2, ...), with its time and the BM25
                                     totals (document count, cue and body lengths)
                                     once it was applied
``retrieval_document_history``       documents, postings, cues (with their vectors),
``retrieval_posting_history``        edges and term document frequencies that were at
``retrieval_cue_history``            the head from commit ``from_seq`` until commit
``retrieval_edge_history``           ``to_seq`` replaced or removed them
``retrieval_term_stat_history``

Head rows get ``from_seq`` (the commit that made them), so a row is visible at commit
``S`` when ``from_seq <= S`` (head) or ``from_seq <= S < to_seq`` (history). The
``retrieval_asof_*`` views union the two under the transaction-local setting
``gitloom.as_of_seq`` (unset: they show nothing), and the as-of query is the head
statement with its tables renamed to these views (``retrieval/asof.py``). The views are
``security_invoker``, and every new table has the same forced row-level security as
the head tables, so the namespace boundary holds through them.

Rows indexed before this migration have ``from_seq`` 0 and no commit rows: the next
indexer run of such a namespace finds its indexed commit missing from
``retrieval_commit`` and rebuilds the namespace's index, history included, from the
repository (``manage.py reindex`` does it at once).
"""

from django.db import migrations

SCOPE = "NULLIF(current_setting('gitloom.namespace_id', true), '')::bigint"
AS_OF = "NULLIF(current_setting('gitloom.as_of_seq', true), '')::integer"

HISTORY_TABLES = (
    "retrieval_commit",
    "retrieval_document_history",
    "retrieval_posting_history",
    "retrieval_term_stat_history",
    "retrieval_cue_history",
    "retrieval_edge_history",
)
HEAD_TABLES = (
    "retrieval_document",
    "retrieval_posting",
    "retrieval_term_stat",
    "retrieval_cue",
    "retrieval_edge",
)


def _rls(table: str) -> str:
    return f"""
ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE {table} FORCE ROW LEVEL SECURITY;
CREATE POLICY namespace_isolation ON {table}
    USING (namespace_id = {SCOPE}) WITH CHECK (namespace_id = {SCOPE});
"""


DOCUMENT_COLUMNS = (
    "id, namespace_id, path, blob_sha, tier, tags, cues, created, updated, confidence,"
    " sources, related, body, cue_length, body_length"
)
POSTING_COLUMNS = (
    "namespace_id, term, document_id, tf_cues, tf_body, cue_length, body_length, impact"
)

FORWARD = """
ALTER TABLE retrieval_index_state ADD COLUMN indexed_seq integer NOT NULL DEFAULT 0;
__FROM_SEQ_COLUMNS__
CREATE TABLE retrieval_commit (
    namespace_id bigint NOT NULL,
    seq integer NOT NULL,
    sha varchar(40) COLLATE "C" NOT NULL,
    committed timestamptz NOT NULL,
    doc_count integer NOT NULL,
    cue_length_total double precision NOT NULL,
    body_length_total double precision NOT NULL,
    PRIMARY KEY (namespace_id, seq)
);
-- A linear history never repeats a commit; the C collation serves prefix look-ups.
CREATE UNIQUE INDEX retrieval_commit_sha ON retrieval_commit (namespace_id, sha);
CREATE INDEX retrieval_commit_time ON retrieval_commit (namespace_id, committed, seq);

CREATE TABLE retrieval_document_history (
    id bigint PRIMARY KEY,  -- the id it had at the head, so its other rows still point at it
    namespace_id bigint NOT NULL,
    path varchar(200) NOT NULL,
    blob_sha varchar(40) NOT NULL,
    tier varchar(16) NOT NULL,
    tags text[] NOT NULL,
    cues text[] NOT NULL,
    created timestamptz NOT NULL,
    updated timestamptz NOT NULL,
    confidence double precision,
    sources text[] NOT NULL,
    related jsonb NOT NULL,
    body text NOT NULL,
    cue_length real NOT NULL,
    body_length real NOT NULL,
    from_seq integer NOT NULL,
    to_seq integer NOT NULL
);
CREATE INDEX retrieval_document_history_path
    ON retrieval_document_history (namespace_id, path, from_seq);

CREATE TABLE retrieval_posting_history (
    namespace_id bigint NOT NULL,
    term text COLLATE "C" NOT NULL,
    document_id bigint NOT NULL,
    tf_cues real NOT NULL,
    tf_body real NOT NULL,
    cue_length real NOT NULL,
    body_length real NOT NULL,
    impact real NOT NULL,
    from_seq integer NOT NULL,
    to_seq integer NOT NULL
);
CREATE INDEX retrieval_posting_history_impact ON retrieval_posting_history
    (namespace_id, term, impact DESC, document_id)
    INCLUDE (tf_cues, tf_body, cue_length, body_length, from_seq, to_seq);
CREATE UNIQUE INDEX retrieval_posting_history_document_term
    ON retrieval_posting_history (document_id, term)
    INCLUDE (namespace_id, tf_cues, tf_body, cue_length, body_length);

CREATE TABLE retrieval_term_stat_history (
    namespace_id bigint NOT NULL,
    term text COLLATE "C" NOT NULL,
    df integer NOT NULL CHECK (df > 0),
    from_seq integer NOT NULL,
    to_seq integer NOT NULL,
    PRIMARY KEY (namespace_id, term, from_seq)
);

-- The vector column as the head's (LIKE): its dimensions follow the head table.
CREATE TABLE retrieval_cue_history (LIKE retrieval_cue INCLUDING DEFAULTS);
ALTER TABLE retrieval_cue_history ADD COLUMN to_seq integer NOT NULL;
ALTER TABLE retrieval_cue_history ADD PRIMARY KEY (namespace_id, document_id, cue);
CREATE INDEX retrieval_cue_history_text ON retrieval_cue_history (namespace_id, cue);

CREATE TABLE retrieval_edge_history (
    namespace_id bigint NOT NULL,
    src_document_id bigint NOT NULL,
    src_path varchar(200) NOT NULL,
    dst_path varchar(200) NOT NULL,
    type varchar(64) NOT NULL,
    from_seq integer NOT NULL,
    to_seq integer NOT NULL,
    PRIMARY KEY (namespace_id, src_document_id, type, dst_path)
);
CREATE INDEX retrieval_edge_history_dst ON retrieval_edge_history (namespace_id, dst_path);
__POLICIES__
-- What was at the head at commit gitloom.as_of_seq: the head rows made by then and the
-- history rows valid then. Same column types on both sides, so the planner flattens
-- each union and pushes the statement's conditions (namespace, term, id, path) into
-- both halves' indexes.
CREATE VIEW retrieval_asof_index_state WITH (security_invoker = true) AS
SELECT namespace_id, sha AS indexed_commit, doc_count, cue_length_total, body_length_total
FROM retrieval_commit WHERE seq = __AS_OF__;

CREATE VIEW retrieval_asof_document WITH (security_invoker = true) AS
SELECT __DOCUMENT_COLUMNS__ FROM retrieval_document WHERE from_seq <= __AS_OF__
UNION ALL
SELECT __DOCUMENT_COLUMNS__ FROM retrieval_document_history
WHERE from_seq <= __AS_OF__ AND to_seq > __AS_OF__;

CREATE VIEW retrieval_asof_posting WITH (security_invoker = true) AS
SELECT __POSTING_COLUMNS__ FROM retrieval_posting WHERE from_seq <= __AS_OF__
UNION ALL
SELECT __POSTING_COLUMNS__ FROM retrieval_posting_history
WHERE from_seq <= __AS_OF__ AND to_seq > __AS_OF__;

CREATE VIEW retrieval_asof_term_stat WITH (security_invoker = true) AS
SELECT namespace_id, term, df FROM retrieval_term_stat WHERE from_seq <= __AS_OF__
UNION ALL
SELECT namespace_id, term, df FROM retrieval_term_stat_history
WHERE from_seq <= __AS_OF__ AND to_seq > __AS_OF__;

CREATE VIEW retrieval_asof_cue WITH (security_invoker = true) AS
SELECT namespace_id, document_id, cue, tier, tags, embedding FROM retrieval_cue
WHERE from_seq <= __AS_OF__
UNION ALL
SELECT namespace_id, document_id, cue, tier, tags, embedding FROM retrieval_cue_history
WHERE from_seq <= __AS_OF__ AND to_seq > __AS_OF__;

-- A link's target is whichever memory was at its path at that commit.
CREATE VIEW retrieval_asof_edge WITH (security_invoker = true) AS
SELECT e.namespace_id, e.src_document_id, e.src_path, e.dst_path, e.type,
       d.id AS dst_document_id
FROM (
    SELECT namespace_id, src_document_id, src_path, dst_path, type FROM retrieval_edge
    WHERE from_seq <= __AS_OF__
    UNION ALL
    SELECT namespace_id, src_document_id, src_path, dst_path, type FROM retrieval_edge_history
    WHERE from_seq <= __AS_OF__ AND to_seq > __AS_OF__
) e
LEFT JOIN retrieval_asof_document d ON d.namespace_id = e.namespace_id AND d.path = e.dst_path;

-- A deleted namespace's history goes with its head rows (0002's trigger, extended).
CREATE OR REPLACE FUNCTION retrieval_namespace_forget() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
    previous text := coalesce(current_setting('gitloom.namespace_id', true), '');
    part text := 'retrieval_cue_ns_' || OLD.id;
BEGIN
    PERFORM set_config('gitloom.namespace_id', OLD.id::text, true);
    DELETE FROM retrieval_edge WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_posting WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_term_stat WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_document WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_index_state WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_edge_history WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_posting_history WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_term_stat_history WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_cue_history WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_document_history WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_commit WHERE namespace_id = OLD.id;
    IF to_regclass(part) IS NOT NULL THEN
        EXECUTE format('TRUNCATE %I', part);
    END IF;
    PERFORM set_config('gitloom.namespace_id', previous, true);
    RETURN OLD;
END
$fn$;
"""
# Placeholders, not f-string fields (as in 0002): only these constants go in.
FORWARD = (
    FORWARD.replace(
        "__FROM_SEQ_COLUMNS__",
        "".join(
            f"ALTER TABLE {table} ADD COLUMN from_seq integer NOT NULL DEFAULT 0;\n"
            for table in HEAD_TABLES
        ),
    )
    .replace("__POLICIES__", "".join(_rls(table) for table in HISTORY_TABLES))
    .replace("__AS_OF__", AS_OF)
    .replace("__DOCUMENT_COLUMNS__", DOCUMENT_COLUMNS)
    .replace("__POSTING_COLUMNS__", POSTING_COLUMNS)
)

BACKWARD = """
CREATE OR REPLACE FUNCTION retrieval_namespace_forget() RETURNS trigger
LANGUAGE plpgsql AS $fn$
DECLARE
    previous text := coalesce(current_setting('gitloom.namespace_id', true), '');
    part text := 'retrieval_cue_ns_' || OLD.id;
BEGIN
    PERFORM set_config('gitloom.namespace_id', OLD.id::text, true);
    DELETE FROM retrieval_edge WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_posting WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_term_stat WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_document WHERE namespace_id = OLD.id;
    DELETE FROM retrieval_index_state WHERE namespace_id = OLD.id;
    IF to_regclass(part) IS NOT NULL THEN
        EXECUTE format('TRUNCATE %I', part);
    END IF;
    PERFORM set_config('gitloom.namespace_id', previous, true);
    RETURN OLD;
END
$fn$;
DROP VIEW IF EXISTS retrieval_asof_edge, retrieval_asof_cue, retrieval_asof_term_stat,
    retrieval_asof_posting, retrieval_asof_document, retrieval_asof_index_state;
__DROPS__
ALTER TABLE retrieval_index_state DROP COLUMN indexed_seq;
""".replace(
    "__DROPS__",
    "".join(f"DROP TABLE IF EXISTS {table};\n" for table in HISTORY_TABLES)
    + "".join(f"ALTER TABLE {table} DROP COLUMN from_seq;\n" for table in HEAD_TABLES),
)


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0007_memory_counts_function")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
