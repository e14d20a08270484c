"""All files of a release from a snapshot (pure: no Django import)."""

from __future__ import annotations

from releases.formats.card import README, build_readme
from releases.formats.croissant import build_croissant
from releases.formats.datapackage import build_datapackage
from releases.formats.deposit import deposit_files
from releases.formats.hf import HF_README, hf_data_files, hf_readme
from releases.formats.machine import machine_files
from releases.formats.meta import CROISSANT, DATAPACKAGE, ReleaseMeta
from releases.formats.ncimp_writer import ncimp_files
from releases.formats.scores import scores_file
from releases.formats.tidy import tidy_files
from releases.snapshot import Snapshot


def build_files(snapshot: Snapshot, meta: ReleaseMeta) -> dict[str, bytes]:
    """Every file of the release but manifest.json: path → bytes."""
    snapshot = snapshot.sorted()
    files = {**ncimp_files(snapshot), **scores_file(snapshot), **tidy_files(snapshot), **machine_files(snapshot)}
    files.update(hf_data_files(snapshot))
    files.update(deposit_files(snapshot, meta))
    files[README] = build_readme(list(files), snapshot, meta)
    files[HF_README] = hf_readme(files, snapshot, meta)
    files[DATAPACKAGE] = build_datapackage(files, snapshot, meta)
    # Last: it lists every file above with its checksum (manifest.json, added after, lists it too).
    files[CROISSANT] = build_croissant(files, snapshot, meta)
    return dict(sorted(files.items()))
