"""The simplest way in: a researcher's CSV or TSV of compounds and sentences (datasets/formats/sentence_table.py)."""

from __future__ import annotations

import pytest

from datasets.formats.records import InputError
from datasets.formats.sentence_table import parse_file


def write(tmp_path, text: str, name: str = "mine.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_rows_become_compounds_and_their_sentences_in_order_with_spans(tmp_path):
    path = write(
        tmp_path,
        "compound,sentence,class,type_score\n"
        'eager beaver,"She is a real eager beaver at work.",idiomatic,0.8\n'
        'eager beaver,"Those eager beavers stayed late.",,\n'
        "research lab,The research lab opened in May.,C,4.9\n",
    )
    result = parse_file(path, "en")
    assert result.errors == [] and result.rows_read == 3
    assert [(c.text, c.fields) for c in result.compounds] == [
        ("eager beaver", {"compositionality_class": "idiomatic", "type_score": 0.8}),
        ("research lab", {"compositionality_class": "compositional", "type_score": 4.9}),
    ]
    first, plural, lab = result.sentences
    assert (first.compound, first.slot, plural.slot, lab.slot) == ("eager beaver", 1, 2, 1)
    assert first.fields["text"][first.fields["span_start"] : first.fields["span_end"]] == "eager beaver"
    assert plural.fields["text"][plural.fields["span_start"] : plural.fields["span_end"]] == "eager beavers"
    assert plural.fields["plural"] is True and first.fields["plural"] is False


def test_a_tsv_is_read_by_its_tabs(tmp_path):
    path = write(tmp_path, "compound\tsentence\nágua doce\tA água doce é rara.\n", "mine.tsv")
    result = parse_file(path, "pt")
    assert [c.text for c in result.compounds] == ["água doce"] and result.errors == []


def test_every_bad_row_is_named_with_its_line_column_and_reason(tmp_path):
    path = write(
        tmp_path,
        "compound,sentence,class\n"
        "eager beaver,The dam was built fast.,idiomatic\n"
        "grey matter,,\n"
        ",A sentence without its compound.,\n"
        "hot potato,It was a hot potato.,spicy\n"
        "rat race,He left the rat race.,NC\n",
    )
    result = parse_file(path, "en")
    assert [(p.line, p.column, p.reason) for p in result.errors] == [
        (2, "sentence", "the sentence does not contain 'eager beaver'"),
        (3, "sentence", "empty sentence"),
        (4, "compound", "empty compound"),
        (5, "class", "unknown class 'spicy' (expected idiomatic, partly_compositional, compositional, or NC, PC, C)"),
    ]
    assert [c.text for c in result.compounds] == ["rat race"]


def test_a_header_without_the_two_columns_is_refused(tmp_path):
    with pytest.raises(InputError, match="missing column\\(s\\) sentence"):
        parse_file(write(tmp_path, "compound,text\nrat race,He left the rat race.\n"), "en")
