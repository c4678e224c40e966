"""The index state remembers a commit being applied in steps.

A commit that changes more than ``GITLOOM_INDEX_STEP_FILES`` memory files (a large
import) is applied in several transactions (``retrieval.indexer``): ``applying_commit``
is the commit, ``applied_to`` the last path (in path order) whose change is in the head
tables. Both are empty when no commit is half applied. While one is, ``indexed_commit``
is still the last commit applied in full, and retrieval reads the index as of it
(``retrieval.selectors.retrieve``).
"""

from django.db import migrations

FORWARD = """
ALTER TABLE retrieval_index_state
    ADD COLUMN applying_commit varchar(40) NOT NULL DEFAULT '',
    ADD COLUMN applied_to text NOT NULL DEFAULT '';
"""
BACKWARD = """
ALTER TABLE retrieval_index_state DROP COLUMN applying_commit, DROP COLUMN applied_to;
"""


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0009_asof_views_pull_up")]
    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
