"""The NCIMP files of a release: public headers, one cell per variant, tags over whitespace tokens."""

from __future__ import annotations

import csv
import dataclasses
import io
from pathlib import Path

from datasets.formats.ncimp import parse_directory
from datasets.formats.ncimp_columns import NATURALISTIC_COLUMNS, NEUTRAL_COLUMNS_EN, NEUTRAL_COLUMNS_PT
from datasets.formats.records import ParseResult
from releases.formats import snapshot_from_records
from releases.formats.ncimp_writer import ncimp_files, tag_cell
from releases.snapshot import Snapshot


def rows(files: dict[str, bytes], path: str) -> tuple[list[str], list[dict[str, str]]]:
    reader = csv.DictReader(io.StringIO(files[path].decode("utf-8"), newline=""))
    return list(reader.fieldnames or []), list(reader)


def test_every_file_has_the_public_header(release_snapshot):
    files = ncimp_files(release_snapshot)
    assert rows(files, "EN/neutral.csv")[0] == list(NEUTRAL_COLUMNS_EN)
    assert rows(files, "PT/neutral.csv")[0] == list(NEUTRAL_COLUMNS_PT)
    for lang in ("EN", "PT"):
        for k in (1, 2, 3):
            assert rows(files, f"{lang}/naturalistics_examplesent{k}.csv")[0] == list(NATURALISTIC_COLUMNS)
    assert len(NEUTRAL_COLUMNS_EN) == 213 and len(NEUTRAL_COLUMNS_PT) == 61 and len(NATURALISTIC_COLUMNS) == 43


def test_a_tag_cell_is_spelled_like_the_public_files():
    assert tag_cell("This is an eager beaver", (11, 23)) == "[False, False, False, True, True]"
    assert tag_cell("This is an eager beaver", None) == "[False, False, False, False, False]"
    assert tag_cell("a  b", None, every=True) == "[True, True]"


def test_a_naturalistic_row_holds_each_variant_in_its_column(release_snapshot):
    files = ncimp_files(release_snapshot)
    _, (row,) = rows(files, "EN/naturalistics_examplesent1.csv")
    assert row["compound"] == "eager beaver"
    assert (
        row["original sentence_tag"]
        == "[False, False, False, True, True, False, False, False, False, False, False, False]"
    )
    assert row["entire original sentence"] == row["original sentence"]
    assert row["entire original sentence_tag"] == "[" + ", ".join(["True"] * 12) + "]"
    assert row["original head only"] == "He was a beaver at work , always first in ."
    assert row["original head only_tag"].startswith("[False, False, False, True, False")
    assert row["nc rand freq sentence3"] == "He was a gold mine at work , always first in ."
    assert row["nc rand sentence5"] == "He was a dead end at work , always first in ."
    assert (row["nc rand sentence1"], row["nc rand sentence1_tag"]) == ("", "")  # no such variant
    assert row["generic head_tag"] == "[" + ", ".join(["False"] * 12) + "]"  # a variant without a span
    assert (row["compound noun"], row["compound noun_tag"]) == ("eager beaver", "[True, True]")


def test_a_sentence_without_variants_still_gets_its_row(release_snapshot):
    _, (row,) = rows(ncimp_files(release_snapshot), "EN/naturalistics_examplesent2.csv")
    assert row["original sentence"] == "Eager beavers stay late ."
    assert row["compound noun"] == "Eager beavers"  # no variant: the compound as it occurs
    assert row["synonym for compound"] == ""
    _, none = rows(ncimp_files(release_snapshot), "EN/naturalistics_examplesent3.csv")
    assert none == []


def test_a_neutral_row_pairs_plural_columns_with_the_plural_sentence(release_snapshot):
    _, (en,) = rows(ncimp_files(release_snapshot), "EN/neutral.csv")
    assert en["neutral sentence"] == "This is an eager beaver"
    assert en["original sentence_tag"] == "[False, False, False, True, True]"
    assert en["neutral sentence plural"] == "These are eager beavers"
    assert en["synonym for compound"] == "This is an enthusiast"
    assert en["synonym for compoundplural"] == "These are enthusiasts"
    assert en["only synonym for compoundplural"] == "enthusiasts"
    assert en["only mwe synonym"] == ""
    assert en["head only plural"] == "These are beavers"
    assert (en["compound noun head"], en["compound noun head_tag"]) == ("beaver", "[True]")
    assert en["nc rand freq sentence2"] == "This is a color diagram"
    assert en["nc rand freq2"] == "color diagram"
    assert en["neutral sentence hypernym"] == "This is a thing thing"
    assert "supposed to be" not in ncimp_files(release_snapshot)["EN/neutral.csv"].decode()


def test_a_variant_of_the_plural_pattern_in_a_singular_column_is_found(release_snapshot):
    _, (pt,) = rows(ncimp_files(release_snapshot), "PT/neutral.csv")
    assert pt["nc rand freq sentence5"] == "Estes são índios aculturados ."
    assert pt["head only plural"] == "Estes são abalos ."
    assert pt["original head only"] == ""  # the plural variant belongs to the plural column only
    assert pt["only both synonyms"] == "trepidação enérgica"
    assert (pt["compound noun modifier"], pt["compound noun modifier_tag"]) == ("sísmico", "[True]")


def placed_only(snapshot: Snapshot) -> Snapshot:
    """The snapshot without variants that have no span (their all-False tag is not a span to read back)."""
    return dataclasses.replace(
        snapshot,
        compounds=tuple(
            dataclasses.replace(
                c,
                sentences=tuple(
                    dataclasses.replace(s, variants=tuple(x for x in s.variants if x.span is not None))
                    for s in c.sentences
                ),
            )
            for c in snapshot.compounds
        ),
    )


def parse_written(folder: Path, files: dict[str, bytes]) -> ParseResult:
    for path, data in files.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
    result = parse_directory(folder / "EN", "en")
    result.extend(parse_directory(folder / "PT", "pt"))
    return result


def test_the_importer_reads_back_what_was_written(tmp_path, release_snapshot):
    """import ∘ export: the files parsed by the NCIMP importer and written again are the same bytes."""
    files = ncimp_files(placed_only(release_snapshot))
    result = parse_written(tmp_path, files)
    assert result.problem_counts("warning") == {}
    assert ncimp_files(snapshot_from_records(result)) == files


def test_a_variant_without_a_span_reads_back_with_the_span_of_the_difference(tmp_path, release_snapshot):
    result = parse_written(tmp_path, ncimp_files(release_snapshot))
    assert result.problem_counts("warning") == {"malformed tag": 1}
    (generic,) = [x for x in result.variants if x.kind == "generic_head"]
    assert generic.fields["text"][generic.fields["span_start"] : generic.fields["span_end"]] == "eager thing"
