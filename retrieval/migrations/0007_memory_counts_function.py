"""``retrieval_memory_counts(ids)``: how many memories each of several namespaces' index
holds, in one statement.

Row-level security lets no single query see several namespaces' index rows (the point
of it), so a list of namespaces with their memory counts took one scoped read per
namespace. This function scopes itself to each namespace in turn, as the delete trigger
of ``0002_index_tables`` does, reads that namespace's ``doc_count`` and puts the
caller's scope back: a list page's query count no longer grows with its rows.
"""

from django.db import migrations

FORWARD = """
CREATE FUNCTION retrieval_memory_counts(ns bigint[])
RETURNS TABLE (namespace_id bigint, doc_count integer)
LANGUAGE plpgsql AS $fn$
DECLARE
    previous text := coalesce(current_setting('gitloom.namespace_id', true), '');
    one bigint;
BEGIN
    FOREACH one IN ARRAY ns LOOP
        PERFORM set_config('gitloom.namespace_id', one::text, true);
        RETURN QUERY
            SELECT s.namespace_id, s.doc_count FROM retrieval_index_state s
            WHERE s.namespace_id = one;
    END LOOP;
    PERFORM set_config('gitloom.namespace_id', previous, true);
END
$fn$;
"""

BACKWARD = "DROP FUNCTION IF EXISTS retrieval_memory_counts(bigint[]);"


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0006_posting_probe_index_only")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
