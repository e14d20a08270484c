"""A whole instance in one folder: the PostgreSQL database (``pg_dump --format=custom``), every file of the
default storage, and ``backup.json``, the manifest with a sha256 and size of each file.

``manage.py backup`` and ``manage.py restore`` (``core/restore.py``) call these. Only the Storage API touches the
uploads, so a bucket is backed up like a local folder. The database's password reaches pg_dump through
``PGPASSWORD`` in the child's environment, never on its command line.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from django.core.files.storage import Storage, default_storage
from django.db import connections
from django.db.migrations.loader import MigrationLoader
from django.utils import timezone

from core.version import code_version

MANIFEST = "backup.json"
DUMP = "database.dump"
STORAGE = "storage"  # the storage's files, under their own names
FORMAT = 1
CHUNK = 1 << 20
# Connection options that libpq also reads from the environment.
LIBPQ_ENV = {
    "sslmode": "PGSSLMODE",
    "sslrootcert": "PGSSLROOTCERT",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
    "passfile": "PGPASSFILE",
    "connect_timeout": "PGCONNECT_TIMEOUT",
}


class BackupError(Exception):
    """A backup or restore refused, with what to do instead."""


def require_postgresql(alias: str = "default") -> dict:
    """The connection's settings, or a BackupError saying how to back up anything else."""
    connection = connections[alias]
    if connection.vendor == "sqlite":
        raise BackupError(
            f"the database is SQLite ({connection.settings_dict['NAME']}): back it up by copying that file "
            "(with its -wal and -shm files) while the web server and workers are stopped. "
            "backup and restore work on PostgreSQL (DATABASE_URL=postgres://...)."
        )
    if connection.vendor != "postgresql":
        raise BackupError(f"backup and restore work on PostgreSQL only; this database is {connection.vendor}")
    return connection.settings_dict


def client_command(program: str, settings_dict: dict) -> tuple[list[str], dict[str, str]]:
    """``program``'s connection arguments and environment: the password in PGPASSWORD, never an argument."""
    args = [program]
    if settings_dict.get("HOST"):
        args.append(f"--host={settings_dict['HOST']}")
    if settings_dict.get("PORT"):
        args.append(f"--port={settings_dict['PORT']}")
    if settings_dict.get("USER"):
        args.append(f"--username={settings_dict['USER']}")
    env = dict(os.environ)
    if settings_dict.get("PASSWORD"):
        env["PGPASSWORD"] = str(settings_dict["PASSWORD"])
    for option, variable in LIBPQ_ENV.items():
        value = (settings_dict.get("OPTIONS") or {}).get(option)
        if value is not None:
            env[variable] = str(value)
    return args, env


def run_client(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BackupError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip()}")


def file_facts(path: Path) -> tuple[str, int]:
    """sha256 and size of a file on disk."""
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def storage_names(storage: Storage, folder: str = "") -> Iterator[str]:
    """Every file's name in ``storage``, walked with ``listdir`` (a local folder or a bucket alike)."""
    try:
        folders, files = storage.listdir(folder)
    except FileNotFoundError:
        if folder:
            raise
        return  # a local storage whose folder was never made holds nothing
    for name in sorted(files):
        yield f"{folder}/{name}" if folder else name
    for name in sorted(folders):
        yield from storage_names(storage, f"{folder}/{name}" if folder else name)


def safe_relative(name: str) -> PurePosixPath:
    """``name`` as a relative path that stays inside its folder, or a BackupError."""
    path = PurePosixPath(name)
    if not name or path.is_absolute() or "\\" in name or any(part in {"", ".", ".."} for part in name.split("/")):
        raise BackupError(f"unsafe file name {name!r}: a backup holds only relative names inside it")
    return path


def migration_heads(alias: str = "default") -> dict[str, list[str]]:
    """Per app, the applied migrations that no applied migration of the same app follows."""
    loader = MigrationLoader(connections[alias], ignore_no_migrations=True)
    applied = set(loader.applied_migrations)
    heads: dict[str, list[str]] = {}
    for app, name in sorted(applied):
        node = loader.graph.node_map.get((app, name))
        children = node.children if node else set()
        if not any(child in applied and child[0] == app for child in children):
            heads.setdefault(app, []).append(name)
    return heads


def pg_dump_version() -> str:
    done = subprocess.run(["pg_dump", "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip()


def copy_storage(storage: Storage, folder: Path) -> list[str]:
    """Every file of ``storage`` into ``folder``, under its own name; the names copied."""
    copied = []
    for name in storage_names(storage):
        target = folder.joinpath(*safe_relative(name).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with storage.open(name, "rb") as source, target.open("wb") as copy:
            shutil.copyfileobj(source, copy, CHUNK)
        copied.append(name)
    return copied


def backup(out: Path, storage: Storage | None = None, alias: str = "default") -> dict:
    """Write the database, the storage's files and the manifest into the new or empty folder ``out``."""
    settings_dict = require_postgresql(alias)
    storage = storage if storage is not None else default_storage
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BackupError(f"{out} exists and is not an empty folder: name a new folder for the backup")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        args, env = client_command("pg_dump", settings_dict)
        run_client([*args, "--format=custom", f"--file={out / DUMP}", f"--dbname={settings_dict['NAME']}"], env)
        names = copy_storage(storage, out / STORAGE)
        paths = [DUMP, *(f"{STORAGE}/{name}" for name in names)]
        files = []
        for path in paths:
            sha256, size = file_facts(out / path)
            files.append({"path": path, "sha256": sha256, "size": size})
        manifest = {
            "format": FORMAT,
            "created_at": timezone.now().isoformat(),
            "code_version": code_version(),
            "database": {"vendor": "postgresql", "name": settings_dict["NAME"], "pg_dump": pg_dump_version()},
            "migrations": migration_heads(alias),
            "storage": {"backend": f"{type(storage).__module__}.{type(storage).__qualname__}", "files": len(names)},
            "files": files,
        }
        (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    except BaseException:
        if created:
            shutil.rmtree(out, ignore_errors=True)
        else:
            for child in out.iterdir():
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        raise
    return manifest
