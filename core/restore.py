"""A backup (``core/backup.py``) put back into the configured database and default storage.

Every file's checksum is verified before anything is touched. The database is restored by ``pg_restore
--no-owner`` piped into one ``psql --single-transaction``: a restore that fails midway leaves the database as it
was. The dump holds the functions and triggers, so a published release is guarded again the moment it is back.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from django.core.files import File
from django.core.files.storage import Storage, default_storage
from django.core.management import call_command
from django.db import connections
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.loader import MigrationLoader

from core.backup import (
    CHUNK,
    DUMP,
    FORMAT,
    MANIFEST,
    STORAGE,
    BackupError,
    client_command,
    file_facts,
    require_postgresql,
    safe_relative,
)

# Relations outside PostgreSQL's own schemas and not made by an extension: a database without any is empty.
USER_RELATIONS = """
SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%%'
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                  AND d.deptype = 'e')
ORDER BY 1
"""
# --replace: the schemas' tables, views, sequences and functions go first, in the restore's own transaction, so
# that tables a newer migration made do not survive beside the backup's (pg_restore --clean drops only the dump's).
DROP_EVERYTHING = """
DO $$
DECLARE item record;
BEGIN
    FOR item IN
        SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ANY (current_schemas(false)) AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
          -- an extension's, or a sequence a table's column owns (dropped with the table)
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                          AND (d.deptype = 'e' OR (c.relkind = 'S' AND d.deptype IN ('a', 'i'))))
    LOOP
        EXECUTE format('DROP %s IF EXISTS %I.%I CASCADE',
            CASE item.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
                 WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
            item.nspname, item.relname);
    END LOOP;
    FOR item IN
        SELECT p.oid::regprocedure AS signature, p.prokind FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = ANY (current_schemas(false))
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                          AND d.deptype = 'e')
    LOOP
        EXECUTE format('DROP %s IF EXISTS %s CASCADE',
            CASE item.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
            item.signature);
    END LOOP;
END
$$
"""


@dataclass
class Restored:
    """What a restore did."""

    manifest: dict
    files: int = 0
    migrated: list[str] = field(default_factory=list)


def read_manifest(source: Path) -> dict:
    try:
        manifest = json.loads((source / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BackupError(f"{source} holds no {MANIFEST}: it is not a backup made by manage.py backup") from None
    except ValueError as error:
        raise BackupError(f"{source / MANIFEST} is not JSON: {error}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise BackupError(f"{source / MANIFEST}: unknown backup format {manifest.get('format')!r}, expected {FORMAT}")
    return manifest


def verify(source: Path, manifest: dict) -> None:
    """Every file the manifest lists is there with its size and sha256, or a BackupError naming each that is not."""
    files = manifest.get("files")
    if not isinstance(files, list) or not all(
        isinstance(entry, dict) and {"path", "sha256", "size"} <= entry.keys() for entry in files
    ):
        raise BackupError(f"{source / MANIFEST}: 'files' must list a path, sha256 and size for every file")
    if DUMP not in {entry.get("path") for entry in files}:
        raise BackupError(f"{source / MANIFEST} lists no {DUMP}")
    problems = []
    for entry in files:
        path = source.joinpath(*safe_relative(entry["path"]).parts)
        if not path.is_file():
            problems.append(f"{entry['path']}: missing")
            continue
        sha256, size = file_facts(path)
        if (sha256, size) != (entry["sha256"], entry["size"]):
            problems.append(f"{entry['path']}: sha256 {sha256} ({size} bytes), the manifest says {entry['sha256']}")
    if problems:
        raise BackupError("the backup is damaged; nothing was restored:\n  " + "\n  ".join(problems))


def check_migrations_known(manifest: dict) -> None:
    """A backup made by newer code (migrations this code lacks) is refused: restore it with that code."""
    known = MigrationLoader(None, ignore_no_migrations=True).graph.nodes
    unknown = [f"{app}.{name}" for app, names in manifest.get("migrations", {}).items() for name in names]
    unknown = [name for name in unknown if tuple(name.split(".", 1)) not in known]
    if unknown:
        raise BackupError(
            f"the backup's database has migrations this code lacks ({', '.join(unknown)}): restore it with "
            f"the code it was made with ({manifest.get('code_version')})"
        )


def database_relations(alias: str) -> list[str]:
    connection = connections[alias]
    try:
        with connection.cursor() as cursor:
            cursor.execute(USER_RELATIONS)
            return [row[0] for row in cursor.fetchall()]
    finally:
        connection.close()  # the restore runs in other processes: hold no session or lock meanwhile


def storage_entries(manifest: dict) -> list[tuple[str, dict]]:
    prefix = f"{STORAGE}/"
    return [(entry["path"][len(prefix) :], entry) for entry in manifest["files"] if entry["path"].startswith(prefix)]


def storage_sha256(storage: Storage, name: str) -> str:
    digest = hashlib.sha256()
    with storage.open(name, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def check_storage(storage: Storage, manifest: dict, replace: bool) -> None:
    """Without ``replace``, a stored file of the same name with other bytes is refused (the same bytes are kept)."""
    if replace:
        return
    clashes = [
        name
        for name, entry in storage_entries(manifest)
        if storage.exists(name) and storage_sha256(storage, name) != entry["sha256"]
    ]
    if clashes:
        raise BackupError(
            f"the storage already holds other files of these names: {', '.join(clashes)}; "
            "restore with --replace to overwrite them"
        )


def restore_database(source: Path, settings_dict: dict, replace: bool) -> None:
    """``pg_restore --no-owner`` into one psql transaction (after DROP_EVERYTHING with ``replace``)."""
    restore_args, env = client_command("pg_restore", settings_dict)
    psql_args, _ = client_command("psql", settings_dict)
    psql_args += ["--no-psqlrc", "--quiet", "--set=ON_ERROR_STOP=1", "--single-transaction"]
    psql_args += [f"--dbname={settings_dict['NAME']}", *(["--command", DROP_EVERYTHING] if replace else [])]
    psql_args += ["--file=-"]
    # pg_restore without --dbname writes the SQL script; psql runs it, so a failure anywhere rolls all of it back.
    dump_args = [restore_args[0], "--no-owner", "--file=-", str(source / DUMP)]
    with tempfile.TemporaryFile() as restore_errors, tempfile.TemporaryFile() as psql_errors:
        psql = subprocess.Popen(
            psql_args, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=psql_errors
        )
        dump = subprocess.Popen(dump_args, env=env, stdout=subprocess.PIPE, stderr=restore_errors)
        try:
            shutil.copyfileobj(dump.stdout, psql.stdin, CHUNK)
        except BrokenPipeError:
            pass  # psql stopped at an error: its message says which
        dump.stdout.close()
        dump_failed = dump.wait() != 0
        if dump_failed:
            psql.kill()  # before its input ends: the server rolls the unfinished transaction back
        try:
            psql.stdin.close()
        except BrokenPipeError:
            pass
        psql.wait()
        # psql stopping first breaks pg_restore's pipe: then psql's message is the cause.
        failed = [("pg_restore", dump, restore_errors)] if dump_failed else []
        if psql.returncode != 0 and not (dump_failed and psql.returncode < 0):
            failed.insert(0, ("psql", psql, psql_errors))
        if failed:
            name, process, errors = failed[0]
            errors.seek(0)
            message = errors.read().decode(errors="replace").strip()
            raise BackupError(f"{name} failed ({process.returncode}); the database is unchanged: {message}")


def restore_storage(storage: Storage, source: Path, manifest: dict, replace: bool) -> int:
    """Put the backup's files back through the Storage API; the number written."""
    written = 0
    for name, entry in storage_entries(manifest):
        if storage.exists(name):
            if not replace and storage_sha256(storage, name) == entry["sha256"]:
                continue
            storage.delete(name)
        with source.joinpath(*safe_relative(entry["path"]).parts).open("rb") as handle:
            saved = storage.save(name, File(handle, name=name))
        if saved != name:
            raise BackupError(f"the storage saved {name} as {saved}: another process wrote {name} meanwhile")
        written += 1
    return written


def pending_migrations(alias: str) -> list[str]:
    executor = MigrationExecutor(connections[alias])
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _ in plan]


def restore(
    source: Path, replace: bool = False, storage: Storage | None = None, alias: str = "default", stdout=None
) -> Restored:
    """Verify the backup in ``source``, then restore the database, the storage's files and any newer migrations."""
    storage = storage if storage is not None else default_storage
    manifest = read_manifest(source)
    verify(source, manifest)
    check_migrations_known(manifest)
    settings_dict = require_postgresql(alias)
    relations = database_relations(alias)
    if relations and not replace:
        shown = ", ".join(relations[:5]) + (", ..." if len(relations) > 5 else "")
        raise BackupError(
            f"database {settings_dict['NAME']} is not empty ({len(relations)} tables and other relations: {shown}): "
            "restore into an empty database, or give --replace to drop everything in it first"
        )
    for name, _entry in storage_entries(manifest):
        safe_relative(name)
    check_storage(storage, manifest, replace)
    restore_database(source, settings_dict, replace)
    done = Restored(manifest=manifest, files=restore_storage(storage, source, manifest, replace))
    done.migrated = pending_migrations(alias)
    if done.migrated:
        call_command("migrate", interactive=False, verbosity=0, database=alias, stdout=stdout)
    try:
        call_command("migrate", check_unapplied=True, verbosity=0, database=alias, stdout=stdout)
    except SystemExit:
        raise BackupError("migrations are still unapplied after the restore: run manage.py migrate") from None
    return done
