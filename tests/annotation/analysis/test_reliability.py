"""Tests of annotation.analysis.reliability (pure: no database)."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from annotation.analysis import agreement
from annotation.analysis.reliability import FilterPolicy, annotator_reliability


def planted_campaign(seed: int = 0) -> pd.DataFrame:
    """Ten annotators follow a latent truth with little noise; annotator "bad" rates at random."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 5, 120)
    rows = []
    for annotator in [f"good{i}" for i in range(10)] + ["bad"]:
        for item in rng.choice(120, size=80, replace=False):
            if annotator == "bad":
                score = rng.integers(0, 6)
            else:
                score = np.clip(np.rint(truth[item] + rng.normal(0, 0.7)), 0, 5)
            rows.append({"item": item, "annotator": annotator, "compound": item // 3, "compound_score": score})
    return pd.DataFrame(rows)


def test_planted_bad_annotator_is_removed() -> None:
    rel = annotator_reliability(planted_campaign())
    assert list(rel.columns) == ["annotator", "n_items", "n_shared", "rho", "p", "alpha_if_removed"]
    assert len(rel) == 11 and (rel["n_items"] == 80).all()
    by = rel.set_index("annotator")
    assert by.loc["bad", "rho"] < 0.2
    assert (by.drop("bad")["rho"] > 0.6).all()
    # Dropping the random annotator raises alpha; dropping a good one lowers it.
    full = agreement.alpha(planted_campaign(), "compound_score")
    assert by.loc["bad", "alpha_if_removed"] > full > by.drop("bad")["alpha_if_removed"].max()

    kept, removed = FilterPolicy("rho<0.2", min_rho=0.2, min_items=10).apply(rel)
    assert sorted(kept) == [f"good{i}" for i in range(10)]
    assert [r["annotator"] for r in removed] == ["bad"] and removed[0]["reason"].startswith("rho ")


def test_alpha_if_removed_equals_krippendorff_without_the_annotator() -> None:
    ratings = planted_campaign(1)
    rel = annotator_reliability(ratings, level="ordinal").set_index("annotator")
    for annotator in ["bad", "good3"]:
        matrix = agreement.reliability_matrix(ratings[ratings["annotator"] != annotator], "compound_score")
        expected = krippendorff.alpha(matrix, level_of_measurement="ordinal", value_domain=list(range(6)))
        assert rel.loc[annotator, "alpha_if_removed"] == pytest.approx(expected, abs=1e-9)


def test_rho_against_mean_of_others_and_nan_below_three_shared_items() -> None:
    ratings = pd.DataFrame(
        {
            "item": [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 9, 1],
            "annotator": ["a"] * 4 + ["b"] * 4 + ["c"] * 4 + ["d", "d"],
            "compound": [0] * 14,
            "compound_score": [0, 1, 2, 3, 1, 2, 3, 5, 5, 4, 3, 2, 4, 3],
        }
    )
    by = annotator_reliability(ratings).set_index("annotator")
    # For "a", the others' means on items 1-4 are (1+5+3)/3, (2+4)/2, (3+3)/2, (5+2)/2 = 3, 3, 3, 3.5.
    assert by.loc["a", "n_shared"] == 4
    expected = stats.spearmanr([0, 1, 2, 3], [3, 3, 3, 3.5])
    assert by.loc["a", "rho"] == pytest.approx(expected.statistic)
    assert by.loc["a", "p"] == pytest.approx(expected.pvalue)
    # "d" rated item 9 alone and shares only item 1.
    assert (by.loc["d", "n_items"], by.loc["d", "n_shared"]) == (2, 1)
    assert np.isnan(by.loc["d", "rho"]) and np.isnan(by.loc["d", "p"])


def test_filter_policy_reasons_and_gold() -> None:
    rel = pd.DataFrame(
        {
            "annotator": ["ok", "few", "nan", "gold", "nogold"],
            "n_items": [50, 2, 50, 50, 50],
            "n_shared": [50, 2, 50, 50, 50],
            "rho": [0.5, 0.9, np.nan, 0.5, 0.5],
            "p": [0.01] * 5,
            "alpha_if_removed": [0.4] * 5,
        }
    )
    policy = FilterPolicy("strict", min_rho=0.4, min_items=5, min_gold_accuracy=0.7)
    kept, removed = policy.apply(rel, {"ok": 0.9, "few": 0.9, "nan": 0.9, "gold": 0.5})
    assert kept == ["ok", "nogold"]
    assert removed == [
        {"annotator": "few", "reason": "2 items < 5"},
        {"annotator": "nan", "reason": "rho undefined"},
        {"annotator": "gold", "reason": "gold accuracy 0.500 < 0.7"},
    ]
    with pytest.raises(ValueError, match="gold"):
        policy.apply(rel)
    kept, removed = FilterPolicy("none", min_rho=None, min_items=0).apply(rel)
    assert kept == list(rel["annotator"]) and removed == []
