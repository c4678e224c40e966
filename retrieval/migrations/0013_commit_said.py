"""``retrieval_commit.said``: when a commit's change was said, beside when it was stored.

A job's commit carries the conversation's time as its git author date (the latest message
timestamp of the job) and the time it was stored as its committer date; ``as_of_by=said``
(``retrieval.asof``) picks a commit by the first. Commits indexed before this were all
written with one time for both, so their ``said`` is their ``committed``.
"""

from django.db import migrations

FORWARD = """
ALTER TABLE retrieval_commit ADD COLUMN said timestamptz;
UPDATE retrieval_commit SET said = committed;
ALTER TABLE retrieval_commit ALTER COLUMN said SET NOT NULL;
CREATE INDEX retrieval_commit_said ON retrieval_commit (namespace_id, said, seq);
"""

BACKWARD = """
DROP INDEX retrieval_commit_said;
ALTER TABLE retrieval_commit DROP COLUMN said;
"""


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0012_keys_include_namespace")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
