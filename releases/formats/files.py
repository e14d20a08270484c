"""All files of a release from a snapshot (pure: no Django import)."""

from __future__ import annotations

from releases.formats.card import README, build_readme
from releases.formats.datapackage import build_datapackage
from releases.formats.machine import machine_files
from releases.formats.meta import DATAPACKAGE, ReleaseMeta
from releases.formats.ncimp_writer import ncimp_files
from releases.formats.scores import scores_file
from releases.formats.tidy import tidy_files
from releases.snapshot import Snapshot

# Data files depend on the snapshot only: their checksums survive an import-export round trip.
DATA_FILE_SUFFIXES = (".csv", ".jsonl", ".parquet")


def is_data_file(path: str) -> bool:
    return path.endswith(DATA_FILE_SUFFIXES)


def build_files(snapshot: Snapshot, meta: ReleaseMeta) -> dict[str, bytes]:
    """Every file of the release but manifest.json: path → bytes."""
    snapshot = snapshot.sorted()
    files = {**ncimp_files(snapshot), **scores_file(snapshot), **tidy_files(snapshot), **machine_files(snapshot)}
    files[README] = build_readme(list(files), snapshot, meta)
    files[DATAPACKAGE] = build_datapackage(files, snapshot, meta)
    return dict(sorted(files.items()))
