"""Files a curator uploads to import: kept under a token until imported, read by the public importers' parsers.

Upload, preview, import: the files are saved once (through Django's storage, so any storage works)
under ``imports/<token>/``; the preview runs the importer as a dry run (``import_records(...,
dry_run=True)``: everything checked, nothing written) and shows what would be created and every
bad row with its file, line and reason; the import runs it for real on the same files. A file
keeps only its base name, and each format accepts only the names its parser reads.
"""

from __future__ import annotations

import re
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

from django.core.files.base import File
from django.core.files.storage import default_storage

from datasets.formats import ncimp, ncimp_scores, ncs, nctti, sentence_table, workbench_json
from datasets.formats.records import InputError, ParseResult, Problem
from datasets.importing import ImportSummary, import_records

ROOT = "imports"
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,120}")


@dataclass(frozen=True)
class Format:
    """One way in: what the page calls it, which file names it reads, and the importer it stands for."""

    key: str
    label: str
    files: str  # what to upload, in words
    names: re.Pattern
    importer: str


FORMATS = {
    f.key: f
    for f in (
        Format(
            "table",
            "A table of compounds and sentences (CSV or TSV)",
            "one .csv or .tsv file whose header names compound and sentence (optional: modifier, head, class, type_score)",
            re.compile(r".+\.(csv|tsv|txt)", re.I),
            "upload_table",
        ),
        Format(
            "workbench",
            "The workbench's JSON format (like the bundled demo)",
            "one .json file",
            re.compile(r".+\.json", re.I),
            "upload_workbench_json",
        ),
        Format(
            "nctti",
            "NCTTI (Garcia et al. 2021, ACL)",
            "data_<lang>.tsv and sentids_<lang>.csv",
            re.compile(r"(data_[a-z]{2,3}\.tsv|sentids_[a-z]{2,3}\.csv)"),
            "import_nctti",
        ),
        Format(
            "ncs",
            "NCS neutral sentences (Garcia et al. 2021, EACL)",
            "P1_sents.csv, P2_sents.csv and P3_sents.csv of one language",
            re.compile(r"P[123]_sents\.csv"),
            "import_ncs",
        ),
        Format(
            "ncimp",
            "NCIMP minimal pairs (He et al. 2024)",
            f"naturalistics_examplesent{{1,2,3}}.csv and/or neutral.csv, and {ncimp_scores.SCORES_FILE} if you have it",
            re.compile(
                r"(naturalistics_examplesent[123]\.csv|neutral\.csv|" + re.escape(ncimp_scores.SCORES_FILE) + ")"
            ),
            "import_ncimp",
        ),
    )
}


class UploadError(ValueError):
    """Files that cannot be taken as they are; the message says which and why."""


def check_names(fmt: Format, names: list[str]) -> None:
    """Refuse names a format does not read, or that are not plain file names."""
    if not names:
        raise UploadError("choose at least one file")
    for name in names:
        if not SAFE_NAME.fullmatch(name) or not fmt.names.fullmatch(name):
            raise UploadError(f"{name!r}: not a file {fmt.label} reads (expected {fmt.files})")
    if len(set(names)) != len(names):
        raise UploadError("the same file name twice")
    if fmt.key in ("table", "workbench") and len(names) != 1:
        raise UploadError(f"{fmt.label}: one file")


def save_upload(fmt: Format, files: list) -> str:
    """Keep uploaded files under a new token; returns the token."""
    check_names(fmt, [Path(f.name).name for f in files])
    token = secrets.token_urlsafe(16)
    for upload in files:
        default_storage.save(f"{ROOT}/{token}/{Path(upload.name).name}", File(upload))
    return token


def stored_names(token: str) -> list[str]:
    if not re.fullmatch(r"[A-Za-z0-9_-]{16,40}", token):
        raise UploadError("not an upload")
    try:
        return sorted(default_storage.listdir(f"{ROOT}/{token}")[1])
    except FileNotFoundError:
        raise UploadError("this upload is gone: upload the files again") from None


def parse_upload(fmt: Format, token: str, language: str) -> ParseResult:
    """The upload's records, read by the format's parser from a scratch copy laid out as it expects."""
    names = stored_names(token)
    with tempfile.TemporaryDirectory(prefix="workbench-upload-") as scratch:
        folder = Path(scratch)
        target = folder / language / "neutral" if fmt.key == "ncs" else folder
        target.mkdir(parents=True, exist_ok=True)
        for name in names:
            with default_storage.open(f"{ROOT}/{token}/{name}", "rb") as source:
                (target / name).write_bytes(source.read())
        if fmt.key == "table":
            return sentence_table.parse_file(target / names[0], language)
        if fmt.key == "workbench":
            return workbench_json.parse_file(target / names[0])
        if fmt.key == "nctti":
            return nctti.parse_directory(folder, [language])
        if fmt.key == "ncs":
            return ncs.parse_directory(folder, [language])
        result = ParseResult()
        if ncimp_scores.SCORES_FILE in names:
            result.extend(ncimp_scores.parse_scores_file(folder / ncimp_scores.SCORES_FILE, language))
        if any(name != ncimp_scores.SCORES_FILE for name in names):
            result.extend(ncimp.parse_directory(folder, language))
        return result


def run_import(fmt: Format, token: str, language: str, collection: str, dry_run: bool) -> ImportSummary:
    """The import of an upload (a dry run writes nothing); raises InputError with the bad rows."""
    result = parse_upload(fmt, token, language)
    return import_records(
        result,
        importer=fmt.importer,
        source_dir=f"upload {token[:8]}",
        collection=collection,
        options={"language": language, "upload": fmt.key},
        dry_run=dry_run,
    )


def discard(token: str) -> None:
    """Forget an upload's files (after its import, or when the curator gives up)."""
    for name in stored_names(token):
        default_storage.delete(f"{ROOT}/{token}/{name}")


__all__ = ["FORMATS", "InputError", "Problem", "UploadError", "discard", "run_import", "save_upload"]
