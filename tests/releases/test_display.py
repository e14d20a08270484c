"""How release data reads on the pages (releases/display.py): the data card, rounded numbers, policies in words."""

from __future__ import annotations

from annotation.reports.build import policy_parameters
from releases.display import class_label, data_card_html, display_value, number, policy_words


def test_the_data_card_markdown_becomes_html_with_tables():
    html = data_card_html(
        "# Release 1.0.0\n\n| Language | Compounds |\n|---|---:|\n| en | 280 |\n\n*Licence*: CC BY 4.0\n"
    )
    assert "<h1>Release 1.0.0</h1>" in html
    assert "<table>" in html and "<td" in html and "280" in html
    assert "<em>Licence</em>" in html


def test_a_card_with_a_script_is_inert():
    card = (
        "# Card\n\n<script>alert('x')</script>\n\n<img src=x onerror=alert(1)>\n\n"
        "[click](javascript:alert(1)) and [paper](https://aclanthology.org/2021.acl-long.212/)\n"
    )
    html = data_card_html(card)
    assert "<script" not in html and "<img" not in html
    assert 'href="javascript:' not in html  # markdown-it leaves the link as plain text
    assert "&lt;script&gt;" in html  # shown as text, not run
    assert 'href="https://aclanthology.org/2021.acl-long.212/"' in html


def test_numbers_are_rounded_for_reading():
    assert number(1.5999999999999999) == "1.6"
    assert display_value(3.8000000000000003) == "3.8"
    assert display_value(-0.00001) == "0"
    assert display_value(2.0) == "2"
    assert display_value(0.12345) == "0.123"
    assert display_value(float("nan")) == "–"


def test_classes_and_missing_values_are_words():
    assert display_value("partly_compositional") == "Partly compositional"
    assert class_label(None) == "Unclassified"
    assert display_value(None) == "–"
    assert display_value(True) == "yes"
    assert display_value(["en", "pt"]) == "en, pt"


def test_policies_read_as_phrases_never_python_none():
    no_policy = policy_words(policy_parameters(None))
    assert no_policy == ["no annotator left out"]
    strict = policy_words(
        {
            "name": "strict",
            "min_rho": 0.25,
            "min_items": 5,
            "min_gold_accuracy": 0.8,
            "question": "compound_score",
            "exclude_flagged": True,
        }
    )
    assert strict == [
        "policy “strict”",
        "Spearman ρ against the others at least 0.25",
        "at least 5 rated items",
        "at least 80 % of gold items right",
        "ρ computed on the compound score",
        "workers flagged by the quality checks left out",
    ]
    lenient = policy_words({"name": "lenient", "min_rho": None, "min_items": 0, "min_gold_accuracy": None})
    assert "None" not in " ".join(lenient)
    assert policy_words(None) == []
