"""``retrieval_named_until(body)``: the end of the latest day, month or year a memory's
text names, for ageing (``retrieve.sql``: a memory does not fade before it).

A memory counts its age from ``updated``, the time it was said. For a plan that is wrong
until its day comes: "I want to do an MBA next year (2027)", said in February and asked
after in December, had faded to little more than half, below an unrelated memory said
the same day that was no plan. The dates a memory names are written in its text as ISO
dates (the offline extractor puts them beside the phrase, "next year (2027)", "on the
29th (2026-04-29)"; the model path writes them in the sentence): a full date anywhere, a
year and month or a year in brackets. A day ends at the next midnight (UTC), a month at
the first of the next, a year at the next 1 January. Immutable and cheap: it runs only
for the fused candidates of a fading tier.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION retrieval_named_until(body text) RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
SELECT max(until) FROM (
    SELECT (make_date(m[1]::int, m[2]::int, 1) + m[3]::int)::timestamp AT TIME ZONE 'UTC'
    FROM regexp_matches(
        body, '(?<![0-9-])([12][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(?![0-9])', 'g'
    ) m
    UNION ALL
    SELECT (CASE WHEN m[2] IS NULL THEN make_date(m[1]::int + 1, 1, 1)
                 ELSE (make_date(m[1]::int, m[2]::int, 1) + interval '1 month')::date
            END)::timestamp AT TIME ZONE 'UTC'
    FROM regexp_matches(body, '\(([12][0-9]{3})(?:-(0[1-9]|1[0-2]))?\)', 'g') m
) named(until)
$fn$;
"""

BACKWARD = "DROP FUNCTION IF EXISTS retrieval_named_until(text);"


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0013_commit_said")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
