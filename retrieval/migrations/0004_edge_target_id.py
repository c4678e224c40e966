"""Edges know their target's document id, so the graph arm joins no documents.

A ``related`` link names a path; the memory at that path may not exist yet (links are
checked when written, but an import can order files any way) or may be rewritten under
a new document id. The indexer keeps ``dst_document_id`` pointing at the current
document for ``dst_path`` (NULL while there is none). Following a link either way is
then one index lookup on the edge table, which also takes about a millisecond of
planning off every retrieval.

Existing edges are resolved here one namespace at a time: row-level security binds
the migration too, so it scopes itself to each namespace in turn.
"""

from django.db import migrations, models

FORWARD = """
ALTER TABLE retrieval_edge ADD COLUMN dst_document_id bigint;
CREATE INDEX retrieval_edge_dst_document ON retrieval_edge (namespace_id, dst_document_id);
DO $$
DECLARE
    ns bigint;
BEGIN
    FOR ns IN SELECT id FROM namespaces_namespace LOOP
        PERFORM set_config('gitloom.namespace_id', ns::text, true);
        UPDATE retrieval_edge e SET dst_document_id = d.id
        FROM retrieval_document d
        WHERE e.namespace_id = ns AND d.namespace_id = ns AND d.path = e.dst_path;
    END LOOP;
    PERFORM set_config('gitloom.namespace_id', '', true);
END
$$;
"""

BACKWARD = """
DROP INDEX retrieval_edge_dst_document;
ALTER TABLE retrieval_edge DROP COLUMN dst_document_id;
"""


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0003_posting_impact_order")]

    operations = [
        migrations.RunSQL(FORWARD, BACKWARD),
        migrations.AddField(
            model_name="edge",
            name="dst_document",
            field=models.ForeignKey(
                null=True,
                on_delete=models.DO_NOTHING,
                related_name="+",
                to="retrieval.document",
            ),
        ),
    ]
