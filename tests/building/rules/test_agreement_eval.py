"""The agreement measurement: sentences where the NCIMP experts re-inflected, and whether ours match."""

import csv
from pathlib import Path

import pytest

from building.rules.grammar.agreement_eval import FILES, compounds_in, measure_agreement

HEADER = ["compound", "original sentence", "original head only", "synonym head", "synonym both"]


def tags(sentence: str, span: str) -> str:
    words, inside = sentence.split(" "), span.split(" ")
    start = next(i for i in range(len(words)) if words[i : i + len(inside)] == inside)
    return str([start <= i < start + len(inside) for i in range(len(words))])


def write(directory: Path, rows: list[dict]) -> None:
    for name in FILES:
        with (directory / name).open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([HEADER[0], *(c for column in HEADER[1:] for c in (column, f"{column}_tag"))])
            for row in rows:
                cells = [row["compound"]]
                for column in HEADER[1:]:
                    sentence, span = row[column]
                    cells += [sentence, tags(sentence, span)]
                writer.writerow(cells)


def test_it_counts_the_sentences_the_experts_rewrote_and_those_we_match(tmp_path, pt_morphology):
    rows = [
        {  # the experts re-inflect and change the article: ours matches
            "compound": "abalo sísmico",
            "original sentence": ("Houve os grandes abalos sísmicos ontem .", "abalos sísmicos"),
            "original head only": ("Houve os grandes abalos ontem .", "abalos"),
            "synonym head": ("Houve as grandes trepidações sísmicas ontem .", "trepidações sísmicas"),
            "synonym both": ("Houve os grandes tremores enérgicos ontem .", "tremores enérgicos"),
        },
        {  # the experts forgot the article: ours does not match theirs
            "compound": "exame clínico",
            "original sentence": ("Fez um exame clínico .", "exame clínico"),
            "original head only": ("Fez um exame .", "exame"),
            "synonym head": ("Fez um análise clínica .", "análise clínica"),
            "synonym both": ("Fez um teste médico .", "teste médico"),
        },
    ]
    write(tmp_path, rows)
    score = measure_agreement(tmp_path, pt_morphology)
    # Three files, each with two rows of two variants; the masculine "both" variants need no rewrite.
    assert score.variants == 12
    assert score.rewritten_by_experts == 6
    assert score.matched == 3
    assert score.rate == pytest.approx(0.5)
    assert score.misses[0]["ours"] == "Fez uma análise clínica ."
    assert compounds_in(tmp_path) == ["abalo sísmico", "exame clínico"]
    assert measure_agreement(tmp_path, pt_morphology, compounds={"abalo sísmico"}).rate == 1.0


def test_it_says_which_files_it_needs(tmp_path, pt_morphology):
    with pytest.raises(ValueError, match="NCIMP PT naturalistic"):
        measure_agreement(tmp_path, pt_morphology)
