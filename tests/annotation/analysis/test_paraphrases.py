"""Tests of annotation.analysis.paraphrases: normalisation and every boundary of the type/token rule."""

from __future__ import annotations

import pytest

from annotation.analysis.paraphrases import classify, classify_counts, counts, gold_synonym, normalise


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Álcool", "álcool"),
        ("a\u0301gua", "água"),  # decomposed accent composes, and stays
        ("  Spun   SUGAR!! ", "spun sugar"),
        ('"flight recorder."', "flight recorder"),
        ("rock-and-roll,", "rock-and-roll"),
        ("-dash-", "dash"),
        ("o’clock", "o'clock"),
        ("black, box", "black box"),
        ("D.J.", "dj"),
        ("...", ""),
    ],
)
def test_normalise(text: str, expected: str) -> None:
    assert normalise(text) == expected


@pytest.mark.parametrize(
    ("per_slot", "expected"),
    [
        ({0: 1, 1: 1, 2: 1}, "type"),  # all three sentences, frequency 3
        ({0: 5, 1: 1, 2: 1}, "type"),
        ({0: 1, 1: 1}, None),  # two sentences, frequency 2
        ({0: 2, 1: 1}, "type"),  # two sentences, frequency 3
        ({1: 1, 2: 4}, "type"),
        ({2: 1}, None),  # one sentence, frequency 1
        ({2: 2}, "token"),  # one sentence, frequency 2
        ({0: 7}, "token"),
        ({}, None),
        ({0: 2, 1: 0, 2: 0}, "token"),  # zero counts are not proposals
        ({None: 9, 0: 1}, None),  # sentence-less proposals do not count
    ],
)
def test_classify_boundaries(per_slot: dict, expected: str | None) -> None:
    assert classify(per_slot) == expected


def test_counts_group_normalised_text_per_slot() -> None:
    result = counts(
        [
            ("cotton candy", 0, "Spun sugar"),
            ("cotton candy", 1, "spun sugar."),
            ("cotton candy", 1, "SPUN  SUGAR"),
            ("cotton candy", None, "spun sugar"),
            ("cotton candy", 2, "!!"),
            ("black box", 0, "flight recorder"),
        ]
    )
    assert result == {"cotton candy": {"spun sugar": {0: 1, 1: 2, None: 1}}, "black box": {"flight recorder": {0: 1}}}
    rows = classify_counts(result)
    assert rows == [
        {"compound": "cotton candy", "paraphrase": "spun sugar", "level": "type", "frequency": 3, "slots": [0, 1]}
    ]


def test_gold_synonym() -> None:
    assert gold_synonym({"dj": 4, "disc jockey": 2}) == "dj"
    assert gold_synonym({"zebra": 3, "alpha": 3, "mid": 1}) == "alpha"
    assert gold_synonym({}) is None
