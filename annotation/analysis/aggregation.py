"""Per-item and per-compound aggregation of the ratings, and the mean-vs-median check."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from annotation.analysis.agreement import QUESTIONS
from core.statistics import nan_for_none, spearman

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

ITEM_COLUMNS = ["item", "compound", "question", "mean", "median", "std", "n"]
COMPOUND_COLUMNS = ["compound", "question", "comp_mean", "comp_median", "n_items", "n_ratings"]


def per_item(ratings: pd.DataFrame, questions: Iterable[str] = QUESTIONS) -> pd.DataFrame:
    """Long table, one row per item and question: mean, median, std (ddof=1) and n of the non-missing ratings."""
    import pandas as pd

    frames = []
    for question in questions:
        rated = ratings.loc[ratings[question].notna(), ["item", "compound", question]]
        grouped = rated.groupby(["item", "compound"], sort=True)[question]
        frame = grouped.agg(["mean", "median", "count"]).rename(columns={"count": "n"})
        frame["std"] = grouped.std(ddof=1)
        frame["question"] = question
        frames.append(frame.reset_index())
    if not frames:
        return pd.DataFrame(columns=ITEM_COLUMNS)
    result = pd.concat(frames, ignore_index=True)[ITEM_COLUMNS]
    result["n"] = result["n"].astype(int)
    return result


def per_compound(
    ratings: pd.DataFrame,
    items_to_compound: Mapping | pd.Series | None = None,
    questions: Iterable[str] = QUESTIONS,
) -> pd.DataFrame:
    """Comp = mean over a compound's sentences of the annotators' mean (He et al. 2024, eq. 1), and of their median."""
    import pandas as pd

    if items_to_compound is not None:
        ratings = ratings.assign(compound=ratings["item"].map(items_to_compound))
        if ratings["compound"].isna().any():
            raise ValueError("items_to_compound does not cover every item")
    items = per_item(ratings, questions)
    if items.empty:
        return pd.DataFrame(columns=COMPOUND_COLUMNS)
    # Each sentence weighs the same whatever its number of ratings, as in eq. 1 (not a mean over all ratings).
    grouped = items.groupby(["compound", "question"], sort=True)
    result = grouped.agg(
        comp_mean=("mean", "mean"), comp_median=("median", "mean"), n_items=("item", "size"), n_ratings=("n", "sum")
    ).reset_index()
    return result[COMPOUND_COLUMNS]


def mean_median_correlation(per_item_df: pd.DataFrame, question: str = "compound_score") -> dict:
    """Spearman rho and p between the per-item means and medians of one question."""
    rows = per_item_df[per_item_df["question"] == question]
    result = spearman(rows["mean"].to_numpy(dtype=float), rows["median"].to_numpy(dtype=float))
    return {"question": question, "rho": nan_for_none(result.rho), "p": nan_for_none(result.p), "n": len(rows)}
