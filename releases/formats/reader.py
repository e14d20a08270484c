"""Reading a release back: verify every checksum, then rebuild its snapshot (pure: no Django import)."""

from __future__ import annotations

import zipfile
from pathlib import Path

from releases.formats.datapackage import snapshot_parts
from releases.formats.machine import MACHINE_JSONL, machine_ratings_from_jsonl
from releases.formats.manifest import (
    DEFAULT_LIMITS,
    ReadLimits,
    ReleaseIntegrityError,
    read_directory,
    read_zip_file,
    verify_files,
)
from releases.formats.meta import DATAPACKAGE, ReleaseMeta, meta_from_datapackage
from releases.formats.tidy import COMPOUNDS_JSONL, PAIRS_JSONL, compounds_from_tidy
from releases.snapshot import Snapshot


def release_files(path: Path | str, limits: ReadLimits = DEFAULT_LIMITS) -> dict[str, bytes]:
    """The verified files of a release folder or zip, read within ``limits``."""
    path = Path(path)
    if path.is_dir():
        files = read_directory(path, limits)
    elif path.is_file() and zipfile.is_zipfile(path):
        files = read_zip_file(path, limits)
    else:
        raise ReleaseIntegrityError([f"{path}: neither a release folder nor a zip"])
    verify_files(files)
    return files


# The files a snapshot and its metadata are read from (the others are for people and other tools).
SNAPSHOT_FILES = (COMPOUNDS_JSONL, PAIRS_JSONL, DATAPACKAGE)


def snapshot_from_files(files: dict[str, bytes]) -> tuple[Snapshot, ReleaseMeta]:
    """The snapshot and metadata of already verified release files (``SNAPSHOT_FILES`` at least).

    The machine-made ratings are read when their table is among ``files`` (a release that opted in);
    without it the snapshot has none (``machine_ratings`` None), as a release that did not opt in.
    """
    missing = [p for p in SNAPSHOT_FILES if p not in files]
    if missing:
        raise ValueError(f"not a release: {', '.join(missing)} missing")
    compounds = compounds_from_tidy(files[COMPOUNDS_JSONL], files[PAIRS_JSONL])
    languages, scores, agreement = snapshot_parts(files)
    machine = machine_ratings_from_jsonl(files[MACHINE_JSONL]) if MACHINE_JSONL in files else None
    return Snapshot(languages, compounds, scores, agreement, machine).sorted(), meta_from_datapackage(files)


def read_release(path: Path | str) -> tuple[Snapshot, ReleaseMeta]:
    """Verify a release folder or zip against its manifest, then rebuild its snapshot."""
    return snapshot_from_files(release_files(path))
