"""The public NCIMP files, imported and exported again: the same rows and cells but for documented normalisations.

Every differing cell is put in one kind; the test prints the counts and asserts they are only
the kinds the data card documents (README "Normalisations"):

- ``rows reordered``: rows are in compound-key order (the public files sort accent-insensitively);
- ``copy trimmed``: ``entire … sentence`` repeats the sentence exactly (public PT copies end in a space);
- ``malformed tag rewritten``: a tag list the importer found malformed is written from the recovered span;
- ``tag spelling``: the same booleans written differently (none so far).
"""

from __future__ import annotations

import ast
import io
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from datasets.formats.ncimp import parse_directory
from datasets.formats.ncimp_columns import COPIES
from datasets.formats.records import ParseResult, read_table
from releases.formats import (
    ReleaseMeta,
    build_files,
    build_zip,
    is_data_file,
    read_release,
    snapshot_from_records,
)
from releases.formats.ncimp_writer import ncimp_files

DOCUMENTED = {"rows reordered", "copy trimmed", "malformed tag rewritten", "tag spelling"}


def key(text: str) -> str:
    return " ".join(text.casefold().split())


def malformed_cells(result: ParseResult, language: str, path: Path) -> set[tuple[str, str]]:
    """(compound key, tag column) of every tag the importer reported as malformed in ``path``."""
    header, rows = read_table(path)
    compound_at = {line: key(row[header.index("compound")]) for line, row in rows}
    label = f"{language}/{path.name}"
    cells = set()
    for p in result.problems:
        if p.kind == "malformed tag" and p.file == label:
            tag = header[header.index(p.column) + 1]
            cells.add((compound_at[p.line], tag))
    return cells


def differences(public: Path, ours: bytes, malformed: set[tuple[str, str]]) -> Counter:
    theirs = pd.read_csv(public, dtype=str, keep_default_na=False)
    mine = pd.read_csv(io.BytesIO(ours), dtype=str, keep_default_na=False)
    assert list(mine.columns) == list(theirs.columns)
    assert sorted(map(key, mine.compound)) == sorted(map(key, theirs.compound))
    assert mine.compound.map(key).is_unique
    counts: Counter = Counter()
    counts["rows reordered"] = sum(
        a != b for a, b in zip(theirs.compound.map(key), mine.compound.map(key), strict=True)
    )
    theirs.index, mine.index = theirs.compound.map(key), mine.compound.map(key)
    for column in theirs.columns:
        changed = theirs[column] != mine.loc[theirs.index, column]
        for compound in theirs.index[changed]:
            a, b = theirs.at[compound, column], mine.at[compound, column]
            if column.endswith("_tag") and (compound, column) in malformed:
                kind = "malformed tag rewritten"
            elif column in COPIES and a.strip() == b:
                kind = "copy trimmed"
            elif column.endswith("_tag") and a and b and ast.literal_eval(a) == ast.literal_eval(b):
                kind = "tag spelling"
            else:
                kind = f"unexpected in {column!r}: {a!r} became {b!r}"
            counts[kind] += 1
    return +counts


def round_trip(folder: Path, language: str) -> dict[str, Counter]:
    result = parse_directory(folder, language)
    files = ncimp_files(snapshot_from_records(result))
    report = {}
    for path in sorted(files):
        public = folder / path.split("/")[1]
        if public.exists():
            report[public.name] = differences(public, files[path], malformed_cells(result, language, public))
            print(f"{language}/{public.name}: {dict(report[public.name]) or 'identical'}")
    return report


def test_the_portuguese_files_come_back_with_only_documented_normalisations(shared_data):
    report = round_trip(shared_data / "ncimp" / "PT", "pt")
    assert report == {
        "naturalistics_examplesent1.csv": Counter({"rows reordered": 175}),
        "naturalistics_examplesent2.csv": Counter({"rows reordered": 175}),
        "naturalistics_examplesent3.csv": Counter({"rows reordered": 175}),
        "neutral.csv": Counter({"rows reordered": 175, "copy trimmed": 180}),
    }


def test_the_english_neutral_file_comes_back_with_its_malformed_tags_rewritten(shared_data):
    (counts,) = round_trip(shared_data / "ncimp" / "EN", "en").values()
    assert set(counts) <= DOCUMENTED, counts
    assert counts["malformed tag rewritten"] == 1124


@pytest.mark.parametrize("language", ["PT", "EN"])
def test_a_second_export_of_our_own_files_is_identical(tmp_path, shared_data, language):
    first = ncimp_files(snapshot_from_records(parse_directory(shared_data / "ncimp" / language, language.lower())))
    for path, data in first.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    again = ncimp_files(snapshot_from_records(parse_directory(tmp_path / language, language.lower())))
    assert again == first


def test_a_release_of_the_public_portuguese_files_reads_back_to_the_same_data_files(tmp_path, shared_data):
    snapshot = snapshot_from_records(parse_directory(shared_data / "ncimp" / "PT", "pt"))
    meta = ReleaseMeta(version="test", created="2025-01-01")
    files = build_files(snapshot, meta)
    archive = tmp_path / "release.zip"
    archive.write_bytes(build_zip(files, meta))
    read, read_meta = read_release(archive)
    assert read == snapshot
    again = build_files(read, read_meta)
    assert {p: d for p, d in again.items() if is_data_file(p)} == {p: d for p, d in files.items() if is_data_file(p)}
