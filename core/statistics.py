"""The statistics every report uses, in one place (pure: numpy, no Django).

- ``spearman``: Spearman's rho with its p-value over the pairs where both values are finite numbers;
  undefined (fewer than 3 pairs, or a constant series) gives rho and p None, never NaN or 0.
  ``spearman_columns`` gives the same for many series against one (every measure of a report
  against the human scores), ranking them together.
- ``adjust_bh``: Benjamini-Hochberg adjusted p-values (``scipy.stats.false_discovery_control``'s
  numbers), with missing p-values left out of the family and kept as None.

Ranks, the adjustment and Student's t are a few lines here rather than scipy's: importing
scipy.stats costs most of a second and scipy.special a quarter of one, paid by every fresh
process that finishes a run (a warm run in a new worker takes about that long in all). The tests
compare each with scipy (``rankdata``, ``false_discovery_control``, ``stdtr``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

MIN_PAIRS = 3


class Correlation(NamedTuple):
    rho: float | None
    p: float | None
    n: int

    def as_dict(self) -> dict:
        return {"rho": self.rho, "p": self.p, "n": self.n}


def finite(x: object) -> bool:
    """True for an int or float (not a bool) that is neither NaN nor infinite."""
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(x, bool) and math.isfinite(x)


PLAIN_NUMBERS = {int, float, np.float64, np.float32, np.int64}


def numbers(values: Iterable) -> np.ndarray:
    """The values as float64, NaN for anything ``finite`` refuses (None, bools, text, NaN, infinities)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "fiu":  # numbers already: one C-level copy
        return values.astype(np.float64)
    return np.fromiter(
        (v if type(v) in PLAIN_NUMBERS else (float(v) if finite(v) else math.nan) for v in values), dtype=np.float64
    )


def spearman(x: Iterable, y: Iterable) -> Correlation:
    """Spearman's rho and two-sided p over the positions where both ``x`` and ``y`` are finite numbers.

    The same numbers as ``scipy.stats.spearmanr`` (Pearson's r of the average ranks; p from Student's
    t with n - 2 degrees of freedom), computed directly: reports run it thousands of times, and
    spearmanr's general machinery costs far more than the arithmetic (``benchmarks/analytics.py``).
    """
    a, b = numbers(x), numbers(y)
    if len(a) != len(b):
        raise ValueError(f"spearman needs two series of one length, not {len(a)} and {len(b)}")
    return spearman_columns(a[:, None], b)[0]


def spearman_columns(columns: np.ndarray, y: Iterable) -> list[Correlation]:
    """``spearman(columns[:, j], y)`` for every column j of a (n, k) float array (NaN: missing), at once.

    Columns without a missing value where ``y`` has one are ranked together in one call; the others
    each alone. The arithmetic is ``spearman``'s, so the numbers are the same.
    """
    columns = np.asarray(columns, dtype=np.float64)
    b = numbers(y)
    if columns.ndim != 2 or len(columns) != len(b):
        raise ValueError(f"spearman_columns needs an (n, k) array and n values, not {columns.shape} and {len(b)}")
    present = np.isfinite(b)
    out: list[Correlation | None] = [None] * columns.shape[1]
    complete = [j for j in range(columns.shape[1]) if np.isfinite(columns[present, j]).all()]
    if complete:
        for j, result in zip(complete, _ranked(columns[present][:, complete], b[present]), strict=True):
            out[j] = result
    for j in (j for j in range(columns.shape[1]) if out[j] is None):
        both = present & np.isfinite(columns[:, j])
        out[j] = _ranked(columns[both, j][:, None], b[both])[0]
    return out  # type: ignore[return-value]


def _ranked(a: np.ndarray, b: np.ndarray) -> list[Correlation]:
    """Spearman of each column of ``a`` (n, k) with ``b`` (n,), all finite."""
    n = len(b)
    if n < MIN_PAIRS:
        return [Correlation(None, None, n)] * a.shape[1]
    ranks_a = average_ranks(a) - (n + 1) / 2
    ranks_b = average_ranks(b[:, None])[:, 0] - (n + 1) / 2
    spread_b = float(ranks_b @ ranks_b)
    out = []
    for j in range(a.shape[1]):
        column = ranks_a[:, j]
        spread = math.sqrt(float(column @ column) * spread_b)
        if spread == 0:  # a constant series
            out.append(Correlation(None, None, n))
            continue
        rho = max(-1.0, min(1.0, float(column @ ranks_b) / spread))
        if abs(rho) == 1.0:
            out.append(Correlation(rho, 0.0, n))
            continue
        t = rho * math.sqrt((n - 2) / ((1.0 - rho) * (1.0 + rho)))
        out.append(Correlation(rho, t_two_sided(t, n - 2), n))
    return out


def t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom: the regularised incomplete beta I_x(df/2, 1/2).

    scipy's ``2 * stdtr(df, -|t|)`` to 1e-9 (relative) up to 250,000 degrees of freedom (tested).
    """
    square = t * t
    return incomplete_beta(df / 2.0, 0.5, df / (df + square), square / (df + square))


def incomplete_beta(a: float, b: float, x: float, y: float | None = None) -> float:
    """The regularised incomplete beta function I_x(a, b), by its continued fraction (Numerical Recipes, 6.4).

    ``y`` is 1 - x when the caller has it exactly (``1.0 - x`` loses the digits of an x near 1).
    """
    y = 1.0 - x if y is None else y
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y))
    if x < (a + 1.0) / (a + b + 2.0):  # where the fraction converges fast; otherwise by symmetry
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, y) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b), evaluated by the modified Lentz method."""
    tiny, eps = 1e-300, 1e-16

    def nonzero(value: float) -> float:
        return value if abs(value) > tiny else tiny

    c, d = 1.0, 1.0 / nonzero(1.0 - (a + b) * x / (a + 1.0))
    fraction = d
    for m in range(1, 100_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0)),
        ):
            d = 1.0 / nonzero(1.0 + numerator * d)
            c = nonzero(1.0 + numerator / c)
            fraction *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return fraction


def average_ranks(a: np.ndarray) -> np.ndarray:
    """1-based ranks down each column of ``a`` (n, k), tied values sharing their mean rank (``rankdata``'s "average")."""
    n = a.shape[0]
    order = np.argsort(a, axis=0, kind="stable")
    ordered = np.take_along_axis(a, order, axis=0)
    ranks = np.empty(a.shape, dtype=np.float64)
    for j in range(a.shape[1]):
        starts = np.flatnonzero(np.r_[True, ordered[1:, j] != ordered[:-1, j]])
        ends = np.r_[starts[1:], n]  # a run of ties holds positions starts..ends-1, ranks starts+1..ends
        ranks[order[:, j], j] = np.repeat((starts + 1 + ends) / 2.0, ends - starts)
    return ranks


def adjust_bh(pvalues: Sequence[float | None]) -> list[float | None]:
    """Benjamini-Hochberg adjusted p-values of the finite ones (the family); None (or NaN) stays None."""
    present = [i for i, p in enumerate(pvalues) if finite(p)]
    adjusted: list[float | None] = [None] * len(pvalues)
    if present:
        values = np.array([float(pvalues[i]) for i in present])
        m = len(values)
        order = np.argsort(values, kind="stable")
        scaled = values[order] * m / np.arange(1, m + 1)
        # Step-up: each adjusted p is the smallest scaled p at its rank or above, at most 1.
        stepped = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
        for i, value in zip((present[k] for k in order), stepped, strict=True):
            adjusted[i] = float(value)
    return adjusted


def nan_for_none(x: float | None) -> float:
    """``x``, or NaN for None: for tables (pandas) where a missing number is NaN."""
    return float("nan") if x is None else float(x)
