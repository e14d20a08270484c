"""Database triggers that keep a published release as it was, whatever path the write takes.

``Release.save()``/``delete()`` already refuse; these catch what bypasses them: ``QuerySet.update()``,
``QuerySet.delete()``, ``bulk_update`` and raw SQL. A published ``datasets_release`` row refuses
UPDATE and DELETE (the draft -> published update itself is allowed: the old row is a draft);
``datasets_releasefile`` refuses INSERT, UPDATE and DELETE of a published release's files.

Both vendors raise an integrity error (SQLSTATE 23000 on PostgreSQL, SQLITE_CONSTRAINT on
SQLite), which Django turns into ``django.db.IntegrityError``.

SQLite caveat: Django rebuilds a table (copy, drop, rename) for most ALTERs on SQLite, which
drops its triggers. A later migration altering these two tables must run TRIGGERS[sqlite] again;
the trigger tests run on SQLite too and would notice.
"""

from django.db import migrations

MESSAGE = "release is published and cannot change: publish a correction as a new version"
FILE_MESSAGE = "the files of a published release cannot change: publish a correction as a new version"

POSTGRESQL = [
    """
CREATE OR REPLACE FUNCTION datasets_release_frozen() RETURNS trigger AS $$
BEGIN
    IF OLD.status = 'published' THEN
        RAISE EXCEPTION 'release % is published and cannot change: publish a correction as a new version',
            OLD.version USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql
""",
    """
CREATE TRIGGER datasets_release_frozen
    BEFORE UPDATE OR DELETE ON datasets_release
    FOR EACH ROW EXECUTE FUNCTION datasets_release_frozen()
""",
    """
CREATE OR REPLACE FUNCTION datasets_releasefile_frozen() RETURNS trigger AS $$
DECLARE
    frozen text;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        SELECT version INTO frozen FROM datasets_release WHERE id = OLD.release_id AND status = 'published';
    END IF;
    IF frozen IS NULL AND TG_OP <> 'DELETE' THEN
        SELECT version INTO frozen FROM datasets_release WHERE id = NEW.release_id AND status = 'published';
    END IF;
    IF frozen IS NOT NULL THEN
        RAISE EXCEPTION 'the files of release % cannot change: it is published (publish a correction as a new version)',
            frozen USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql
""",
    """
CREATE TRIGGER datasets_releasefile_frozen
    BEFORE INSERT OR UPDATE OR DELETE ON datasets_releasefile
    FOR EACH ROW EXECUTE FUNCTION datasets_releasefile_frozen()
""",
]

POSTGRESQL_REVERSE = [
    "DROP TRIGGER IF EXISTS datasets_releasefile_frozen ON datasets_releasefile",
    "DROP FUNCTION IF EXISTS datasets_releasefile_frozen()",
    "DROP TRIGGER IF EXISTS datasets_release_frozen ON datasets_release",
    "DROP FUNCTION IF EXISTS datasets_release_frozen()",
]

_PUBLISHED = "(SELECT status FROM datasets_release WHERE id = {row}.release_id) = 'published'"
SQLITE = [
    f"""CREATE TRIGGER IF NOT EXISTS datasets_release_frozen_update
    BEFORE UPDATE ON datasets_release FOR EACH ROW WHEN OLD.status = 'published'
    BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END""",
    f"""CREATE TRIGGER IF NOT EXISTS datasets_release_frozen_delete
    BEFORE DELETE ON datasets_release FOR EACH ROW WHEN OLD.status = 'published'
    BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END""",
    f"""CREATE TRIGGER IF NOT EXISTS datasets_releasefile_frozen_insert
    BEFORE INSERT ON datasets_releasefile FOR EACH ROW WHEN {_PUBLISHED.format(row="NEW")}
    BEGIN SELECT RAISE(ABORT, '{FILE_MESSAGE}'); END""",
    f"""CREATE TRIGGER IF NOT EXISTS datasets_releasefile_frozen_update
    BEFORE UPDATE ON datasets_releasefile FOR EACH ROW
    WHEN {_PUBLISHED.format(row="OLD")} OR {_PUBLISHED.format(row="NEW")}
    BEGIN SELECT RAISE(ABORT, '{FILE_MESSAGE}'); END""",
    f"""CREATE TRIGGER IF NOT EXISTS datasets_releasefile_frozen_delete
    BEFORE DELETE ON datasets_releasefile FOR EACH ROW WHEN {_PUBLISHED.format(row="OLD")}
    BEGIN SELECT RAISE(ABORT, '{FILE_MESSAGE}'); END""",
]
SQLITE_REVERSE = [
    f"DROP TRIGGER IF EXISTS {name}"
    for name in (
        "datasets_release_frozen_update",
        "datasets_release_frozen_delete",
        "datasets_releasefile_frozen_insert",
        "datasets_releasefile_frozen_update",
        "datasets_releasefile_frozen_delete",
    )
]
TRIGGERS = {"postgresql": (POSTGRESQL, POSTGRESQL_REVERSE), "sqlite": (SQLITE, SQLITE_REVERSE)}


def _run(schema_editor, forward: bool) -> None:
    vendor = schema_editor.connection.vendor
    if vendor not in TRIGGERS:
        # Other databases get the model-level checks only; say so rather than pretend.
        raise RuntimeError(f"no release immutability triggers for {vendor}: add them to this migration")
    for statement in TRIGGERS[vendor][0 if forward else 1]:
        # params=None: the plpgsql bodies hold % placeholders the driver must not interpolate.
        schema_editor.execute(statement, params=None)


def create_triggers(apps, schema_editor) -> None:
    _run(schema_editor, forward=True)


def drop_triggers(apps, schema_editor) -> None:
    _run(schema_editor, forward=False)


class Migration(migrations.Migration):
    dependencies = [("datasets", "0004_release")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
