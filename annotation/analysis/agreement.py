"""Krippendorff's alpha for the rating questions: point estimates, item bootstrap and the paper's top-k procedure.

Pure module (numpy/pandas/krippendorff). Ratings are a long DataFrame with columns ``item``, ``annotator``,
``compound`` and the question columns (ints 0-5, NaN when missing).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

import krippendorff
import numpy as np

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

Level = Literal["interval", "ordinal", "nominal"]
LEVELS: tuple[Level, ...] = ("interval", "ordinal", "nominal")
QUESTIONS: tuple[str, ...] = ("compound_score", "head_score", "modifier_score")
SCORE_DOMAIN = np.arange(6, dtype=float)


@dataclass(frozen=True)
class AlphaResult:
    """An alpha with its percentile bootstrap interval (NaN when not bootstrapped) and what it was computed on."""

    alpha: float
    low: float
    high: float
    n_items: int
    n_annotators: int
    n_resamples: int

    def as_dict(self) -> dict:
        """The result as a plain dict."""
        return asdict(self)


def reliability_matrix(ratings: pd.DataFrame, question: str) -> np.ndarray:
    """Annotators × items matrix of one question's ratings, NaN where an annotator did not rate an item."""
    return _matrix(ratings, question).to_numpy(dtype=float)


def _matrix(ratings: pd.DataFrame, question: str) -> pd.DataFrame:
    """The reliability matrix as a labelled DataFrame (annotators as index, items as columns)."""
    rated = ratings.loc[ratings[question].notna(), ["annotator", "item", question]]
    if rated.duplicated(["annotator", "item"]).any():
        # Two ratings of one item by one annotator would silently count as two coders agreeing with each other.
        raise ValueError(f"{question}: some annotator rated an item more than once")
    return rated.pivot(index="annotator", columns="item", values=question).astype(float)


def alpha(
    ratings: pd.DataFrame, question: str, level: Level = "interval", value_domain: Sequence[float] = SCORE_DOMAIN
) -> float:
    """Krippendorff's alpha of one question over all annotators and items (NaN when undefined)."""
    return _krippendorff(reliability_matrix(ratings, question), level, value_domain)


def _krippendorff(matrix: np.ndarray, level: Level, value_domain: Sequence[float] = SCORE_DOMAIN) -> float:
    """krippendorff.alpha on a reliability matrix, NaN instead of an exception or 0/0 when alpha is undefined."""
    _check_level(level)
    counts = value_counts(matrix, value_domain)
    if counts.size == 0 or (counts.sum(axis=1) < 2).all() or np.count_nonzero(counts.sum(axis=0)) < 2:
        return float("nan")
    return float(
        krippendorff.alpha(reliability_data=matrix, level_of_measurement=level, value_domain=list(value_domain))
    )


def _check_level(level: str) -> None:
    """Reject levels of measurement this module does not implement."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")


def value_counts(matrix: np.ndarray, value_domain: Sequence[float] = SCORE_DOMAIN) -> np.ndarray:
    """Items × values matrix: how many annotators gave each value to each item."""
    domain = np.asarray(value_domain, dtype=float)
    present = matrix[~np.isnan(matrix)]
    if not np.isin(present, domain).all():
        raise ValueError(f"ratings outside the value domain {domain.tolist()}")
    return (matrix.T[:, :, None] == domain[None, None, :]).sum(axis=1).astype(float)


def item_coincidences(counts: np.ndarray) -> np.ndarray:
    """Each item's contribution to the coincidence matrix, shape (..., items, V, V); zero for unpairable items."""
    m = counts.sum(axis=-1)
    weight = np.divide(1.0, m - 1, out=np.zeros_like(m), where=m >= 2)
    pairs = counts[..., :, None] * counts[..., None, :] - counts[..., :, None] * np.eye(counts.shape[-1])
    return pairs * weight[..., None, None]


def alpha_from_coincidences(
    o: np.ndarray, level: Level, value_domain: Sequence[float] = SCORE_DOMAIN
) -> np.ndarray | float:
    """Alpha from coincidence matrices of shape (..., V, V), vectorised over the leading axes."""
    _check_level(level)
    domain = np.asarray(value_domain, dtype=float)
    n_v = o.sum(axis=-1)
    n = n_v.sum(axis=-1)
    if level == "nominal":
        d = np.broadcast_to(1.0 - np.eye(len(domain)), o.shape)
    elif level == "interval":
        d = np.broadcast_to((domain[:, None] - domain[None, :]) ** 2, o.shape)
    else:
        # Krippendorff's ordinal metric: (sum of n_g from c to k - (n_c + n_k) / 2)^2, written with a cumulative
        # sum so it is symmetric in (c, k) without ordering them.
        cum = np.cumsum(n_v, axis=-1)
        d = (cum[..., None, :] - cum[..., :, None] + (n_v[..., :, None] - n_v[..., None, :]) / 2) ** 2
    observed = (o * d).sum(axis=(-2, -1))
    expected = (n_v[..., :, None] * n_v[..., None, :] * d).sum(axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        result = 1.0 - (n - 1) * observed / expected
    result = np.where(expected > 0, result, np.nan)
    return float(result) if result.ndim == 0 else result


def _pairable(matrix: np.ndarray) -> np.ndarray:
    """The columns (items) of a reliability matrix with at least two ratings, i.e. those alpha uses."""
    return matrix[:, (~np.isnan(matrix)).sum(axis=0) >= 2]


def bootstrap_alpha(
    ratings: pd.DataFrame,
    question: str,
    level: Level = "interval",
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    value_domain: Sequence[float] = SCORE_DOMAIN,
) -> AlphaResult:
    """Alpha with a percentile bootstrap interval from resampling items (with replacement)."""
    return _bootstrap_matrix(reliability_matrix(ratings, question), level, n_resamples, seed, confidence, value_domain)


def _bootstrap_matrix(
    matrix: np.ndarray,
    level: Level,
    n_resamples: int,
    seed: int,
    confidence: float,
    value_domain: Sequence[float] = SCORE_DOMAIN,
) -> AlphaResult:
    """bootstrap_alpha on a reliability matrix."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    # Unpairable items add nothing to alpha, so resampling them would only shrink the effective sample.
    matrix = _pairable(matrix)
    matrix = matrix[~np.isnan(matrix).all(axis=1)]
    point = _krippendorff(matrix, level, value_domain)
    n_items, n_annotators = matrix.shape[1], matrix.shape[0]
    low = high = float("nan")
    if n_resamples > 0 and n_items > 0:
        # Alpha depends on the data only through the coincidence matrix, a sum over items: a resample is a vector
        # of item multiplicities, so all resamples are one matrix product instead of n_resamples alpha calls.
        per_item = item_coincidences(value_counts(matrix, value_domain))
        v = per_item.shape[-1]
        rng = np.random.default_rng(seed)
        draws = rng.integers(0, n_items, size=(n_resamples, n_items))
        offsets = (np.arange(n_resamples) * n_items)[:, None]
        multiplicity = np.bincount((draws + offsets).ravel(), minlength=n_resamples * n_items)
        multiplicity = multiplicity.reshape(n_resamples, n_items).astype(float)
        o = (multiplicity @ per_item.reshape(n_items, v * v)).reshape(n_resamples, v, v)
        alphas = np.asarray(alpha_from_coincidences(o, level, value_domain))
        alphas = alphas[~np.isnan(alphas)]
        if alphas.size:
            tail = (1 - confidence) / 2 * 100
            low, high = (float(x) for x in np.percentile(alphas, [tail, 100 - tail]))
    return AlphaResult(point, low, high, n_items, n_annotators, n_resamples)


def top_k_annotators(matrix: np.ndarray, k: int) -> tuple[list[int], int]:
    """Row indices of the k annotators with the most items rated by all of them, and that number of items."""
    rated = (~np.isnan(matrix)).astype(np.float64)
    n = rated.shape[0]
    if k not in (2, 3):
        raise ValueError("k must be 2 or 3")
    if n < k:
        raise ValueError(f"need at least {k} annotators, have {n}")
    shared2 = rated @ rated.T
    if k == 2:
        shared = np.triu(shared2, 1) + np.tril(np.full_like(shared2, -1.0))
        # argmax takes the first maximum in row-major order: ties go to the lowest annotator indices.
        i, j = np.unravel_index(int(np.argmax(shared)), shared.shape)
        return [int(i), int(j)], int(shared2[i, j])
    best, best_count = [0, 1, 2], -1
    for i in range(n - 2):
        # Items shared by i, j and l for every j, l > i in one product; the bound skips rows that cannot win.
        if shared2[i, i + 1 :].max(initial=-1) <= best_count:
            continue
        sub = rated[i + 1 :]
        triple = (sub * rated[i]) @ sub.T
        triple = np.triu(triple, 1) + np.tril(np.full_like(triple, -1.0))
        j, m = np.unravel_index(int(np.argmax(triple)), triple.shape)
        if triple[j, m] > best_count:
            best, best_count = [i, i + 1 + int(j), i + 1 + int(m)], int(triple[j, m])
    return best, best_count


def paper_procedure(
    ratings: pd.DataFrame,
    question: str,
    k: int,
    level: Level = "interval",
    n_resamples: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    value_domain: Sequence[float] = SCORE_DOMAIN,
) -> AlphaResult:
    """Alpha over the k annotators with the most items in common, on those common items only (Garcia et al. 2021)."""
    matrix = reliability_matrix(ratings, question)
    rows, _ = top_k_annotators(matrix, k)
    sub = matrix[rows]
    sub = sub[:, ~np.isnan(sub).any(axis=0)]
    return _bootstrap_matrix(sub, level, n_resamples, seed, confidence, value_domain)


def agreement_table(
    ratings: pd.DataFrame,
    levels: Iterable[Level] = ("interval", "ordinal"),
    questions: Iterable[str] = QUESTIONS,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> list[dict]:
    """Rows {question, level, procedure, alpha, low, high, n_items, n_annotators, interval_note} for full, top2, top3.

    Every procedure is bootstrapped (resampling the items it kept); ``interval_note`` says why an interval is
    missing when it cannot exist, and is empty otherwise.
    """
    rows: list[dict] = []
    for question in questions:
        matrix = reliability_matrix(ratings, question)
        subsets: list[tuple[str, np.ndarray]] = [("full", matrix)]
        for k in (2, 3):
            # Too few annotators still gives a row (alpha NaN, 0 items) so every table has the same shape.
            sub = np.empty((0, 0))
            if matrix.shape[0] >= k:
                picked, _ = top_k_annotators(matrix, k)
                sub = matrix[picked]
                sub = sub[:, ~np.isnan(sub).any(axis=0)]
            subsets.append((f"top{k}", sub))
        for level in levels:
            for procedure, data in subsets:
                result = _bootstrap_matrix(data, level, n_resamples, seed, confidence)
                rows.append(
                    {
                        "question": question,
                        "level": level,
                        "procedure": procedure,
                        "alpha": result.alpha,
                        "low": result.low,
                        "high": result.high,
                        "n_items": result.n_items,
                        "n_annotators": result.n_annotators,
                        "interval_note": interval_note(result, procedure),
                    }
                )
    return rows


def interval_note(result: AlphaResult, procedure: str = "full") -> str:
    """Why ``result`` has no bootstrap interval, in words; empty when it has one."""
    if np.isfinite(result.low) and np.isfinite(result.high):
        return ""
    if result.n_resamples == 0:
        return "not bootstrapped"
    if result.n_items == 0:
        if procedure.startswith("top"):
            return f"no item was rated by {procedure[3:]} annotators in common"
        return "no item has two ratings"
    if result.n_items == 1:
        return "one item only: resampling it cannot vary"
    return "the ratings vary in no resample (alpha is undefined without variation)"
