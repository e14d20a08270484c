"""probing/likelihood/analysis.py: the likelihood tables from hand-made rows, values worked out by hand."""

from __future__ import annotations

import pytest

from core.statistics import spearman
from probing.likelihood.analysis import accuracy, by_class, correlations, length_correlations
from probing.likelihood.preferences import MEASURES

# Six compounds, two per class; Comp rises with the compound's index, pref_rand falls with it.
COMPOUNDS = [("night owl", "idiomatic"), ("grey matter", "idiomatic"), ("brain drain", "partly_compositional"),
             ("bank account", "partly_compositional"), ("research lab", "compositional"), ("coffee cup", "compositional")]  # fmt: skip
HUMAN = {
    ("en", c): {"comp": float(i), "class": cls, "synonym": "x y", "overlap": False}
    for i, (c, cls) in enumerate(COMPOUNDS)
}


def compound_rows(level="sentence", condition="naturalistic"):
    rows = []
    for i, (compound, _) in enumerate(COMPOUNDS):
        row = {"language": "en", "compound": compound, "condition": condition, "level": level}
        row |= dict.fromkeys(MEASURES)
        row |= {"pref_rand": 10.0 - i, "pref_words_syn": float((i * 7) % 5), "surprisal": 3.0 + i}
        rows.append(row)
    return rows


def test_preferences_against_human_compositionality_per_subset_with_bh():
    rows = correlations(compound_rows() + compound_rows("nc"), HUMAN)
    found = {(r["level"], r["measure"], r["subset"]): r for r in rows}
    assert found[("sentence", "pref_rand", "all")]["rho"] == pytest.approx(-1.0)
    assert found[("nc", "surprisal", "all")]["rho"] == pytest.approx(1.0)
    rho, p, n = spearman([float((i * 7) % 5) for i in range(6)], list(range(6)))
    assert found[("sentence", "pref_words_syn", "all")]["rho"] == pytest.approx(rho) and n == 6
    assert found[("sentence", "pref_rand", "idiomatic")]["n"] == 2
    tested = [r for r in rows if r["p"] is not None]  # two compounds per class: no rho within a class
    assert len(tested) > 6 and all(r["p_adjusted"] >= r["p"] for r in tested)  # Benjamini-Hochberg


def test_accuracy_by_class_and_condition():
    items = [
        {"language": "en", "compound": c, "condition": "naturalistic", "acc": int(i < 3), "acc_norm": 1,
         "acc_bytes": 0, "acc_mutual_info": None}
        for i, (c, _) in enumerate(COMPOUNDS)
    ]  # fmt: skip
    rows = {r["class"]: r for r in accuracy(items, HUMAN)}
    assert list(rows) == ["all", "idiomatic", "partly_compositional", "compositional"]
    assert rows["all"]["acc"] == pytest.approx(0.5) and rows["all"]["items"] == 6
    assert rows["idiomatic"]["acc"] == 1.0 and rows["compositional"]["acc"] == 0.0
    assert rows["partly_compositional"]["acc"] == pytest.approx(0.5)
    assert rows["all"]["acc_mutual_info"] is None and rows["all"]["acc_norm"] == 1.0


def test_means_by_class():
    rows = {(r["level"], r["class"]): r for r in by_class(compound_rows(), HUMAN)}
    assert rows[("sentence", "idiomatic")]["pref_rand"] == pytest.approx((10 + 9) / 2)
    assert rows[("sentence", "all")]["compounds"] == 6 and rows[("sentence", "all")]["pref_comp"] is None


def test_length_correlations_of_each_preference():
    sentences = [
        {"language": "en", "compound": c, "condition": "naturalistic", "level": "sentence", "length": 5 + i,
         **dict.fromkeys(MEASURES), "pref_rand": float(i)}
        for i, (c, _) in enumerate(COMPOUNDS)
    ]  # fmt: skip
    [row] = [r for r in length_correlations(sentences) if r["measure"] == "pref_rand"]
    assert row["rho"] == pytest.approx(1.0) and row["n"] == 6
