"""Adaptive allocation of 0-5 ratings: how sure an item's score is, when it has enough, which item goes next.

Pure module (numpy and ``scipy.special``; no Django). A campaign under the adaptive policy gives every
item at least ``n_min`` ratings and at most ``n_max``; in between, an item stops once the 95% interval of
its mean score (of the compound, and of head and modifier when the curator asks) is narrower than
``precision`` points of the 0-5 scale, and the next free worker gets the open item with the widest interval.

The interval is a Bayesian posterior on the ordinal scale, not a t-interval. The ratings of an item are
draws from a categorical distribution ``p`` over the six answers 0-5; with a symmetric Dirichlet prior of
total concentration ``prior`` (``PRIOR``: one pseudo-rating spread evenly over the six answers), the posterior
of ``p`` is Dirichlet(counts + prior/6), and the item's score is ``sum(k * p_k)``. Its posterior mean and
variance are exact; the interval is that of the Beta distribution on [0, 5] with the same two moments
(the score is bounded, so near 0 or 5 the interval is asymmetric and stays inside the scale). Why this rule:

- **Repeated looks.** A posterior depends on the ratings only, not on the rule that decided when to stop
  (the likelihood principle), so looking after every rating leaves it what it is; a t-interval re-checked
  after every rating would need a correction for the number of looks. (A Bayesian interval does not
  promise frequentist coverage under optional stopping: ``benchmarks/adaptive_allocation.py`` measures
  the coverage of stopped items' intervals on simulated campaigns.)
- **Unanimity is evidence, not certainty.** Three 5s give a t-interval of width zero; here an interval
  of width 2.25 (five 5s: 1.6, ten: 0.9), so a curator's ``precision`` says how much unanimity is enough.
- **Bounded, ordinal data.** No normal approximation of answers that can only be 0, 1, ..., 5.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

SCALE = np.arange(6, dtype=float)  # the answers 0-5
TOP = 5.0
PRIOR = 1.0  # total Dirichlet concentration: one pseudo-rating, spread evenly over the six answers
CONFIDENCE = 0.95


@dataclass(frozen=True)
class Policy:
    """A campaign's adaptive policy: bounds on ratings per item and the interval width at which an item stops."""

    n_min: int = 3
    n_max: int = 10
    precision: float = 1.5  # full width of the 95% interval, in points of the 0-5 scale
    confidence: float = CONFIDENCE
    prior: float = PRIOR

    def __post_init__(self) -> None:
        if self.n_min < 1:
            raise ValueError("n_min: at least 1")
        if self.n_max < self.n_min:
            raise ValueError("n_max: at least n_min")
        if not 0 < self.precision <= TOP:
            raise ValueError("precision: between 0 and 5 points")
        if not 0 < self.confidence < 1:
            raise ValueError("confidence: between 0 and 1")
        if self.prior <= 0:
            raise ValueError("prior: a positive concentration")


@dataclass(frozen=True)
class Interval:
    """The posterior mean of an item's score and its interval (``low``, ``high``) on the 0-5 scale."""

    mean: float
    low: float
    high: float

    @property
    def width(self) -> float:
        """The interval's full width in points of the scale."""
        return self.high - self.low


def counts(values: Iterable[float]) -> np.ndarray:
    """How many times each answer 0-5 was given (answers outside the scale are refused)."""
    data = np.asarray(list(values), dtype=float)
    if data.size and (np.any(data < 0) or np.any(data > TOP) or np.any(data != np.rint(data))):
        raise ValueError("ratings must be whole numbers from 0 to 5")
    return np.bincount(data.astype(int), minlength=len(SCALE)).astype(float)


def posterior(answer_counts: Sequence[float], confidence: float = CONFIDENCE, prior: float = PRIOR) -> Interval:
    """The posterior mean and interval of the mean score, from the counts of each answer 0-5 (module docstring)."""
    from scipy.special import betaincinv  # scipy.stats is slow to import; the special function is all it needs

    a = np.asarray(answer_counts, dtype=float) + prior / len(SCALE)
    total = a.sum()
    mean = float((SCALE * a).sum() / total)
    # Var(sum k p_k) under Dirichlet(a): (E[k^2] - E[k]^2) / (total + 1), E over the posterior mean of p.
    variance = float(((SCALE**2 * a).sum() / total - mean**2) / (total + 1))
    x, v = mean / TOP, variance / TOP**2
    spread = x * (1 - x) / v - 1  # alpha + beta of the Beta with these moments (> 0: v < x(1 - x) always here)
    tail = (1 - confidence) / 2
    low, high = betaincinv(x * spread, (1 - x) * spread, [tail, 1 - tail])
    return Interval(mean=mean, low=float(low) * TOP, high=float(high) * TOP)


def width(answer_counts: Sequence[float], policy: Policy) -> float:
    """The width of one question's interval under ``policy``."""
    return posterior(answer_counts, policy.confidence, policy.prior).width


def item_width(question_counts: Iterable[Sequence[float]], policy: Policy) -> float:
    """The widest interval among the questions the stopping rule watches (compound, or all three)."""
    return max(width(c, policy) for c in question_counts)


def is_done(n_ratings: int, widest: float | None, policy: Policy) -> bool:
    """Whether an item needs no more ratings: it has ``n_max``, or ``n_min`` and every interval narrower than ``precision``."""
    if n_ratings >= policy.n_max:
        return True
    return n_ratings >= policy.n_min and widest is not None and widest < policy.precision


def fixed_cost(n_items: int, policy: Policy) -> int:
    """What the same items cost under a fixed N = ``n_max`` design: the baseline of 'ratings saved'."""
    return n_items * policy.n_max


def rating_budget(ratings: int | None, money: Decimal | None, pay_per_rating: Decimal | None) -> int | None:
    """The most ratings a campaign pays for: its budget in ratings or in money at its pay, the smaller; None: no limit."""
    limits = [] if ratings is None else [ratings]
    if money is not None and pay_per_rating:
        limits.append(int(money // pay_per_rating))
    return min(limits) if limits else None


def settings_problems(
    allocation: str,
    n_max: int | None,
    n_min: int | None,
    budget_money: Decimal | None,
    pay_per_rating: Decimal | None,
) -> dict[str, str]:
    """What is wrong with a campaign's allocation settings, by field (the form and the API say the same)."""
    problems = {}
    if allocation == "adaptive" and n_min is not None and n_max is not None and n_min > n_max:
        problems["min_ratings_per_item"] = (
            f"The minimum ({n_min}) is above the ratings per item ({n_max}), the most an item gets under the "
            "adaptive allocation."
        )
    if budget_money is not None and not pay_per_rating:
        problems["pay_per_rating"] = "A money budget needs the pay per rating, to know how many ratings it buys."
    return problems
