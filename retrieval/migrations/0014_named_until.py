"""``retrieval_named_until(body)``: the end of the last day, month or year a memory's
text names, for ageing (``retrieve.sql``: a memory does not fade while it is to come).

A memory counts its age from ``updated``, the time it was said. For a plan that is wrong
until its day comes: "I want to do an MBA next year (2027)", said in February and asked
after in December, had faded to little more than half, below an unrelated memory said
the same day that was no plan. Once the day has gone by, the memory has faded from when
it was said, as any other: counting from the day itself would rank a later event above
an earlier one that answers the question better.

The dates a memory names are written in its text as ISO dates (the offline extractor
puts them beside the phrase, "next year (2027)", "on the 29th (2026-04-29)"; the model
path writes them in the sentence). The last one counts (a range's end): a full date
anywhere, or a year and month or a year in brackets. A day ends at the next midnight
(UTC), a month at the first of the next, a year at the next 1 January; a day past its
month's end rolls over, never an error. ~4 us a call on the bench machine, for the fused
candidates of a fading tier only (a regular expression per candidate rather than a
column: the index keeps no parse of a memory's text).
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION retrieval_named_until(body text) RETURNS timestamptz
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
    named text;
BEGIN
    IF strpos(body, '-') = 0 AND strpos(body, '(') = 0 THEN
        RETURN NULL;  -- names no date: most memories, at the cost of two scans
    END IF;
    -- the last date named (greedy ".*"): a range's end, a plan's day
    named := substring(body FROM
        '.*(?:^|[^0-9-])([12][0-9]{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])(?![0-9])'
        '|\([12][0-9]{3}(?:-(?:0[1-9]|1[0-2]))?\))');
    IF named IS NULL THEN
        RETURN NULL;
    END IF;
    named := btrim(named, '()');
    RETURN (CASE length(named)
        WHEN 10 THEN make_date(left(named, 4)::int, substr(named, 6, 2)::int, 1)
                     + right(named, 2)::int
        WHEN 7 THEN (make_date(left(named, 4)::int, right(named, 2)::int, 1)
                     + interval '1 month')::date
        ELSE make_date(named::int + 1, 1, 1)
    END)::timestamp AT TIME ZONE 'UTC';
END
$fn$;
"""

BACKWARD = "DROP FUNCTION IF EXISTS retrieval_named_until(text);"


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0013_commit_said")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
