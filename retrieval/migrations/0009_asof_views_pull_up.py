"""The as-of views filter outside their unions, so a join can probe each half's index.

Postgres pulls a UNION ALL's branches up into an append relation only when they have no
WHERE clause of their own ("no place to put them in an appendrel"); a branch that keeps
one stays a subquery, and a join to the view can then only scan it whole and hash it.
``0008``'s views filtered each branch by its validity range, so an as-of query joined
its 100 fused hits to every document of the namespace (and likewise for links and
term statistics): ~10x a head query at 10,000 memories. Here each branch is a plain
projection (the head's ``to_seq`` a constant that no commit reaches) and the range is
one condition on the union, which the planner pushes into both branches as it does
any restriction, keeping their index paths, parameterised ones included. The commit
number is read once per statement rather than once per row.
"""

from django.db import migrations

# A scalar subquery: evaluated once per statement (an InitPlan), where the bare
# expression was evaluated for every row a scan read (2 GUC look-ups a row: about half
# the time of an exact scan of 20,000 cue vectors).
AS_OF = "(SELECT NULLIF(current_setting('gitloom.as_of_seq', true), '')::integer)"
OPEN = "2147483647"  # to_seq of a head row: after every commit

DOCUMENT_COLUMNS = (
    "id, namespace_id, path, blob_sha, tier, tags, cues, created, updated, confidence,"
    " sources, related, body, cue_length, body_length"
)
POSTING_COLUMNS = (
    "namespace_id, term, document_id, tf_cues, tf_body, cue_length, body_length, impact"
)
TERM_COLUMNS = "namespace_id, term, df"
CUE_COLUMNS = "namespace_id, document_id, cue, tier, tags, embedding"
EDGE_COLUMNS = "namespace_id, src_document_id, src_path, dst_path, type"


UNION = """SELECT __COLUMNS__ FROM (
    SELECT __COLUMNS__, from_seq, __OPEN__ AS to_seq FROM __HEAD__
    UNION ALL
    SELECT __COLUMNS__, from_seq, to_seq FROM __HISTORY__
) versions WHERE from_seq <= __AS_OF__ AND to_seq > __AS_OF__"""

VIEWS = """
CREATE OR REPLACE VIEW retrieval_asof_document WITH (security_invoker = true) AS __DOCUMENTS__;
CREATE OR REPLACE VIEW retrieval_asof_posting WITH (security_invoker = true) AS __POSTINGS__;
CREATE OR REPLACE VIEW retrieval_asof_term_stat WITH (security_invoker = true) AS __TERMS__;
CREATE OR REPLACE VIEW retrieval_asof_cue WITH (security_invoker = true) AS __CUES__;
CREATE OR REPLACE VIEW retrieval_asof_edge WITH (security_invoker = true) AS
SELECT e.namespace_id, e.src_document_id, e.src_path, e.dst_path, e.type,
       d.id AS dst_document_id
FROM (__EDGES__) e
LEFT JOIN retrieval_asof_document d ON d.namespace_id = e.namespace_id AND d.path = e.dst_path;
"""


def _union(head: str, history: str, columns: str) -> str:
    # Placeholders, not f-string fields (as in 0002): only these constants go in.
    return (
        UNION.replace("__COLUMNS__", columns)
        .replace("__HEAD__", head)
        .replace("__HISTORY__", history)
        .replace("__OPEN__", OPEN)
        .replace("__AS_OF__", AS_OF)
    )


FORWARD = (
    VIEWS.replace(
        "__DOCUMENTS__",
        _union("retrieval_document", "retrieval_document_history", DOCUMENT_COLUMNS),
    )
    .replace(
        "__POSTINGS__", _union("retrieval_posting", "retrieval_posting_history", POSTING_COLUMNS)
    )
    .replace(
        "__TERMS__", _union("retrieval_term_stat", "retrieval_term_stat_history", TERM_COLUMNS)
    )
    .replace("__CUES__", _union("retrieval_cue", "retrieval_cue_history", CUE_COLUMNS))
    .replace("__EDGES__", _union("retrieval_edge", "retrieval_edge_history", EDGE_COLUMNS))
)


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0008_index_history")]

    # Back: 0008's views are recreated by migrating 0008 again (its own SQL).
    operations = [migrations.RunSQL(FORWARD, migrations.RunSQL.noop)]
