"""Association of a compound's two words from corpus counts (pure: no Django import).

PMI(x, y) = log2(P(xy) / (P(x) P(y))) with every probability estimated as count / N, N the
corpus size in tokens, which simplifies to log2(c_xy · N / (c_x · c_y)). It is undefined
(None) when any count is zero: a compound never seen has no PMI, not a very negative one.
"""

from __future__ import annotations

import math


def pmi(c_xy: int, c_x: int, c_y: int, n: int) -> float | None:
    """Pointwise mutual information (log2) of x and y; None when any count is zero."""
    if min(c_xy, c_x, c_y, n) <= 0:
        return None
    return math.log2(c_xy * n / (c_x * c_y))


def ppmi(c_xy: int, c_x: int, c_y: int, n: int) -> float | None:
    """Positive PMI: max(0, PMI); None when PMI is undefined."""
    value = pmi(c_xy, c_x, c_y, n)
    return None if value is None else max(0.0, value)


def per_million(count: int, n: int) -> float | None:
    """Occurrences per million tokens; None for an empty corpus."""
    return count * 1_000_000 / n if n > 0 else None
