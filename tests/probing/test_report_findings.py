"""The report's findings in words and its glossary: sentences that follow the numbers, terms defined once."""

from __future__ import annotations

import pytest

from probing.report import formatting
from probing.report.findings import findings
from probing.report.glossary import TERMS, definition, hash_explanation
from probing.vocabulary import MEASURE_LABELS, STD


def summary(measure: str, mean: float, n: int = 30, language: str = "en") -> dict:
    return {"language": language, "level": "nc", "condition": "naturalistic", "measure": measure, "mean": mean, "n": n}


def rho(measure: str, value: float, p: float, n: int, language: str = "en") -> dict:
    return {
        "language": language,
        "level": "nc",
        "condition": "naturalistic",
        "measure": measure,
        "subset": "all",
        "layer": None,
        "rho": value,
        "p": p,
        "n": n,
    }


def compound(cls: str, value: float) -> dict:
    return {"language": "en", "level": "nc", "condition": "naturalistic", "class": cls, "sim_syn": value}


def report(syn=0.8, rand=0.3, words=0.6, correlation=None) -> dict:
    return {
        "summary": [summary("sim_syn", syn), summary("sim_rand", rand), summary("sim_words_syn", words)],
        "correlations": [correlation] if correlation else [],
        "per_compound": [compound("idiomatic", 0.7), compound("idiomatic", 0.9), compound("compositional", 0.5)],
    }


def test_findings_say_what_the_means_and_the_correlation_show():
    text = findings(report(correlation=rho("sim_syn", 0.61, 0.0004, 30)))

    assert text[0] == (
        "English, NC level, naturalistic sentences (30 compounds): a compound's vector is closer to its "
        "synonym's (P_Syn 0.800) than to a random compound's (P_Rand 0.300)."
    )
    assert "tells the compound's meaning from its words'" in text[1]
    assert text[2] == (
        "English: P_Syn follows the human compositionality scores: ρ 0.61 (p 4.0e-04, n 30): "
        "the more compositional the compound, the higher it."
    )
    assert text[3] == "English: idiomatic compounds average P_Syn 0.800 (n 2), compositional ones 0.500 (n 1)."


def test_findings_follow_the_numbers_not_a_script():
    text = findings(report(syn=0.3, rand=0.5, words=0.3, correlation=rho("sim_syn", 0.1, 0.4, 30)))

    assert "no closer to its synonym's" in text[0]
    assert "composes rather than reads idioms" in text[1]
    assert "does not follow the human compositionality scores (ρ 0.10, p 4.0e-01, n 30)" in text[2]


def test_a_correlation_over_too_few_compounds_makes_no_claim():
    small = rho("sim_syn", 1.0, 0.0, formatting.MIN_N - 1)

    text = " ".join(findings(report(correlation=small)))

    assert f"only {formatting.MIN_N - 1} compounds have a human score, too few" in text
    assert "follows the human" not in text


def test_no_summary_no_findings():
    assert findings({}) == [] and findings({"summary": []}) == []
    assert findings({"summary": [summary("sim_rand", 0.3)]}) == []


def test_a_small_n_cell_shows_its_rho_and_n_but_no_p():
    row = {"rho": 0.9, "p": 0.001, "n": formatting.MIN_N - 1}

    cell = formatting.correlation_cell(row)

    assert cell["shown"] and cell["small"] and cell["text"] == "0.90"
    assert cell["p"] == "" and cell["mark"] == "" and cell["n"] == str(formatting.MIN_N - 1)
    assert "too few for a p-value" in cell["title"]
    enough = formatting.correlation_cell({**row, "n": formatting.MIN_N})
    assert not enough["small"] and enough["mark"] == "strong" and enough["p"] == "1.0e-03"


def test_every_measure_the_tables_print_has_a_definition():
    for key, label in MEASURE_LABELS.items():
        assert definition(label), key
        assert "Standardised:" in definition(label + STD)
        assert definition(label + " (standardised)").startswith(definition(label))
    assert definition("not a measure") == ""
    labels = [label for label, _, _ in TERMS]
    assert len(labels) == len(set(labels))


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("model_identity.weights_sha256", "weight files as this run's worker loaded"),
        ("model.origin.weights_sha256", "published upstream model"),
        ("release.checksum", "manifest.json"),
        ("config.layers", ""),
    ],
)
def test_provenance_hashes_are_explained(key, expected):
    assert (expected in hash_explanation(key)) if expected else hash_explanation(key) == ""
