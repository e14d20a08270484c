"""Plan a rating study before paying for it: seeded simulated campaigns under fixed and adaptive designs.

Pure module (numpy; scipy only inside functions; no Django). ``plan(items, designs, ...)`` runs every design on the
same simulated crowds and says what it costs and buys (``DesignResult``; ``docs/adaptive-allocation.md``). Each
rating comes from a worker drawn from a pool of ``POOL``, a share ``careless`` of whom answer at random. Adaptive
designs run as ``annotation.allocation`` rules: ``n_min`` each, then one rating at a time to the open item with the
widest interval (a heap; ties by fewest ratings) until ``allocation.is_done`` or the ``budget`` stops it. Compound
question only; estimates are plain means; common random numbers across designs.

Means-only data (``RoundedNormal``, ``fit_spread``): a careful worker answers a latent score plus normal noise of SD
``sigma``, rounded and clipped to 0-5 (``annotation.simulation``'s model), the latent score set so that the answers'
mean is the published mean: items near 0 or 5 spread less. ``sigma`` is fitted to raw-rating evidence, before any
outcome. NCTTI (Garcia et al. 2021, ACL): the scatter of a compound's three per-sentence means, each of ~10 ratings of
sentences chosen to show one sense, is mostly rating noise; ``fit_spread`` matches its median over compounds (section
4.4 traces the few large ones to real sense differences), careless share included. Limits: context differences left
count as noise (an upper bound); one ``sigma`` ignores workers' differences. Not used: Table 3's SDs are across
compounds, not an item's ratings; Table 1's alpha is the top two or three annotators', and in English (0.30) below what
any answers around the published means give with 10% careless (about 0.33, careful answers 0 or 5).

Sensitivity: one ``sigma`` per class (``fit_spread_by_class``, a mapping for ``from_means``), the same fit on each
class's compounds alone (NCTTI's NC / PC / C: 103 / 89 / 88 in English, 60 each in Portuguese): coarser medians. A fit
at a bound of ``SIGMA_RANGE`` is ``degenerate`` (at the floor, careless answers explain all the scatter).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from annotation import allocation
from annotation.analysis.agreement import alpha_from_counts
from core.statistics import spearman

if TYPE_CHECKING:
    import pandas as pd

SCALE = allocation.SCALE
POOL = 1000  # simulated workers: the careless share is honoured to 0.1%
SIGNIFICANCE = 0.05
SIGMA_RANGE = (0.01, 5.0)  # where ``fit_spread`` searches: a fit at either end is degenerate


@dataclass(frozen=True, eq=False)
class PlanInput:
    """The items of a planned campaign: a careful worker's chance of each answer 0-5, and optional classes and types."""

    distribution: np.ndarray  # (items, 6); the mean of each row is the item's true score
    classes: tuple[str, ...] | None = None
    type_of: np.ndarray | None = None  # (items,): a token item's type item (its index), -1 for the others
    labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        d = np.asarray(self.distribution, dtype=float)
        if d.ndim != 2 or d.shape[1] != len(SCALE) or len(d) == 0 or (d < 0).any() or not np.allclose(d.sum(1), 1):
            raise ValueError("distribution: per item, six probabilities (of the answers 0-5) that sum to 1")
        object.__setattr__(self, "distribution", d / d.sum(axis=1, keepdims=True))
        if any(v is not None and len(v) != len(d) for v in (self.classes, self.labels)):
            raise ValueError("classes, labels: one per item")
        if self.type_of is not None:
            t = np.asarray(self.type_of, dtype=int)
            if t.shape != (len(d),) or t.max() >= len(d) or t.min() < -1 or (t[t >= 0] == np.flatnonzero(t >= 0)).any():
                raise ValueError("type_of: one index per item, -1 or another item's index")
            object.__setattr__(self, "type_of", t)

    def __len__(self) -> int:
        return len(self.distribution)

    @property
    def means(self) -> np.ndarray:  # the items' true scores
        return self.distribution @ SCALE


@dataclass(frozen=True)
class Fixed:
    """Every item gets ``n`` ratings."""

    n: int

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError("n: at least 1 rating per item")

    @property
    def name(self) -> str:
        return f"fixed N={self.n}"


@dataclass(frozen=True)
class Adaptive:
    """``annotation.allocation``'s policy, with an optional budget of ratings for the whole campaign."""

    n_min: int = 3
    n_max: int = 10
    precision: float = 1.5
    budget: int | None = None

    def __post_init__(self) -> None:
        self.policy  # noqa: B018 - allocation.Policy checks the bounds (``plan`` checks the budget)

    @property
    def policy(self) -> allocation.Policy:
        return allocation.Policy(n_min=self.n_min, n_max=self.n_max, precision=self.precision)

    @property
    def name(self) -> str:
        budget = "" if self.budget is None else f", budget {self.budget}"
        return f"adaptive {self.n_min}-{self.n_max}, width < {self.precision:g}{budget}"


Design = Fixed | Adaptive


class Figure(NamedTuple):
    """A figure over the simulations: its mean and its range (2.5-97.5 percentiles; ratings: min and max)."""

    mean: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class DesignResult:
    """What one design gives over the simulations (``docs/adaptive-allocation.md``: how to read it)."""

    design: Design
    ratings: Figure
    cost: float  # the mean ratings times the pay per rating
    mae: Figure  # mean absolute error of the item means against the true scores
    rmse: float
    alpha: Figure  # Krippendorff's interval alpha of the compound question
    r: float
    power: float | None  # share of simulations where Spearman's rho with the second variable has p < 0.05
    type_token_error: Figure  # |rho(estimated) - rho(true)| of type items against their tokens' mean
    coverage: float  # share of items whose final interval holds the true score
    mae_by_class: dict[str, float] | None
    ratings_per_item: np.ndarray = field(repr=False)

    def as_dict(self, per_item: bool = False) -> dict:
        """The result as plain JSON-ready values; ``per_item`` adds each item's mean number of ratings."""
        out = {"design": self.design.name, "kind": type(self.design).__name__.lower(), **asdict(self.design)}
        for name in (name for name in self.__dataclass_fields__ if name not in ("design", "ratings_per_item")):
            out[name] = value._asdict() if isinstance(value := getattr(self, name), Figure) else value
        return {**out, "ratings_per_item": self.ratings_per_item.tolist()} if per_item else out


def plan(
    items: PlanInput,
    designs: Sequence[Design],
    *,
    careless: float = 0.1,
    pay_per_rating: float = 0.0,
    r: float = 0.3,
    simulations: int = 200,
    seed: int = 0,
) -> list[DesignResult]:
    """Simulate ``simulations`` campaigns of ``items`` under each design (module docstring); one result per design."""
    if not designs or not 0 <= careless <= 1 or not -1 <= r <= 1 or simulations < 1 or seed < 0:
        raise ValueError("designs: at least one; careless in [0, 1], r in [-1, 1], simulations >= 1, seed >= 0")
    for design in designs:
        if isinstance(design, Adaptive) and design.budget is not None and design.budget < design.n_min * len(items):
            raise ValueError(f"{design.name}: the budget does not cover n_min ratings of each of {len(items)} items")
    depth = max(d.n if isinstance(d, Fixed) else d.n_max for d in designs)
    truth = items.means
    standardised = (truth - truth.mean()) / truth.std() if truth.std() > 0 else np.zeros_like(truth)
    true_type_token = _type_token(items.type_of, truth)
    runs: list[list[dict]] = [[] for _ in designs]
    for s in range(simulations):
        answers, noise, tiebreak = _crowd(items, depth, careless, np.random.SeedSequence([seed, s]))
        second = r * standardised + math.sqrt(1 - r * r) * noise
        for j, design in enumerate(designs):
            counts = _fixed(answers, design.n) if isinstance(design, Fixed) else _adaptive(answers, design, tiebreak)
            policy = design.policy if isinstance(design, Adaptive) else allocation.Policy()
            runs[j].append(_measure(items, counts, policy, second, true_type_token))
    return [_summary(d, runs[j], items, pay_per_rating, r) for j, d in enumerate(designs)]


def _crowd(items: PlanInput, depth: int, careless: float, seeds: np.random.SeedSequence):
    """Every item's first ``depth`` answers, the second variable's noise and the heap's tie-break order."""
    answer_rng, worker_rng, other_rng = (np.random.default_rng(s) for s in seeds.spawn(3))
    cumulative, careless_workers, columns = np.cumsum(items.distribution, axis=1)[:, :-1], round(careless * POOL), []
    for _ in range(depth):  # column by column: the k-th answer of an item does not depend on ``depth``
        careful = (answer_rng.random(len(items))[:, None] > cumulative).sum(axis=1)
        random_answer = answer_rng.integers(0, len(SCALE), len(items))
        columns.append(np.where(worker_rng.integers(0, POOL, len(items)) < careless_workers, random_answer, careful))
    return np.stack(columns, axis=1), other_rng.standard_normal(len(items)), other_rng.permutation(len(items))


def _fixed(answers: np.ndarray, n: int) -> np.ndarray:
    return (answers[:, :n, None] == np.arange(len(SCALE))).sum(axis=1)


def _adaptive(answers: np.ndarray, design: Adaptive, tiebreak: np.ndarray) -> np.ndarray:
    """The counts of each answer per item at the end of a campaign run by the adaptive policy."""
    policy = design.policy
    rows = _fixed(answers, policy.n_min).tolist()
    streams, order, key = answers.tolist(), tiebreak.tolist(), (policy.confidence, policy.prior)
    heap = [(-_interval(tuple(row), *key)[2], policy.n_min, order[i], i) for i, row in enumerate(rows)]
    heapq.heapify(heap)
    total, budget = policy.n_min * len(rows), math.inf if design.budget is None else design.budget
    while heap and total < budget:
        negative_width, n, rank, i = heapq.heappop(heap)
        if not allocation.is_done(n, -negative_width, policy):  # a closed item leaves the heap
            rows[i][streams[i][n]] += 1
            total += 1
            heapq.heappush(heap, (-_interval(tuple(rows[i]), *key)[2], n + 1, rank, i))
    return np.asarray(rows)


@lru_cache(maxsize=200_000)
def _interval(counts: tuple[int, ...], confidence: float, prior: float) -> tuple[float, float, float]:
    """``allocation.posterior``'s interval and width, once per count vector: a campaign meets a few thousand."""
    return (found := allocation.posterior(counts, confidence, prior)).low, found.high, found.width


def _measure(items: PlanInput, counts: np.ndarray, policy: allocation.Policy, second: np.ndarray, true_tt) -> dict:
    n = counts.sum(axis=1)
    estimate = counts @ SCALE / n
    error = estimate - items.means
    bounds = np.array([_interval(tuple(row), policy.confidence, policy.prior) for row in counts.tolist()])
    p = spearman(estimate, second).p
    est_tt = _type_token(items.type_of, estimate)
    classes = np.asarray(items.classes if items.classes is not None else [])
    return {
        "by_class": {c: float(np.abs(error[classes == c]).mean()) for c in set(classes.tolist())},
        "n": n,
        "ratings": int(n.sum()),
        "mae": float(np.abs(error).mean()),
        "mse": float((error**2).mean()),
        "alpha": alpha_from_counts(counts.astype(float), "interval"),
        "significant": p is not None and p < SIGNIFICANCE,
        "type_token": None if est_tt is None or true_tt is None else abs(est_tt - true_tt),
        "coverage": float(((bounds[:, 0] <= items.means) & (items.means <= bounds[:, 1])).mean()),
    }


def _summary(design: Design, runs: list[dict], items: PlanInput, pay: float, r: float) -> DesignResult:
    def series(key: str) -> np.ndarray:
        return np.array([np.nan if run[key] is None else run[key] for run in runs], dtype=float)

    ratings = series("ratings")
    by_class = {c: float(np.mean([run["by_class"][c] for run in runs])) for c in sorted(runs[0]["by_class"])}
    return DesignResult(
        design=design,
        ratings=Figure(float(ratings.mean()), float(ratings.min()), float(ratings.max())),
        cost=float(ratings.mean() * pay),
        mae=_figure(series("mae")),
        rmse=float(math.sqrt(series("mse").mean())),
        alpha=_figure(series("alpha")),
        r=r,
        power=float(series("significant").mean()) if len(items) >= 3 and np.ptp(items.means) > 0 else None,
        type_token_error=_figure(series("type_token")),
        coverage=float(series("coverage").mean()),
        mae_by_class=by_class or None,
        ratings_per_item=np.mean([run["n"] for run in runs], axis=0),
    )


def _type_token(type_of: np.ndarray | None, values: np.ndarray) -> float | None:
    """Spearman's rho between the type items' values and the mean of their token items' values."""
    if type_of is None:
        return None
    tokens = type_of >= 0
    sums, sizes = (np.bincount(type_of[tokens], weights=w, minlength=len(values)) for w in (values[tokens], None))
    types = sizes > 0
    return spearman(values[types], sums[types] / sizes[types]).rho


def _figure(values: np.ndarray) -> Figure:
    """The mean over simulations and the 2.5-97.5 percentile range, of the defined ones (None if none is)."""
    if not np.isfinite(values).any():
        return Figure(None, None, None)
    low, high = np.nanpercentile(values, [2.5, 97.5])
    return Figure(float(np.nanmean(values)), float(low), float(high))


@dataclass(frozen=True)
class RoundedNormal:
    """A careful worker answers the item's latent score plus normal noise of SD ``sigma``, rounded and clipped to 0-5."""

    sigma: float

    def probabilities(self, means: Sequence[float]) -> np.ndarray:
        """(items, 6): each item's chance of each answer, with the answers' mean equal to the item's mean."""
        means = np.clip(np.asarray(means, dtype=float), 0.0, 5.0)
        return _rounded_normal(means, np.full(means.shape, float(self.sigma)))

    @property
    def degenerate(self) -> bool:  # a fit at a bound of ``SIGMA_RANGE``: the evidence fixes no careful spread
        return not SIGMA_RANGE[0] * 1.01 < self.sigma < SIGMA_RANGE[1] * 0.99


def _rounded(latent: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr

    below = ndtr((np.arange(0.5, 5.0)[None, :] - latent[:, None]) / sigma[:, None])  # rounds to an answer <= k
    return np.diff(below, axis=1, prepend=0.0, append=1.0)


def _bisect(low, high, too_high, steps: int):
    """Where ``too_high`` (monotone) turns true between ``low`` and ``high``: floats, or arrays solved elementwise."""
    for _ in range(steps):
        middle = (low + high) / 2
        above = too_high(middle)
        low, high = np.where(above, low, middle), np.where(above, middle, high)
    return (low + high) / 2


def _rounded_normal(means: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """The answers' distribution whose mean is ``means``: the latent score found by bisection (the mean rises with it)."""
    latent = _bisect(-1.0 - 10.0 * sigma, 6.0 + 10.0 * sigma, lambda m: _rounded(m, sigma) @ SCALE > means, 60)
    return _rounded(latent, sigma)


def _sigma_for_variance(means: np.ndarray, target: np.ndarray, pooled: bool) -> np.ndarray:
    """Per item (or one for all, matching the mean variance) the ``sigma`` whose answers have variance ``target``."""

    def too_wide(log_sigma: np.ndarray) -> np.ndarray:
        d = _rounded_normal(means, np.exp(log_sigma))
        variance = d @ SCALE**2 - (d @ SCALE) ** 2
        return np.full(means.shape, variance.mean() > target.mean()) if pooled else variance > target

    return np.exp(_bisect(np.full(means.shape, math.log(0.01)), np.full(means.shape, math.log(20.0)), too_wide, 40))


def from_means(
    means: Sequence[float],
    classes: Sequence[str] | None,
    spread_model: RoundedNormal | Mapping[str, RoundedNormal],
    *,
    type_of: Sequence[int] | None = None,
    labels: Sequence[str] | None = None,
) -> PlanInput:
    """Items from published means only, spread by ``spread_model`` (``fit_spread``'s) or per class (a mapping)."""
    per_class = isinstance(spread_model, Mapping)
    if per_class and (classes is None or len(classes) != len(means) or not set(classes) <= set(spread_model)):
        raise ValueError("a spread model per class: every item needs a class, and every class a model")
    sigma = [spread_model[c].sigma for c in classes] if per_class else [spread_model.sigma] * len(means)
    return PlanInput(
        distribution=_rounded_normal(np.clip(np.asarray(means, dtype=float), 0.0, 5.0), np.asarray(sigma, dtype=float)),
        classes=None if classes is None else tuple(classes),
        type_of=None if type_of is None else np.asarray(type_of, dtype=int),
        labels=None if labels is None else tuple(labels),
    )


def from_ratings(frame: pd.DataFrame, *, question: str = "compound_score", pooled: bool = False) -> PlanInput:
    """Items from pilot ratings (a campaign's long frame: ``item``, ``annotator``, ``question``): mean and spread.

    Each item's ``sigma`` matches its ratings' variance (``ddof=1``); one rating, or ``pooled``: the pilot's mean
    variance. Unanimous pilots stay unanimous (with 2-3 ratings per item, ``pooled`` is safer); its careless
    workers are in its spreads already: plan with ``careless=0`` or filter it first."""
    grouped = frame.loc[frame[question].notna(), ["item", question]].groupby("item", sort=True)[question]
    means = np.clip(grouped.mean().to_numpy(float), 0.0, 5.0)
    variances = grouped.var(ddof=1).to_numpy(float)
    known = np.isfinite(variances)
    if not known.any():
        raise ValueError("from_ratings needs an item with two ratings or more")
    sigma = np.full(means.shape, _sigma_for_variance(means[known], variances[known], pooled=True)[0])
    if not pooled:
        sigma[known] = _sigma_for_variance(means[known], variances[known], pooled=False)
    return PlanInput(distribution=_rounded_normal(means, sigma), labels=tuple(str(i) for i in grouped.mean().index))


def fit_spread(
    grouped_means: np.ndarray, ratings_per_mean: int, *, careless: float = 0.1, replicates: int = 20, seed: int = 0
) -> RoundedNormal:
    """The ``RoundedNormal`` whose crowd gives means of one sense the median scatter that they have.

    ``grouped_means``: (groups, k) means of items sharing a true score (NCTTI: a compound's sentences), each of
    ``ratings_per_mean`` ratings; matched: the median over groups of the k means' variance (``ddof=1``), averaged
    over ``replicates`` simulated datasets with a share ``careless`` of random answers."""
    g = np.asarray(grouped_means, dtype=float)
    g = g[np.isfinite(g).all(axis=1)]
    if g.ndim != 2 or g.shape[1] < 2 or len(g) < 3:
        raise ValueError("grouped_means: at least three groups of two or more means")
    observed, truth = float(np.median(g.var(axis=1, ddof=1))), np.clip(g.mean(axis=1), 0.0, 5.0)
    rng, shape = np.random.default_rng(seed), (replicates, len(g), g.shape[1], ratings_per_mean)
    u, random_answer, is_careless = rng.random(shape), rng.integers(0, len(SCALE), shape), rng.random(shape) < careless

    def median_scatter(sigma: float) -> float:
        cumulative = np.cumsum(RoundedNormal(sigma).probabilities(truth), axis=1)[:, :-1]
        careful = (u[..., None] > cumulative[None, :, None, None, :]).sum(axis=-1)
        means = np.where(is_careless, random_answer, careful).mean(axis=-1)
        return float(np.median(means.var(axis=-1, ddof=1), axis=-1).mean())

    log_sigma = _bisect(*np.log(SIGMA_RANGE), lambda x: median_scatter(math.exp(x)) > observed, 30)
    return RoundedNormal(sigma=round(math.exp(float(log_sigma)), 4))


def fit_spread_by_class(grouped_means: np.ndarray, classes: Sequence[str], ratings_per_mean: int, **options) -> dict:
    """Class to ``fit_spread`` (with ``options``) on that class's groups alone (``classes``: one per group)."""
    g, labels = np.asarray(grouped_means, dtype=float), np.asarray(classes)  # numpy refuses a length mismatch
    return {c: fit_spread(g[labels == c], ratings_per_mean, **options) for c in sorted(set(labels.tolist()))}
