"""The files of a release (pure: no Django import).

Layout of a release folder (and of its zip):

    EN/naturalistics_examplesent1.csv … EN/neutral.csv   the NCIMP layout, per language (upper-case code)
    PT/…
    human_compositionality_scores.csv                   the human scores, like the public table
    tidy/pairs.jsonl, tidy/pairs.parquet                one row per minimal pair
    tidy/compounds.jsonl                                one row per compound: scores, sentences, paraphrases
    tidy/machine_ratings.jsonl, .parquet                only when a curator opts in: models' answers, labelled
                                                        machine, never part of the scores (machine.py)
    hf/<table>/<lang>.parquet                           the same data as Hugging Face configs <table>-<lang>, split
                                                        train: compounds, sentences, pairs, scores, machine_ratings
                                                        (hf_tables.py; a table with no rows in a language has none)
    README.md                                           the data card
    hf/README.md                                        the Hugging Face dataset card: the Hub's YAML front matter
                                                        (configs, licence, languages …), README.md, how to load
                                                        each config (hf.py; export_release --format hf)
    datapackage.json                                    Frictionless descriptor of every file and column
    croissant.json                                      Croissant 1.1 with the Responsible-AI fields: every file
                                                        above with its sha256, the hf/ tables as record sets
                                                        (croissant.py; written last, from rai.py's facts)
    manifest.json                                       every file above with its sha256 and size

Data files depend on the snapshot only, never on dates or the version, so exporting the
same data twice gives the same bytes; README.md, hf/README.md, datapackage.json, croissant.json
and manifest.json carry the release's metadata.

Public API (implemented in the sibling modules):

- ``ReleaseMeta`` (meta.py): version, title, description, licence, citation, created (ISO
  date), code_version.
- ``build_files(snapshot, meta) -> dict[str, bytes]``: every file but manifest.json.
- ``DATA_FILE_SUFFIXES`` / ``is_data_file(path)``: which files hold data (checksums stable
  across round trips) and which hold metadata.
- ``build_manifest(files, meta) -> bytes``: manifest.json for ``files``.
- ``build_zip(files, meta=None) -> bytes``: one deterministic zip (fixed timestamps, sorted
  names) of ``files`` plus the manifest (taken from ``files`` when there, else built from
  ``meta`` or from datapackage.json).
- ``verify_files(files) -> None`` and ``verify_directory(path) -> dict[str, bytes]``: check
  every file against manifest.json; raise ``ReleaseIntegrityError`` naming the file.
- ``read_release(path) -> tuple[Snapshot, ReleaseMeta]`` (a folder or a zip): verify, then
  rebuild the snapshot from tidy/compounds.jsonl and tidy/pairs.jsonl (languages, score
  information and agreement from datapackage.json; machine-made ratings from their table, when
  there). In two steps: ``release_files(path) -> dict[str, bytes]`` (verified) and
  ``snapshot_from_files(files)``.
- ``snapshot_from_records(result: ParseResult, scores: ScoreInfo | None = None) -> Snapshot``:
  a snapshot of what an importer parsed (used to compare the public NCIMP files with our export).

Formats in detail: ncimp_writer.py (NCIMP cells and tags), tidy.py (JSON Lines, Parquet),
machine.py (the machine-made ratings' table, its summary and the card's section), scores.py (the
human scores table), card.py (README and its list of normalisations), hf.py and hf_tables.py (the
Hugging Face layout: tables, configs, dataset card), datapackage.py (Data Package v2) with
table_schema.py (each table's columns, categories and bounds),
croissant.py (Croissant 1.1 and its RAI fields), manifest.py (checksums, zip, verification).
"""

from releases.formats.files import build_files
from releases.formats.from_records import snapshot_from_records
from releases.formats.manifest import (
    MANIFEST,
    ReleaseIntegrityError,
    build_manifest,
    build_zip,
    verify_directory,
    verify_files,
)
from releases.formats.meta import DATA_FILE_SUFFIXES, ReleaseMeta, is_data_file
from releases.formats.reader import read_release, release_files, snapshot_from_files

__all__ = [
    "DATA_FILE_SUFFIXES",
    "MANIFEST",
    "ReleaseIntegrityError",
    "ReleaseMeta",
    "build_files",
    "build_manifest",
    "build_zip",
    "is_data_file",
    "read_release",
    "release_files",
    "snapshot_from_files",
    "snapshot_from_records",
    "verify_directory",
    "verify_files",
]
