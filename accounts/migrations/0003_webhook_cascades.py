"""The webhook tables' foreign keys cascade in the database (``ON DELETE CASCADE``).

Django makes each foreign key without an ON DELETE action, and creates those of a new
table only at the end of the migration that makes it, so this is a migration of its
own. The database cascades instead of Django because a cascade is not bound by
row-level security, and Django's own would have to see the rows: deleting an account
(or an endpoint) outside its scope would leave them, and fail on the foreign key.
"""

from django.db import migrations

CASCADE_SQL = """
DO $fn$
DECLARE
    fk record;
BEGIN
    FOR fk IN
        SELECT c.conname, c.conrelid::regclass AS tab, pg_get_constraintdef(c.oid) AS def
        FROM pg_constraint c
        WHERE c.contype = 'f' AND c.conrelid::regclass::text LIKE 'accounts_webhook_%'
          AND pg_get_constraintdef(c.oid) NOT LIKE '%ON DELETE%'
    LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', fk.tab, fk.conname);
        EXECUTE format(
            'ALTER TABLE %s ADD CONSTRAINT %I %s',
            fk.tab, fk.conname,
            replace(fk.def, 'DEFERRABLE INITIALLY DEFERRED', 'ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED'));
    END LOOP;
END
$fn$;
"""


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_webhooks")]

    operations = [
        migrations.RunSQL(
            CASCADE_SQL,
            reverse_sql=migrations.RunSQL.noop,
        )
    ]
