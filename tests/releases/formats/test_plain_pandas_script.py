"""A researcher's script that knows only the public NCIMP format reads an exported release correctly.

``marked_words`` below is such a script: pandas and ``ast`` only, the public convention that a
``_tag`` column follows its text column and lists one boolean per whitespace token.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pandas as pd

from datasets.formats.ncimp import parse_directory
from releases.formats import build_files, snapshot_from_records
from releases.formats.meta import ReleaseMeta
from releases.snapshot import Snapshot

FILES = ["naturalistics_examplesent1.csv", "naturalistics_examplesent2.csv", "naturalistics_examplesent3.csv"]
WHOLE_CELL_COLUMNS = {
    "entire original sentence",
    "entire neutral sentence",
    "compound noun",
    "compound noun head",
    "compound noun modifier",
}


def marked_words(folder: Path, language: str) -> list[tuple[str, str, str, str]]:
    """(compound, column, text, the words its tag marks) for every filled tagged cell."""
    out = []
    for name in [*FILES, "neutral.csv"]:
        df = pd.read_csv(folder / language.upper() / name)
        columns = list(df.columns)
        for i, column in enumerate(columns):
            if not column.endswith("_tag"):
                continue
            text_column = columns[i - 1]
            for _, row in df.iterrows():
                text = row[text_column]
                if pd.isna(text):
                    continue
                tags = ast.literal_eval(row[column])
                words = text.split()
                assert len(tags) == len(words), (name, row["compound"], column)
                out.append(
                    (row["compound"], text_column, text, " ".join(w for w, t in zip(words, tags, strict=True) if t))
                )
    return out


def expected_marks(snapshot: Snapshot, language: str) -> dict[tuple[str, str], set[str]]:
    """What a tag may mark for a (compound, text): the sentence's compound or the variant's replacement."""
    expected: dict[tuple[str, str], set[str]] = {}
    for c in snapshot.compounds:
        if c.language != language:
            continue
        for s in c.sentences:
            expected.setdefault((c.text, s.text), set()).add(" ".join(s.surface.split()))
            for x in s.variants:
                expected.setdefault((c.text, x.text), set()).add(" ".join(x.replacement.split()))
    return expected


def check(folder: Path, snapshot: Snapshot) -> int:
    checked = 0
    for language in snapshot.languages:
        expected = expected_marks(snapshot, language)
        for compound, column, text, marked in marked_words(folder, language):
            if column in WHOLE_CELL_COLUMNS and marked == " ".join(text.split()):
                continue
            assert marked in expected[(compound, text)], (language, compound, column, text, marked)
            checked += 1
    return checked


def write(folder: Path, files: dict[str, bytes]) -> Path:
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    return folder


def test_a_plain_pandas_script_finds_every_span_of_a_small_release(tmp_path, release_snapshot, release_meta):
    folder = write(tmp_path, build_files(release_snapshot, release_meta))
    assert check(folder, release_snapshot.sorted()) == 28
    marks = {(c, col): m for c, col, _, m in marked_words(folder, "en")}
    assert marks[("eager beaver", "original head only")] == "beaver"
    assert marks[("eager beaver", "generic head")] == ""  # the variant has no span
    assert marks[("eager beaver", "nc rand freq sentence3")] == "gold mine"
    assert marks[("eager beaver", "neutral sentence plural")] == "eager beavers"
    human = pd.read_csv(folder / "human_compositionality_scores.csv")
    assert human.loc[human.language == "en", "CompositionalityType"].tolist() == [1.2346] * 4


def test_a_plain_pandas_script_finds_every_span_of_the_exported_public_files(tmp_path, shared_data):
    snapshot = snapshot_from_records(parse_directory(shared_data / "ncimp" / "PT", "pt"))
    folder = write(tmp_path, build_files(snapshot, ReleaseMeta(version="test")))
    assert check(folder, snapshot) > 14_000  # 180 compounds × 4 files × about 20 tagged cells
