"""Tests of annotation.analysis.aggregation on hand-computed data (pure: no database)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotation.analysis.aggregation import mean_median_correlation, per_compound, per_item

NAN = np.nan


@pytest.fixture
def ratings() -> pd.DataFrame:
    """Compound c1 with sentences s1 (ratings 1, 2, 4) and s2 (5, 5); c2 with s3 (0, 1, NaN head)."""
    return pd.DataFrame(
        {
            "item": ["s1", "s1", "s1", "s2", "s2", "s3", "s3"],
            "annotator": ["a", "b", "c", "a", "b", "a", "c"],
            "compound": ["c1", "c1", "c1", "c1", "c1", "c2", "c2"],
            "compound_score": [1, 2, 4, 5, 5, 0, 1],
            "head_score": [0, 0, 3, 4, 2, NAN, 2],
            "modifier_score": [5, 5, 5, 5, 5, 5, 5],
        }
    )


def test_per_item(ratings: pd.DataFrame) -> None:
    table = per_item(ratings).set_index(["item", "question"])
    assert list(per_item(ratings).columns) == ["item", "compound", "question", "mean", "median", "std", "n"]
    assert len(table) == 9
    s1 = table.loc[("s1", "compound_score")]
    assert (s1["compound"], s1["mean"], s1["median"], s1["n"]) == ("c1", pytest.approx(7 / 3), 2.0, 3)
    assert s1["std"] == pytest.approx(np.sqrt(((1 - 7 / 3) ** 2 + (2 - 7 / 3) ** 2 + (4 - 7 / 3) ** 2) / 2))
    s3 = table.loc[("s3", "head_score")]
    assert (s3["mean"], s3["median"], s3["n"]) == (2.0, 2.0, 1) and np.isnan(s3["std"])
    assert table.loc[("s2", "modifier_score"), "std"] == 0.0


def test_per_compound_is_mean_of_sentence_means(ratings: pd.DataFrame) -> None:
    table = per_compound(ratings).set_index(["compound", "question"])
    c1 = table.loc[("c1", "compound_score")]
    # Sentence means 7/3 and 5: Comp = (7/3 + 5) / 2, not the mean of the 5 ratings (17/5).
    assert c1["comp_mean"] == pytest.approx((7 / 3 + 5) / 2)
    assert c1["comp_median"] == pytest.approx((2 + 5) / 2)
    assert (c1["n_items"], c1["n_ratings"]) == (2, 5)
    assert table.loc[("c2", "head_score"), "comp_mean"] == 2.0
    assert table.loc[("c1", "head_score"), "comp_median"] == pytest.approx((0 + 3) / 2)


def test_per_compound_with_explicit_mapping(ratings: pd.DataFrame) -> None:
    mapping = {"s1": "x", "s2": "y", "s3": "y"}
    table = per_compound(ratings, mapping, questions=["compound_score"]).set_index("compound")
    assert table.loc["y", "comp_mean"] == pytest.approx((5 + 0.5) / 2)
    with pytest.raises(ValueError):
        per_compound(ratings, {"s1": "x"})


def test_mean_median_correlation(ratings: pd.DataFrame) -> None:
    result = mean_median_correlation(per_item(ratings), "compound_score")
    # Means 7/3, 5, 0.5 and medians 2, 5, 0.5 have the same ranks.
    assert (result["rho"], result["n"]) == (pytest.approx(1.0), 3)
    assert np.isnan(mean_median_correlation(per_item(ratings), "modifier_score")["rho"])
