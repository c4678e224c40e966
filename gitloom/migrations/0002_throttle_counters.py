"""Brute-force counters as rows counted in one statement (``gitloom.core.throttle``).

The database cache (``0001``) was read, then written: two processes counting the same
key at once could both read n and both write n + 1, letting attempts past the limit
through. Here an attempt is one ``INSERT ... ON CONFLICT DO UPDATE ... RETURNING``,
which Postgres serialises on the key's row. The cache table stays (empty) for a
rollback to the cache-based counters.
"""

from django.db import migrations

CREATE = """
CREATE TABLE gitloom_throttle (
    key varchar(100) PRIMARY KEY,
    count integer NOT NULL,
    window_ends timestamptz NOT NULL
);
CREATE INDEX gitloom_throttle_window_ends ON gitloom_throttle (window_ends);
"""


class Migration(migrations.Migration):
    dependencies = [("gitloom", "0001_throttle_cache_table")]
    operations = [migrations.RunSQL(CREATE, "DROP TABLE IF EXISTS gitloom_throttle;")]
