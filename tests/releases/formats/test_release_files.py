"""Writing a release and reading it back: same snapshot, same bytes, tampering caught."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from releases.formats import (
    MANIFEST,
    ReleaseIntegrityError,
    build_files,
    build_manifest,
    build_zip,
    is_data_file,
    read_release,
    tidy,
    verify_directory,
    verify_files,
)
from releases.formats.manifest import with_manifest

EXPECTED_FILES = {
    *(f"{lang}/naturalistics_examplesent{k}.csv" for lang in ("EN", "PT") for k in (1, 2, 3)),
    "EN/neutral.csv",
    "PT/neutral.csv",
    "human_compositionality_scores.csv",
    "tidy/pairs.jsonl",
    "tidy/pairs.parquet",
    "tidy/compounds.jsonl",
    "README.md",
    "datapackage.json",
    "CITATION.cff",
    "deposit/zenodo.json",
    "croissant.json",
    *(f"hf/{table}/{lang}.parquet" for table in ("compounds", "sentences", "pairs", "scores") for lang in ("en", "pt")),
    "hf/README.md",
}


def write_folder(folder: Path, files: dict[str, bytes]) -> Path:
    for path, data in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder


@pytest.fixture
def release_folder(tmp_path, release_snapshot, release_meta) -> Path:
    return write_folder(tmp_path / "release", with_manifest(build_files(release_snapshot, release_meta), release_meta))


def test_it_writes_the_layout(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    assert set(files) == EXPECTED_FILES
    assert {p for p in files if not is_data_file(p)} == {
        "README.md",
        "datapackage.json",
        "CITATION.cff",
        "deposit/zenodo.json",
        "croissant.json",
        "hf/README.md",
    }


def test_a_release_folder_reads_back_as_the_same_snapshot(release_folder, release_snapshot, release_meta):
    snapshot, meta = read_release(release_folder)
    assert snapshot == release_snapshot.sorted()
    assert snapshot.scores.policy == release_snapshot.scores.policy  # not part of ScoreInfo's equality
    assert meta == release_meta


def test_a_release_zip_reads_back_as_the_same_snapshot(tmp_path, release_snapshot, release_meta):
    archive = tmp_path / "release.zip"
    archive.write_bytes(build_zip(build_files(release_snapshot, release_meta)))
    snapshot, meta = read_release(archive)
    assert snapshot == release_snapshot.sorted()
    assert meta == release_meta


def test_building_twice_gives_identical_bytes_whatever_the_input_order(release_snapshot, release_meta):
    shuffled = dataclasses.replace(
        release_snapshot,
        compounds=tuple(
            dataclasses.replace(c, sentences=tuple(reversed(c.sentences)), paraphrases=tuple(reversed(c.paraphrases)))
            for c in reversed(release_snapshot.compounds)
        ),
    )
    first = build_files(release_snapshot, release_meta)
    assert build_files(release_snapshot, release_meta) == first
    assert build_files(shuffled, release_meta) == first
    assert build_zip(first) == build_zip(build_files(shuffled, release_meta))


def test_data_files_do_not_depend_on_the_release_metadata(release_snapshot, release_meta):
    first = build_files(release_snapshot, release_meta)
    later = build_files(release_snapshot, dataclasses.replace(release_meta, version="2.0.0", created="2026-01-01"))
    assert {p: d for p, d in first.items() if is_data_file(p)} == {p: d for p, d in later.items() if is_data_file(p)}
    assert first["README.md"] != later["README.md"]


def test_the_zip_is_deterministic_with_sorted_names_and_fixed_dates(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    archive = zipfile.ZipFile(io.BytesIO(build_zip(files)))
    names = [info.filename for info in archive.infolist()]
    assert names == sorted([*files, MANIFEST])
    for info in archive.infolist():
        assert info.date_time == (1980, 1, 1, 0, 0, 0)
        assert info.compress_type == zipfile.ZIP_DEFLATED
        assert info.external_attr >> 16 == 0o100644
    assert archive.read(MANIFEST) == build_manifest(files, release_meta)


def test_the_manifest_lists_every_file_with_its_checksum(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    manifest = json.loads(build_manifest(files, release_meta))
    assert (manifest["version"], manifest["created"]) == ("1.2.0", "2025-03-01")
    assert [f["path"] for f in manifest["files"]] == sorted(files)
    entry = next(f for f in manifest["files"] if f["path"] == "EN/neutral.csv")
    assert entry["bytes"] == len(files["EN/neutral.csv"])
    assert len(entry["sha256"]) == 64


def test_a_tampered_file_is_named(release_folder):
    target = release_folder / "EN" / "neutral.csv"
    data = bytearray(target.read_bytes())
    data[-3] ^= 0x01
    target.write_bytes(bytes(data))
    with pytest.raises(ReleaseIntegrityError) as error:
        read_release(release_folder)
    message = str(error.value)
    assert message.startswith("EN/neutral.csv: sha256 is ")
    assert "but the manifest says" in message
    assert "the file was changed after the release was made" in message


def test_a_tampered_zip_is_caught(tmp_path, release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    files_with_manifest = with_manifest(files, release_meta)
    files_with_manifest["tidy/pairs.jsonl"] = files["tidy/pairs.jsonl"].replace(b'"approved"', b'"edited"', 1)
    archive = tmp_path / "tampered.zip"
    archive.write_bytes(build_zip(files_with_manifest))
    with pytest.raises(ReleaseIntegrityError, match=r"^tidy/pairs\.jsonl: sha256 is"):
        read_release(archive)


def test_a_missing_file_is_named(release_folder):
    (release_folder / "PT" / "naturalistics_examplesent3.csv").unlink()
    with pytest.raises(
        ReleaseIntegrityError, match="PT/naturalistics_examplesent3.csv: listed in the manifest but missing"
    ):
        verify_directory(release_folder)


def test_an_added_file_is_named(release_folder):
    (release_folder / "tidy" / "extra.csv").write_text("a,b\n")
    with pytest.raises(ReleaseIntegrityError, match="tidy/extra.csv: not listed in the manifest"):
        verify_directory(release_folder)


def test_every_problem_is_listed(release_snapshot, release_meta):
    files = with_manifest(build_files(release_snapshot, release_meta), release_meta)
    del files["README.md"]
    files["EN/neutral.csv"] += b"\n"
    with pytest.raises(ReleaseIntegrityError) as error:
        verify_files(files)
    assert [p.split(":")[0] for p in error.value.problems] == ["EN/neutral.csv", "README.md"]


def test_files_without_a_manifest_cannot_be_verified(release_snapshot, release_meta):
    with pytest.raises(ReleaseIntegrityError, match="manifest.json is missing"):
        verify_files(build_files(release_snapshot, release_meta))


def test_the_parquet_file_holds_the_same_rows_as_the_json_lines(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    rows = [json.loads(line) for line in files["tidy/pairs.jsonl"].decode().splitlines()]
    table = pq.read_table(io.BytesIO(files["tidy/pairs.parquet"]))
    assert table.to_pylist() == rows
    assert table.schema.metadata is None  # no pandas index, no stored Arrow schema
    assert list(rows[0]) == table.schema.names


def test_a_pair_row_has_its_sentence_variant_and_scores(release_snapshot, release_meta):
    files = build_files(release_snapshot, release_meta)
    rows = [json.loads(line) for line in files["tidy/pairs.jsonl"].decode().splitlines()]
    long = next(r for r in rows if r["sentence_id"] == "neutral_long-1")
    assert (long["condition"], long["pattern"], long["probe_kind"]) == ("neutral", "long", "synonym_nc")
    first = next(r for r in rows if r["sentence_id"] == "naturalistic-1" and r["probe_kind"] == "head_only")
    assert first == {
        "language": "en",
        "compound": "eager beaver",
        "sentence_id": "naturalistic-1",
        "condition": "naturalistic",
        "pattern": None,
        "plural": False,
        "probe_kind": "head_only",
        "rank": 1,
        "isolated": False,
        "original_text": "He was an eager beaver at work , always first in .",
        "original_span": [10, 22],
        "variant_text": "He was a beaver at work , always first in .",
        "variant_span": [9, 15],
        "replacement": "beaver",
        "status": "edited",
        "compositionality_class": "idiomatic",
        "type_score": 1.2346,
        "token_score": 1.0,
        "head_score": 0.5,
        "modifier_score": 3.25,
    }
    line = files["tidy/pairs.jsonl"].decode().splitlines()[0]
    assert ", " not in line.split('"original_text"')[0] and "\\u" not in line


def test_tidy_files_read_back_and_a_line_that_is_not_json_is_named(release_snapshot):
    files = tidy.tidy_files(release_snapshot)
    compounds = tidy.compounds_from_tidy(files[tidy.COMPOUNDS_JSONL], files[tidy.PAIRS_JSONL])
    assert len(compounds) == len(release_snapshot.compounds)  # the whole round trip: read_release's tests
    lines = files[tidy.PAIRS_JSONL].splitlines(keepends=True)
    broken = b"".join([*lines[:2], b'{"language": "en", "rank": NaN}\n', *lines[2:]])  # NaN: never written
    with pytest.raises(ValueError, match=r"^tidy/pairs\.jsonl:3: not JSON \("):
        tidy.compounds_from_tidy(files[tidy.COMPOUNDS_JSONL], broken)
