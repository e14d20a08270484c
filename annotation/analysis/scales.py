"""Agreement by scale type for the 0-5 ratings: ICC(2,1) and ICC(2,k) for the interval reading, weighted kappa per pair.

Pure module (numpy; pandas and scipy imported where used). Krippendorff's alpha (``annotation.analysis.agreement``)
answers "do the ratings agree beyond chance" for any level of measurement; a reader from psychometrics asks the
same question in the measures of their field, so this module gives them, from the same sparse long frame of
ratings (columns ``item``, ``annotator`` and a question column, NaN when missing):

- ICC(2,1) and ICC(2,k) (Shrout & Fleiss 1979; McGraw & Wong 1996: two-way random effects, absolute agreement,
  one rating / the mean of k ratings), from the variance components of y = mu + item + rater + e estimated by
  Henderson's Method 1 (Searle, Casella & McCulloch 1992, ch. 5). Method 1 needs four sums of squares and the
  counts of ratings per item and per rater, never an items × raters matrix, so a crowd campaign where each worker
  rates a few of thousands of items costs O(ratings). On a complete matrix its estimates are the ANOVA mean-square
  formulas, and the interval is the F-based one of McGraw & Wong (as ``pingouin.intraclass_corr`` reports it);
  on an incomplete design, where no exact interval exists, it is a seeded percentile bootstrap over items.
- Cohen's weighted kappa (Cohen 1968) for every pair of annotators with enough items in common, over the fixed
  categories 0-5, found by grouping the ratings by item: pairs that share nothing are never visited.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from annotation.analysis import triples as sparse
from annotation.analysis.agreement import QUESTIONS, SCORE_DOMAIN

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

Weights = Literal["quadratic", "linear"]
MIN_SHARED = 10  # items a pair of annotators must share for their kappa to mean anything
BOOTSTRAP_CHUNK = 64
SUMMARY = ("median", "min", "max", "weighted_mean")
ROW = ("question", "measure", "value", "low", "high", "n_items", "n_annotators", "note")
ICC_REFERENCE = "Shrout & Fleiss (1979); McGraw & Wong (1996); Henderson's Method 1 (Searle et al. 1992, ch. 5)"
ALPHA_REFERENCE = "Krippendorff (2011), Computing Krippendorff's alpha-reliability"
MEASURES: dict[str, tuple[str, str, str]] = {
    "icc2_1": ("ICC(2,1)", "Absolute agreement of one rating: item variance over all variance.", ICC_REFERENCE),
    "icc2_k": ("ICC(2,k)", "Absolute agreement of the mean of k ratings per item.", ICC_REFERENCE),
    "kappa_quadratic": (
        "Quadratic-weighted kappa",
        "Cohen's kappa of a pair of annotators, squared distances between the categories 0-5.",
        "Cohen (1968), Psychological Bulletin 70(4)",
    ),
    "alpha_interval": ("Alpha (interval)", "Krippendorff's alpha, squared differences of the scores.", ALPHA_REFERENCE),
    "alpha_ordinal": ("Alpha (ordinal)", "Krippendorff's alpha, distances from the ranks of values.", ALPHA_REFERENCE),
    "spearman_loo": (
        "Spearman rho against the others",
        "Each worker against the mean of the others on shared items (reliability.annotator_reliability).",
        "Spearman (1904); the worker filter of Garcia et al. (2021)",
    ),
}


@dataclass(frozen=True)
class Components:
    """Variance components of y = mu + item + rater + e (negative estimates set to 0) and the design they came from.

    ``k`` is the harmonic mean of the ratings per item; ``note`` says, in words, why the components are NaN.
    """

    items: float
    raters: float
    error: float
    n_items: int
    n_raters: int
    n_ratings: int
    k: float
    complete: bool
    note: str = ""


@dataclass(frozen=True)
class ICCResult:
    """An ICC with its interval (NaN when none), what it was computed on, and a note on how (or why it is NaN)."""

    value: float
    low: float
    high: float
    n_items: int
    n_annotators: int
    note: str

    def as_dict(self) -> dict:
        """The result as a plain dict."""
        return asdict(self)


def _cells(ratings: pd.DataFrame, question: str) -> sparse.Triples:
    """The ratings of ``question`` as triples; any numbers are accepted (the ICC is for interval data)."""
    values = ratings[question].dropna().to_numpy(float)
    # triples() rejects an item rated twice by one annotator; the domain is simply the values present.
    return sparse.triples(ratings, question, np.unique(values))


def _design_note(t: sparse.Triples) -> str:
    """Why the two-way model cannot be estimated on these ratings, in words; empty when it can."""
    if t.item.size == 0:
        return "no ratings"
    checks = [
        (t.n_items < 2, "fewer than 2 items: item variance cannot be estimated"),
        (t.n_annotators < 2, "one annotator: rater and item effects cannot be told apart"),
        (np.bincount(t.item).max() < 2, "no item has two ratings: agreement cannot be observed"),
        (np.ptp(t.value) == 0, "no variation: every rating is the same"),
    ]
    return next((note for failed, note in checks if failed), "")


def _henderson(t: sparse.Triples, copies: np.ndarray) -> np.ndarray:
    """[items, raters, error] variance by Henderson's Method 1 for each row of ``copies``; NaN where singular.

    ``copies`` (resamples × items) says how often each item counts: all ones for the data, a bootstrap draw's
    multiplicities otherwise (an item drawn twice counts as two items). The expected values of T_items - T_mu,
    T_raters - T_mu and T0 - T_mu are linear in the three components, with the k-coefficients below (one rating
    per cell, so sum_j n_ij^2 / n_i. = 1 per item and sum_i n_ij^2 / n_.j = 1 per rater); equating them to the
    observed forms gives three equations in three unknowns. Every form is a product with ``copies``, so all
    resamples are computed at once from per-item sums and one sparse raters × items product.
    """
    from scipy.sparse import csr_matrix  # imported here: pages and workers import this module without it

    y = t.scores()
    n_i = np.bincount(t.item, minlength=t.n_items).astype(float)  # every item of the triples has a rating
    s_i = np.bincount(t.item, weights=y, minlength=t.n_items)
    shape = (t.n_annotators, t.n_items)
    rater_n = (csr_matrix((np.ones_like(y), (t.annotator, t.item)), shape) @ copies.T).T
    rater_sum = (csr_matrix((y, (t.annotator, t.item)), shape) @ copies.T).T
    n = copies @ n_i
    t_mu = (copies @ s_i) ** 2 / n
    t0 = copies @ np.bincount(t.item, weights=y * y, minlength=t.n_items)
    t_items = copies @ (s_i**2 / n_i)
    t_raters = (rater_sum**2 / np.where(rater_n > 0, rater_n, 1.0)).sum(axis=1)
    a, b = copies.sum(axis=1), (rater_n > 0).sum(axis=1)
    k1, k2 = copies @ n_i**2 / n, (rater_n**2).sum(axis=1) / n
    rows = [n - k1, a - k2, a - 1, b - k1, n - k2, b - 1, n - k1, n - k2, n - 1]  # k3 = a and k4 = b
    coefficients = np.stack(rows, axis=-1).reshape(-1, 3, 3)
    observed = np.stack([t_items - t_mu, t_raters - t_mu, t0 - t_mu], axis=-1)
    estimate = np.full(observed.shape, np.nan)
    ok = np.linalg.cond(coefficients) < 1e12
    estimate[ok] = np.linalg.solve(coefficients[ok], observed[ok][..., None])[..., 0]
    return estimate


def _icc_pair(components: np.ndarray, k: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """ICC(2,1) and ICC(2,k) from rows of [items, raters, error] variance, negative estimates taken as 0."""
    items, raters, error = np.maximum(components, 0.0).T
    total = items + raters + error
    with np.errstate(divide="ignore", invalid="ignore"):
        single = np.where(total > 0, items / total, np.nan)
        average = np.where(total > 0, items / (items + (raters + error) / k), np.nan)
    return single, average


def variance_components(ratings: pd.DataFrame, question: str = "compound_score") -> Components:
    """Item, rater and residual variance of one question by Henderson's Method 1, in O(ratings).

    A negative estimate (sampling noise around a variance near 0) is truncated at 0, the usual convention: a
    variance cannot be negative. When it binds, the ICC departs from the mean-square formula, which can then
    go below 0. ``k`` is the harmonic mean of the ratings per item: the error variance of an item's mean is
    (rater + residual) / n_i, so the mean over items of that variance is (rater + residual) / harmonic mean.
    """
    return _components(_cells(ratings, question))


def _components(t: sparse.Triples) -> Components:
    """``variance_components`` of ratings already in triples (``icc2`` reuses them for its interval)."""
    y, n_items, n_raters = t.scores(), t.n_items, t.n_annotators
    complete = y.size > 0 and y.size == n_items * n_raters
    note = _design_note(t)
    k = float(n_items / (1.0 / np.bincount(t.item, minlength=n_items)).sum()) if y.size else float("nan")
    estimate = np.full(3, np.nan) if note else _henderson(t, np.ones((1, n_items)))[0]
    if not note and np.isnan(estimate).any():
        note = "the design does not separate item, rater and residual variance"
    items, raters, error = (float(x) for x in np.maximum(estimate, 0.0))
    return Components(items, raters, error, n_items, n_raters, int(y.size), k, bool(complete), note)


def _f_intervals(t: sparse.Triples, confidence: float) -> np.ndarray:
    """McGraw & Wong's F-based [[low, high] of ICC(A,1), [low, high] of ICC(A,k)] on a complete matrix.

    The formulas are those of ``pingouin.intraclass_corr``, which follow McGraw & Wong (1996, table 7).
    """
    from scipy.special import fdtri  # scipy.stats.f.ppf is this function; imported here: slow to import

    y, n, k = t.scores(), t.n_items, t.n_annotators
    item_sum, rater_sum = np.bincount(t.item, weights=y), np.bincount(t.annotator, weights=y)
    t_mu = y.sum() ** 2 / y.size
    ss_items, ss_raters = (item_sum**2).sum() / k - t_mu, (rater_sum**2).sum() / n - t_mu
    ss_error = (y * y).sum() - t_mu - ss_items - ss_raters
    msr, msc, mse = ss_items / (n - 1), ss_raters / (k - 1), ss_error / ((n - 1) * (k - 1))
    # The interval is built on the mean-square ICC as published (not truncated), as McGraw & Wong derive it.
    icc = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
    fj = msc / mse
    v = ((n - 1) * (k - 1) * (k * icc * fj + n * (1 + (k - 1) * icc) - k * icc) ** 2) / (
        (n - 1) * k**2 * icc**2 * fj**2 + (n * (1 + (k - 1) * icc) - k * icc) ** 2
    )
    tail = 1 - (1 - confidence) / 2
    f_upper, f_lower = fdtri(n - 1, v, tail), fdtri(v, n - 1, tail)
    spread = k * msc + (k * n - k - n) * mse
    low = n * (msr - f_upper * mse) / (f_upper * spread + n * msr)
    high = n * (f_lower * msr - mse) / (spread + n * f_lower * msr)
    single = np.array([low, high], dtype=float)
    # ICC(A,k)'s bounds are ICC(A,1)'s stepped up by Spearman-Brown, as McGraw & Wong give them.
    return np.stack([single, single * k / (1 + single * (k - 1))])


def _bootstrap(t: sparse.Triples, n_resamples: int, seed: int, confidence: float) -> np.ndarray:
    """Percentile [[low, high] of ICC(2,1), [low, high] of ICC(2,k)] from resampling items with replacement (raters kept).

    Each resample reweights the ratings by how often their item was drawn, so no frame is rebuilt. It answers
    "how much would the figure move on other items from the same campaign": the raters are held fixed.
    """
    rng = np.random.default_rng(seed)
    per_item = np.bincount(t.item, minlength=t.n_items)
    single, average = [], []
    # Resamples in chunks bound the memory of the resamples × raters sums at BOOTSTRAP_CHUNK × raters floats.
    for start in range(0, n_resamples, BOOTSTRAP_CHUNK):
        size = min(BOOTSTRAP_CHUNK, n_resamples - start)
        draws = rng.integers(0, t.n_items, (size, t.n_items)) + (np.arange(size) * t.n_items)[:, None]
        copies = np.bincount(draws.ravel(), minlength=size * t.n_items).reshape(size, t.n_items).astype(float)
        # Each resample's own k: the harmonic mean of the ratings per item over the drawn items, copies counted.
        k = copies.sum(axis=1) / (copies / per_item).sum(axis=1)
        one, mean = _icc_pair(_henderson(t, copies), k)
        single.append(one)
        average.append(mean)
    tail = (1 - confidence) / 2 * 100
    values = (x[np.isfinite(x)] for x in (np.concatenate(single), np.concatenate(average)))
    return np.array([np.percentile(x, [tail, 100 - tail]) if x.size else [np.nan, np.nan] for x in values])


def icc2(
    ratings: pd.DataFrame,
    question: str = "compound_score",
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, ICCResult]:
    """{"icc2_1": ICC(2,1), "icc2_k": ICC(2,k)} of one question, each with its interval and a note on how.

    Complete items × raters data get McGraw & Wong's F-based interval; incomplete data a percentile bootstrap
    over items (``n_resamples`` resamples from ``seed``; 0 for none). Undefined values are NaN with a note.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must be in (0, 1)")
    t = _cells(ratings, question)
    c = _components(t)
    if c.note:
        nan = ICCResult(np.nan, np.nan, np.nan, c.n_items, c.n_raters, c.note)
        return {"icc2_1": nan, "icc2_k": nan}
    single, average = (float(x[0]) for x in _icc_pair(np.array([[c.items, c.raters, c.error]]), c.k))
    level = f"{confidence:.0%}"
    cells = f"{c.n_ratings} of {c.n_items} × {c.n_raters} cells"
    if c.complete:
        with np.errstate(divide="ignore", invalid="ignore"):
            bounds = _f_intervals(t, confidence)
        how = f"complete {c.n_items} items × {c.n_raters} raters; {level} F-based interval (McGraw & Wong 1996)"
        if not np.isfinite(bounds).all():
            how = f"complete {c.n_items} × {c.n_raters}; no F-based interval: the residual variance is 0"
    elif n_resamples > 0:
        bounds = _bootstrap(t, n_resamples, seed, confidence)
        how = f"incomplete ({cells}); {level} percentile bootstrap over items ({n_resamples} resamples, seed {seed})"
    else:
        bounds = np.full((2, 2), np.nan)
        how = f"incomplete ({cells}); not bootstrapped"
    if not c.complete:
        how += f"; k = {c.k:.2f}, the harmonic mean of the ratings per item"
    return {
        measure: ICCResult(value, float(low), float(high), c.n_items, c.n_raters, how)
        for measure, value, (low, high) in zip(("icc2_1", "icc2_k"), (single, average), bounds, strict=True)
    }


@dataclass(frozen=True)
class PairKappas:
    """Weighted kappa of each pair of annotators (codes into ``annotators``) and the items the pairs cover."""

    annotators: np.ndarray
    first: np.ndarray
    second: np.ndarray
    n_shared: np.ndarray
    kappa: np.ndarray
    n_items: int


def _pairs_by_item(t: sparse.Triples) -> tuple[np.ndarray, np.ndarray]:
    """Positions (p, q) of every two ratings of one item, in an item-then-annotator order; O(pairs found)."""
    order = np.lexsort((t.annotator, t.item))
    starts = np.concatenate([[0], np.cumsum(np.bincount(t.item, minlength=t.n_items))])
    after = starts[t.item[order] + 1] - np.arange(order.size) - 1  # ratings of the same item after each one
    firsts, seconds = [], []
    candidates, d = np.flatnonzero(after > 0), 1
    while candidates.size:
        firsts.append(candidates)
        seconds.append(candidates + d)
        d += 1
        candidates = candidates[after[candidates] >= d]
    if not firsts:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    return order[np.concatenate(firsts)], order[np.concatenate(seconds)]


def _pair_kappas(t: sparse.Triples, weights: Weights, min_shared: int) -> PairKappas:
    """Weighted kappa of the pairs sharing ``min_shared`` items or more, from one confusion matrix per pair."""
    if weights not in ("quadratic", "linear"):
        raise ValueError(f"weights must be 'quadratic' or 'linear', not {weights!r}")
    v = len(t.domain)
    p, q = _pairs_by_item(t)
    # Ratings of an item are sorted by annotator code, so first < second and each pair has one code.
    code = t.annotator[p] * t.n_annotators + t.annotator[q]
    pairs, which, counts = np.unique(code, return_inverse=True, return_counts=True)
    kept = counts >= min_shared
    index = np.cumsum(kept) - 1
    used = kept[which]
    cells = index[which[used]] * v * v + t.value[p[used]] * v + t.value[q[used]]
    confusion = np.bincount(cells, minlength=kept.sum() * v * v).reshape(-1, v, v).astype(float)
    n = confusion.sum(axis=(1, 2))
    expected = confusion.sum(axis=2)[:, :, None] * confusion.sum(axis=1)[:, None, :] / n[:, None, None]
    gap = np.abs(np.arange(v)[:, None] - np.arange(v)[None, :]).astype(float)
    w = gap**2 if weights == "quadratic" else gap
    observed_d, expected_d = (confusion * w).sum(axis=(1, 2)), (expected * w).sum(axis=(1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        # Both annotators used one and the same category: no disagreement was possible, kappa is undefined.
        kappa = np.where(expected_d > 0, 1 - observed_d / expected_d, np.nan)
    codes = pairs[kept]
    n_items = int(np.unique(t.item[p[used]]).size)
    return PairKappas(t.annotators, codes // t.n_annotators, codes % t.n_annotators, n, kappa, n_items)


def pairwise_kappa(
    ratings: pd.DataFrame,
    question: str = "compound_score",
    weights: Weights = "quadratic",
    min_shared: int = MIN_SHARED,
) -> pd.DataFrame:
    """One row per pair of annotators with ``min_shared`` items in common: annotator_a, annotator_b, n_shared, kappa.

    The categories are fixed to 0-5 (``sklearn.metrics.cohen_kappa_score(labels=range(6))``): a category neither
    annotator used still counts in the distances. kappa is NaN where both used a single, identical category.
    """
    import pandas as pd

    k = _pair_kappas(sparse.triples(ratings, question, SCORE_DOMAIN), weights, min_shared)
    columns = (k.annotators[k.first], k.annotators[k.second], k.n_shared.astype(int), k.kappa)
    return pd.DataFrame(dict(zip(("annotator_a", "annotator_b", "n_shared", "kappa"), columns, strict=True)))


def kappa_summary(n_shared: np.ndarray, kappa: np.ndarray) -> dict:
    """{n_pairs, median, min, max, weighted_mean} over the pairs with a kappa; weighted_mean weighs by items shared."""
    n_shared, kappa = np.asarray(n_shared, dtype=float), np.asarray(kappa, dtype=float)
    ok = np.isfinite(kappa)
    values, weight = kappa[ok], n_shared[ok]
    if not values.size:
        return {"n_pairs": 0, "median": np.nan, "min": np.nan, "max": np.nan, "weighted_mean": np.nan}
    figures = (np.median(values), values.min(), values.max(), (values * weight).sum() / weight.sum())
    return {"n_pairs": values.size, **{key: float(x) for key, x in zip(SUMMARY, figures, strict=True)}}


def _kappa_row(t: sparse.Triples, question: str, min_shared: int) -> dict:
    """The kappa_quadratic row of ``scale_agreement``: median over pairs, min and max as low and high."""
    k = _pair_kappas(t, "quadratic", min_shared)
    s = kappa_summary(k.n_shared, k.kappa)
    ok = np.isfinite(k.kappa)
    n_annotators = int(np.unique(np.concatenate([k.first[ok], k.second[ok]])).size)
    if s["n_pairs"]:
        note = (
            f"median of {s['n_pairs']} annotator pairs sharing ≥ {min_shared} items (low, high: min and max over "
            f"pairs; mean weighted by items shared {s['weighted_mean']:.3f})"
        )
    elif k.kappa.size:
        note = f"no pair sharing ≥ {min_shared} items used two categories: kappa is undefined without variation"
    else:
        note = f"no pair of annotators shares ≥ {min_shared} items"
    figures = (s["median"], s["min"], s["max"], k.n_items if s["n_pairs"] else 0, n_annotators, note)
    return {"question": question, "measure": "kappa_quadratic", **dict(zip(ROW[2:], figures, strict=True))}


def scale_agreement(
    ratings: pd.DataFrame,
    questions: Iterable[str] = QUESTIONS,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    min_shared: int = MIN_SHARED,
) -> list[dict]:
    """Rows {question, measure, value, low, high, n_items, n_annotators, note}: icc2_1, icc2_k, kappa_quadratic.

    ``MEASURES`` names and explains each measure key; ``note`` says how a value was computed or, when it is
    NaN, why it cannot exist. Nothing raises on data that are too small or too uniform.
    """
    rows: list[dict] = []
    for question in questions:
        for measure, result in icc2(ratings, question, n_resamples, seed, confidence).items():
            rows.append({"question": question, "measure": measure, **result.as_dict()})
        rows.append(_kappa_row(sparse.triples(ratings, question, SCORE_DOMAIN), question, min_shared))
    return rows
