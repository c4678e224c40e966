"""The database cache's table (what ``manage.py createcachetable`` makes for the
``throttle`` cache alias): brute-force counters shared by every process and node."""

from django.db import migrations

CREATE = """
CREATE TABLE IF NOT EXISTS gitloom_cache (
    cache_key varchar(255) NOT NULL PRIMARY KEY,
    value text NOT NULL,
    expires timestamp with time zone NOT NULL
);
CREATE INDEX IF NOT EXISTS gitloom_cache_expires ON gitloom_cache (expires);
"""


class Migration(migrations.Migration):
    dependencies: list = []
    operations = [migrations.RunSQL(CREATE, "DROP TABLE IF EXISTS gitloom_cache;")]
