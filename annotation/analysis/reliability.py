"""Per-annotator reliability (Spearman against the others, alpha if removed) and annotator filter policies."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from annotation.analysis.agreement import (
    SCORE_DOMAIN,
    Level,
    _matrix,
    alpha_from_coincidences,
    item_coincidences,
    value_counts,
)
from core.statistics import nan_for_none, spearman

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

MIN_SHARED = 3


def annotator_reliability(
    ratings: pd.DataFrame, question: str = "compound_score", level: Level = "interval"
) -> pd.DataFrame:
    """One row per annotator: n_items, n_shared, rho and p against the mean of the others, alpha_if_removed."""
    import pandas as pd

    labelled = _matrix(ratings, question)
    matrix = labelled.to_numpy(dtype=float)
    rated = ~np.isnan(matrix)
    values = np.nan_to_num(matrix)
    item_sum = values.sum(axis=0)
    item_n = rated.sum(axis=0)

    counts = value_counts(matrix)
    # Each annotator's own ratings one-hot (annotators × items × values), to take them out of the item counts.
    own = (matrix[:, :, None] == SCORE_DOMAIN[None, None, :]).astype(float)
    o_without = item_coincidences(counts[None, :, :] - own).sum(axis=1)
    alpha_without = np.atleast_1d(alpha_from_coincidences(o_without, level))

    rows = []
    for a, annotator in enumerate(labelled.index):
        shared = rated[a] & (item_n >= 2)
        others = (item_sum[shared] - values[a, shared]) / (item_n[shared] - 1)
        rho = p = float("nan")
        if shared.sum() >= MIN_SHARED:
            # A constant annotator (or constant others) has no defined rank correlation: NaN is the answer.
            result = spearman(matrix[a, shared], others)
            rho, p = nan_for_none(result.rho), nan_for_none(result.p)
        rows.append(
            {
                "annotator": annotator,
                "n_items": int(rated[a].sum()),
                "n_shared": int(shared.sum()),
                "rho": rho,
                "p": p,
                "alpha_if_removed": float(alpha_without[a]),
            }
        )
    return pd.DataFrame(rows, columns=["annotator", "n_items", "n_shared", "rho", "p", "alpha_if_removed"])


@dataclass(frozen=True)
class FilterPolicy:
    """Which annotators to drop: too few items, too low a Spearman rho or gold accuracy, or flagged by quality checks."""

    name: str
    min_rho: float | None = 0.2
    min_items: int = 0
    min_gold_accuracy: float | None = None
    exclude_flagged: bool = False

    def apply(
        self, reliability: pd.DataFrame, gold_accuracy: Mapping | None = None, flagged: Mapping | None = None
    ) -> tuple[list, list[dict]]:
        """Kept annotators and removed [{annotator, reason}].

        Annotators with no gold accuracy are not judged on it; ``flagged`` maps the annotators the
        campaign's quality thresholds flag to why (``annotation.analysis.quality``).
        """
        if self.min_gold_accuracy is not None and gold_accuracy is None:
            raise ValueError(f"policy {self.name!r} needs gold accuracies")
        if self.exclude_flagged and flagged is None:
            raise ValueError(f"policy {self.name!r} needs the flagged annotators")
        kept: list = []
        removed: list[dict] = []
        for row in reliability.itertuples(index=False):
            reasons = []
            if row.n_items < self.min_items:
                reasons.append(f"{row.n_items} items < {self.min_items}")
            if self.min_rho is not None:
                if np.isnan(row.rho):
                    # Without a correlation the annotator cannot show they agree, which is what the threshold asks.
                    reasons.append("rho undefined")
                elif row.rho < self.min_rho:
                    reasons.append(f"rho {row.rho:.3f} < {self.min_rho}")
            if self.min_gold_accuracy is not None and gold_accuracy is not None:
                accuracy = gold_accuracy.get(row.annotator)
                if accuracy is not None and accuracy < self.min_gold_accuracy:
                    reasons.append(f"gold accuracy {accuracy:.3f} < {self.min_gold_accuracy}")
            if self.exclude_flagged and flagged and row.annotator in flagged:
                reasons.append(f"flagged: {flagged[row.annotator]}")
            if reasons:
                removed.append({"annotator": row.annotator, "reason": "; ".join(reasons)})
            else:
                kept.append(row.annotator)
        return kept, removed
