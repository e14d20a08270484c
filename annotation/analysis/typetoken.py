"""Type/token analysis of compositionality scores (Garcia et al. 2021, ACL, tables 2-3, §4.4).

Pure: pandas and scipy, no Django. Input is one row per (compound, sentence) with the
token-level mean score of that sentence, plus the compound's class and type-level score.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from core.statistics import spearman
from datasets.vocabulary import CLASSES

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

QUESTIONS = {"compound": "compound_score", "head": "head_score", "modifier": "modifier_score"}
SPREAD_THRESHOLD, HIGH_SPREAD = 0.6, 1.0


def _number(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(float(value), 6)


def correlation(x: pd.Series, y: pd.Series) -> dict:
    """Spearman rho and p over the pairs where both are known (None when fewer than 3)."""
    rho, p, n = spearman(x.to_numpy(dtype=float), y.to_numpy(dtype=float))
    # p is not rounded: values like 1e-80 must not print as 0.
    return {"rho": _number(rho), "p": p, "n": n}


def compound_table(sentences: pd.DataFrame) -> pd.DataFrame:
    """Per compound: class, type score, mean and sample std of its sentences' token scores.

    ``sentences`` columns: compound, class, type_score, compound_score (and optionally
    head_score, modifier_score): one row per sentence.
    """
    present = [q for q in QUESTIONS.values() if q in sentences]
    grouped = sentences.groupby("compound", sort=True)
    table = grouped[["class", "type_score"]].first()
    for question in present:
        # Rounded so that equal means rank as ties in Spearman's rho whatever the summation order.
        table[question] = grouped[question].mean().round(9)
    table["std"] = grouped["compound_score"].std(ddof=1)
    table["n_sentences"] = grouped["compound_score"].count()
    return table


def typetoken_report(sentences: pd.DataFrame, language: str) -> dict:
    """The report ``typetoken_report`` prints: correlations, class means and per-compound spread."""
    table = compound_table(sentences)
    correlations = {"all": correlation(table["compound_score"], table["type_score"])}
    class_means = {}
    for name in CLASSES:
        rows = table[table["class"] == name]
        correlations[name] = correlation(rows["compound_score"], rows["type_score"])
        class_means[name] = {
            label: (
                {"mean": _number(rows[column].mean()), "std": _number(rows[column].std(ddof=1))}
                if column in rows and rows[column].notna().any()
                else None
            )
            for label, column in QUESTIONS.items()
        }
    spread = table["std"].dropna()
    return {
        "language": language,
        "n_compounds": int(len(table)),
        "correlations": correlations,
        "class_means": class_means,
        "spread": {
            "share_std_below_0_6": _number((spread < SPREAD_THRESHOLD).mean()) if len(spread) else None,
            "std_above_1": sorted(
                (
                    {"compound": str(name), "std": _number(value)}
                    for name, value in spread[spread > HIGH_SPREAD].items()
                ),
                key=lambda row: -row["std"],
            ),
        },
    }
