"""Per-annotator reliability (Spearman against the others, alpha if removed) and annotator filter policies."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from annotation.analysis import triples as sparse
from annotation.analysis.agreement import SCORE_DOMAIN, Level, alpha_from_coincidences, item_coincidences
from core.statistics import nan_for_none, spearman

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

MIN_SHARED = 3
CHUNK = 65_536  # ratings per step of alpha-if-removed: bounds its memory at CHUNK × values² floats


def annotator_reliability(
    ratings: pd.DataFrame, question: str = "compound_score", level: Level = "interval"
) -> pd.DataFrame:
    """One row per annotator: n_items, n_shared, rho and p against the mean of the others, alpha_if_removed.

    Computed from the ratings themselves (``annotation.analysis.triples``): O(ratings) time and memory.
    """
    import pandas as pd

    t = sparse.triples(ratings, question, SCORE_DOMAIN)
    alpha_without = alpha_if_removed(t, level)
    values = t.scores()
    item_sum = np.bincount(t.item, weights=values, minlength=t.n_items)
    item_n = np.bincount(t.item, minlength=t.n_items)
    starts = t.annotator_starts()

    rows = []
    for a, annotator in enumerate(t.annotators):
        own = slice(starts[a], starts[a + 1])
        items, mine = t.item[own], values[own]
        shared = item_n[items] >= 2
        others = (item_sum[items[shared]] - mine[shared]) / (item_n[items[shared]] - 1)
        rho = p = float("nan")
        if shared.sum() >= MIN_SHARED:
            # A constant annotator (or constant others) has no defined rank correlation: NaN is the answer.
            result = spearman(mine[shared], others)
            rho, p = nan_for_none(result.rho), nan_for_none(result.p)
        rows.append(
            {
                "annotator": annotator,
                "n_items": int(len(items)),
                "n_shared": int(shared.sum()),
                "rho": rho,
                "p": p,
                "alpha_if_removed": float(alpha_without[a]),
            }
        )
    return pd.DataFrame(rows, columns=["annotator", "n_items", "n_shared", "rho", "p", "alpha_if_removed"])


def alpha_if_removed(t: sparse.Triples, level: Level = "interval") -> np.ndarray:
    """Alpha without each annotator's ratings, one per annotator code (NaN where it is undefined).

    Removing an annotator changes only the items they rated: each rating r of value v on item i takes
    coincidences(c_i) − coincidences(c_i − e_v) out of the campaign's coincidence matrix. Those differences,
    summed per annotator, give every annotator's matrix in O(ratings × values²), never annotators × items.
    Where removing an annotator leaves a single value, the entries of the others' values cancel exactly (the
    same summands, in item order), so alpha is NaN there as in the dense form, not a rounding residue.
    """
    counts = sparse.value_counts(t)
    v = len(t.domain)
    total = item_coincidences(counts).sum(axis=0)
    removed = np.zeros((t.n_annotators, v * v))
    for start in range(0, len(t.item), CHUNK):
        item, value, who = (x[start : start + CHUNK] for x in (t.item, t.value, t.annotator))
        before = counts[item]
        after = before - np.eye(v)[value]
        delta = (item_coincidences(before) - item_coincidences(after)).reshape(len(item), v * v)
        for k in range(v * v):
            removed[:, k] += np.bincount(who, weights=delta[:, k], minlength=t.n_annotators)
    without = total[None, :, :] - removed.reshape(t.n_annotators, v, v)
    return np.atleast_1d(alpha_from_coincidences(without, level, t.domain))


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
