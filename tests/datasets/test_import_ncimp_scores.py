"""import_ncimp with NCIMP's human_compositionality_scores.csv: found or given, read whole or not at all."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from datasets import vocabulary
from datasets.formats.ncimp_columns import SCORES_COLUMNS, SCORES_FILE
from datasets.models import Compound, ImportRun, Sentence

pytestmark = pytest.mark.django_db

NCIMP_HEADER = "compound,compound noun,compound noun_tag,original sentence,original sentence_tag\n"
FILES = [
    ("Naturalistic", "datasets/pt/generated/naturalistics/naturalistics_examplesent1.csv", "PT-Nat"),
    ("Naturalistic", "datasets/pt/generated/naturalistics/naturalistics_examplesent2.csv", "PT-Nat"),
    ("Naturalistic", "datasets/pt/generated/naturalistics/naturalistics_examplesent3.csv", "PT-Nat"),
    ("Neutral", "datasets/pt/generated/neutral.csv", "PT-Neut"),
]


def score_lines(
    compound="pé frio", cls="NC", type_score="1.25", tokens=("1.33333333333333", "0.5", "2.0"), sents="1.2"
):
    """Four rows like the public table's: (experiment, file, ClassType, ClassToken, scores, overlap, length, Type)."""
    lines = []
    for (experiment, path, kind), token, length in zip(FILES, (*tokens, sents), (5, 7, 9, 0), strict=True):
        lines.append(f"pt,{experiment},{path},{compound},{cls},NC,{type_score},{token},{sents},1,{length},{kind}\n")
    return lines


def ncimp_folder(root: Path, scores: list[str] | None) -> Path:
    """root/ncimp/PT with one naturalistic file (sentence 1 only), and the scores table beside PT."""
    folder = root / "ncimp" / "PT"
    folder.mkdir(parents=True)
    (folder / "naturalistics_examplesent1.csv").write_text(
        NCIMP_HEADER + 'pé frio,pé frio,"[True, True]",o pé frio chegou .,"[False, True, True, False, False]"\n',
        encoding="utf-8",
    )
    if scores is not None:
        (root / "ncimp" / SCORES_FILE).write_text(",".join(SCORES_COLUMNS) + "\n" + "".join(scores), encoding="utf-8")
    return folder


def import_json(*args) -> dict:
    out = StringIO()
    call_command("import_ncimp", *args, "--language", "pt", "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_the_scores_table_beside_the_language_folder_is_read(tmp_path):
    summary = import_json(str(ncimp_folder(tmp_path, score_lines())))

    assert [f["name"] for f in ImportRun.objects.get().files] == [SCORES_FILE, "pt/naturalistics_examplesent1.csv"]
    assert summary["compounds"]["created"] == 1
    compound = Compound.objects.get()
    assert (compound.compositionality_class, compound.type_score, compound.token_score) == (
        vocabulary.IDIOMATIC,
        1.25,
        1.2,
    )
    assert compound.synonym_overlap == 1
    first, second, third = Sentence.objects.filter(kind=vocabulary.NATURALISTIC).order_by("slot")
    assert (first.text, first.token_score, first.length) == ("o pé frio chegou .", 1.33333333333333, 5)
    assert first.available and first.source_file == "pt/naturalistics_examplesent1.csv"
    # Scores of sentences no file has given yet wait on unavailable sentences.
    assert (second.available, second.text, second.token_score, second.length) == (False, "", 0.5, 7)
    assert (third.available, third.token_score, third.length) == (False, 2.0, 9)


def test_a_later_file_with_the_text_makes_the_waiting_sentence_available_and_keeps_its_score(tmp_path):
    folder = ncimp_folder(tmp_path, score_lines())
    import_json(str(folder))
    (folder / "naturalistics_examplesent2.csv").write_text(
        NCIMP_HEADER + 'pé frio,pés frios,"[True, True]",dois pés frios .,"[False, True, True, False]"\n',
        encoding="utf-8",
    )
    import_json(str(folder))
    second = Sentence.objects.get(kind=vocabulary.NATURALISTIC, slot=2)
    assert (second.available, second.surface, second.token_score, second.length) == (True, "pés frios", 0.5, 7)


def test_scores_can_be_named_or_left_out(tmp_path):
    folder = ncimp_folder(tmp_path / "a", None)
    elsewhere = tmp_path / "elsewhere.csv"
    elsewhere.write_text(
        ",".join(SCORES_COLUMNS) + "\n" + "".join(score_lines(type_score="4.0", cls="C")), encoding="utf-8"
    )

    import_json(str(folder), "--no-scores")
    assert Compound.objects.get().type_score is None
    import_json(str(folder), "--scores", str(elsewhere))
    assert Compound.objects.get().type_score == 4.0
    with pytest.raises(CommandError, match="--scores .*missing.csv: no such file"):
        call_command("import_ncimp", str(folder), "--language", "pt", "--scores", str(tmp_path / "missing.csv"))


def test_rows_of_other_languages_are_not_read(tmp_path):
    other = [line.replace("pt,", "en,", 1) for line in score_lines(compound="cold feet")]
    summary = import_json(str(ncimp_folder(tmp_path, score_lines() + other)))
    assert summary["rows_read"] == 4 + 1
    assert list(Compound.objects.values_list("text", flat=True)) == ["pé frio"]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (score_lines(type_score="muito"), r"human_compositionality_scores.csv:2 \[CompositionalityType\]: .*'muito'"),
        (score_lines(type_score="7"), r":2 \[CompositionalityType\]: score '7' is outside 0-5"),
        (score_lines(cls="X"), r":2 \[ClassType\]: ClassType 'X': expected NC, PC or C"),
        ([line.replace(",1,5,", ",um,5,") for line in score_lines()], r":2 \[MWE Synonym Overlap\]"),
        (score_lines()[:1] + score_lines(sents="3.0")[1:], r":3 \[ClassType\]|:3 \[CompositionalityTokenSents\]"),
        (score_lines() + score_lines()[:1], r":6 \[file\]: 'pé frio' in .* already on line 2"),
        ([score_lines()[0].replace("Naturalistic", "Neutral")], r":2 \[experiment_type\]"),
        ([score_lines()[0].replace("examplesent1", "examplesent9")], r":2 \[file\]: .* is not an NCIMP file"),
    ],
)
def test_a_bad_row_stops_the_import_with_file_line_and_reason(tmp_path, bad, message):
    with pytest.raises(CommandError, match=message):
        call_command("import_ncimp", str(ncimp_folder(tmp_path, bad)), "--language", "pt", stderr=StringIO())
    assert not Compound.objects.exists() and not Sentence.objects.exists() and not ImportRun.objects.exists()


def test_what_the_table_repeats_is_checked_and_reported(tmp_path):
    lines = score_lines(cls="PC")  # 1.25 is below 1.5: the cut-offs say NC
    lines[3] = lines[3].replace(",1.2,1.2,1,0,PT-Neut", ",1.3,1.2,1,4,")
    summary = import_json(str(ncimp_folder(tmp_path, lines)))
    assert summary["warnings"] == {
        "class disagrees with its score": 4,
        "neutral token score": 1,
        "neutral sentence length": 1,
        "wrong Type": 1,
    }
