"""TRUNCATE skips row triggers: a statement-level trigger refuses it on the release tables.

``datasets/migrations/0005_release_triggers.py`` refuses row-level changes to a published release
and its files; ``TRUNCATE datasets_releasefile`` (or ``datasets_release ... CASCADE``) would still
wipe them. While any release is published, TRUNCATE of either table raises an integrity error.
PostgreSQL only: SQLite has no TRUNCATE (its ``DELETE FROM`` runs the row triggers).

The triggers stop a statement, not an owner: a role that owns the tables can drop them, and a
superuser can switch triggers off (``session_replication_role``). The README says which role the
app should run as.
"""

from django.db import migrations

TABLES = ("datasets_release", "datasets_releasefile")

FUNCTION = """
CREATE OR REPLACE FUNCTION releases_refuse_truncate() RETURNS trigger AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM datasets_release WHERE status = 'published') THEN
        RAISE EXCEPTION 'TRUNCATE of % refused: it holds published releases, which cannot change',
            TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql
"""


def create(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTION, params=None)
    for table in TABLES:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION releases_refuse_truncate()"
        )


def drop(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
    schema_editor.execute("DROP FUNCTION IF EXISTS releases_refuse_truncate()")


class Migration(migrations.Migration):
    dependencies = [("releases", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
