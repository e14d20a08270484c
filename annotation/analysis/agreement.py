"""Krippendorff's alpha for the rating questions: point estimates, item bootstrap and the paper's top-k procedure.

Pure module (numpy/pandas). Ratings are a long DataFrame with columns ``item``, ``annotator``,
``compound`` and the question columns (ints 0-5, NaN when missing). The figures are computed from each
item's value counts (``annotation.analysis.triples``), never from an annotators × items matrix: alpha is a
function of the coincidence matrix, a sum over items, so a campaign of a million ratings costs O(ratings).
The dense functions (``reliability_matrix``, ``value_counts``) remain for small data and the tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from annotation.analysis import triples as sparse
from annotation.analysis.top_k import top_k

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
    counts = sparse.value_counts(sparse.triples(ratings, question, value_domain))
    return alpha_from_counts(counts, level, value_domain)


def alpha_from_counts(counts: np.ndarray, level: Level, value_domain: Sequence[float] = SCORE_DOMAIN) -> float:
    """Alpha from items × values counts, NaN when undefined (no pairable item, or a single value used).

    The same number as ``krippendorff.alpha`` on the reliability matrix (the tests compare them).
    """
    _check_level(level)
    if counts.size == 0 or (counts.sum(axis=1) < 2).all() or np.count_nonzero(counts.sum(axis=0)) < 2:
        return float("nan")
    return float(alpha_from_coincidences(item_coincidences(counts).sum(axis=0), level, value_domain))


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
    t = sparse.triples(ratings, question, value_domain)
    return _bootstrap_triples(t, level, n_resamples, seed, confidence, value_domain)


def _annotators_of_pairable(t: sparse.Triples, counts: np.ndarray) -> int:
    """How many annotators rated at least one item with two ratings or more (those alpha uses)."""
    pairable = counts.sum(axis=1) >= 2
    return int(np.count_nonzero(np.bincount(t.annotator[pairable[t.item]], minlength=t.n_annotators)))


def _bootstrap_triples(
    t: sparse.Triples,
    level: Level,
    n_resamples: int,
    seed: int,
    confidence: float,
    value_domain: Sequence[float],
) -> AlphaResult:
    counts = sparse.value_counts(t)
    n_annotators = _annotators_of_pairable(t, counts)
    return _bootstrap_counts(counts, n_annotators, level, n_resamples, seed, confidence, value_domain)


def _bootstrap_counts(
    counts: np.ndarray,
    n_annotators: int,
    level: Level,
    n_resamples: int,
    seed: int,
    confidence: float,
    value_domain: Sequence[float] = SCORE_DOMAIN,
) -> AlphaResult:
    """Alpha and its percentile bootstrap interval from items × values counts (items in the matrix's order)."""
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    # Unpairable items add nothing to alpha, so resampling them would only shrink the effective sample.
    counts = counts[counts.sum(axis=1) >= 2]
    point = alpha_from_counts(counts, level, value_domain)
    n_items = counts.shape[0]
    low = high = float("nan")
    if n_resamples > 0 and n_items > 0:
        # Alpha depends on the data only through the coincidence matrix, a sum over items: a resample is a vector
        # of item multiplicities, so all resamples are one matrix product instead of n_resamples alpha calls.
        per_item = item_coincidences(counts)
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
    """Row indices of the k annotators with the most items rated by all of them, and that number of items.

    The search is ``annotation.analysis.top_k``'s, on the matrix's ratings (its cost and ties are described there).
    """
    return top_k(sparse.from_matrix(matrix, np.unique(matrix[~np.isnan(matrix)])), k)


def _top_k_counts(t: sparse.Triples, k: int, pair: list[int] | None = None) -> tuple[np.ndarray, int, list[int]]:
    """Counts of the items the top k annotators all rated (over those annotators only), how many annotators,
    and which (``pair``: the top pair, when known, spares the triple search computing it again)."""
    rows, _ = top_k(t, k, pair)
    items, counts = sparse.common_items(t, rows)
    return counts, (k if len(items) else 0), rows


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
    counts, n_annotators, _ = _top_k_counts(sparse.triples(ratings, question, value_domain), k)
    return _bootstrap_counts(counts, n_annotators, level, n_resamples, seed, confidence, value_domain)


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
        t = sparse.triples(ratings, question, SCORE_DOMAIN)
        counts = sparse.value_counts(t)
        subsets: list[tuple[str, np.ndarray, int]] = [("full", counts, _annotators_of_pairable(t, counts))]
        pair = None
        for k in (2, 3):
            # Too few annotators still gives a row (alpha NaN, 0 items) so every table has the same shape.
            sub, n_annotators = np.empty((0, len(SCORE_DOMAIN))), 0
            if t.n_annotators >= k:
                sub, n_annotators, pair = _top_k_counts(t, k, pair)
            subsets.append((f"top{k}", sub, n_annotators))
        for level in levels:
            for procedure, data, n_annotators in subsets:
                result = _bootstrap_counts(data, n_annotators, level, n_resamples, seed, confidence)
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
