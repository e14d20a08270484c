"""The sparse agreement computations (annotation.analysis.triples, top_k, alpha-if-removed) against the dense
ones they replaced and the krippendorff package, on random campaigns with missing ratings (pure: no database)."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pytest

from annotation.analysis import agreement, top_k, triples
from annotation.analysis.reliability import alpha_if_removed, annotator_reliability

DOMAIN = agreement.SCORE_DOMAIN


def campaign(seed: int, annotators: int, items: int, missing: float) -> tuple[np.ndarray, pd.DataFrame]:
    """A noisy campaign as an annotators × items matrix (NaN: not rated) and as long ratings, rows shuffled."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 5, items)
    matrix = np.clip(np.rint(truth + rng.normal(0, 1.2, (annotators, items))), 0, 5)
    matrix[rng.random(matrix.shape) < missing] = np.nan
    a, i = np.nonzero(~np.isnan(matrix))
    ratings = pd.DataFrame({"annotator": [f"w{x:03d}" for x in a], "item": i * 7, "compound_score": matrix[a, i]})
    ratings["compound"] = ratings["item"] // 3
    return matrix, ratings.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def dense_alpha_if_removed(matrix: np.ndarray, level: str) -> np.ndarray:
    """The dense computation this replaced: every annotator's ratings out of the item counts at once."""
    counts = agreement.value_counts(matrix)
    own = (matrix[:, :, None] == DOMAIN[None, None, :]).astype(float)
    o_without = agreement.item_coincidences(counts[None, :, :] - own).sum(axis=1)
    return np.atleast_1d(agreement.alpha_from_coincidences(o_without, level))


def dense_bootstrap(matrix: np.ndarray, level: str, n_resamples: int, seed: int) -> tuple[float, float, int, int]:
    """The dense bootstrap this replaced: (low, high, items, annotators) from the matrix's pairable columns."""
    matrix = matrix[:, (~np.isnan(matrix)).sum(axis=0) >= 2]
    matrix = matrix[~np.isnan(matrix).all(axis=1)]
    per_item = agreement.item_coincidences(agreement.value_counts(matrix))
    n_items = per_item.shape[0]
    draws = np.random.default_rng(seed).integers(0, n_items, size=(n_resamples, n_items))
    multiplicity = np.stack([np.bincount(row, minlength=n_items) for row in draws]).astype(float)
    o = (multiplicity @ per_item.reshape(n_items, 36)).reshape(n_resamples, 6, 6)
    alphas = np.asarray(agreement.alpha_from_coincidences(o, level))
    low, high = np.percentile(alphas[~np.isnan(alphas)], [2.5, 97.5])
    return float(low), float(high), n_items, matrix.shape[0]


def dense_top_k(matrix: np.ndarray, k: int) -> tuple[list[int], int]:
    """The dense search this replaced (every pair, or every triple, in lexicographic order; the first maximum)."""
    rated = ~np.isnan(matrix)
    best, best_count = None, -1
    for rows in itertools.combinations(range(len(matrix)), k):
        count = int(rated[list(rows)].all(axis=0).sum())
        if count > best_count:
            best, best_count = list(rows), count
    return best, best_count


@pytest.mark.parametrize("seed", range(6))
def test_triples_count_values_as_the_dense_matrix(seed: int) -> None:
    matrix, ratings = campaign(seed, annotators=int(3 + seed), items=40, missing=0.6)
    t = triples.triples(ratings, "compound_score", DOMAIN)
    labelled = agreement.reliability_matrix(ratings, "compound_score")
    np.testing.assert_array_equal(triples.value_counts(t), agreement.value_counts(labelled))
    assert t.n_annotators == labelled.shape[0] and t.n_items == labelled.shape[1]


@pytest.mark.parametrize("level", agreement.LEVELS)
@pytest.mark.parametrize("seed", range(5))
def test_alpha_if_removed_for_every_annotator_equals_the_dense_form_and_krippendorff(level: str, seed: int) -> None:
    matrix, ratings = campaign(seed, annotators=8, items=30, missing=0.5)
    labelled = agreement.reliability_matrix(ratings, "compound_score")
    sparse = alpha_if_removed(triples.triples(ratings, "compound_score", DOMAIN), level)
    np.testing.assert_allclose(sparse, dense_alpha_if_removed(labelled, level), rtol=1e-9, atol=1e-12)
    for a in range(len(labelled)):
        rest = np.delete(labelled, a, axis=0)
        expected = krippendorff.alpha(rest, level_of_measurement=level, value_domain=list(range(6)))
        assert sparse[a] == pytest.approx(expected, abs=1e-9)


def test_alpha_if_removed_is_nan_when_nothing_pairable_is_left() -> None:
    # Without either annotator one coder is left: no pair, so no alpha, not a rounding residue.
    ratings = pd.DataFrame({"annotator": ["a"] * 3 + ["b"] * 3, "item": [1, 2, 3] * 2, "compound_score": [0, 2, 5] * 2})
    result = alpha_if_removed(triples.triples(ratings, "compound_score", DOMAIN), "interval")
    assert np.isnan(result).all()
    # A third annotator who only ever agrees on one value leaves a single value: undefined as well.
    three = pd.concat([ratings, pd.DataFrame({"annotator": ["c"] * 2, "item": [1, 9], "compound_score": [0, 0]})])
    by = annotator_reliability(three.assign(compound=0)).set_index("annotator")["alpha_if_removed"]
    assert np.isnan(by["a"]) and np.isnan(by["b"]) and not np.isnan(by["c"])


@pytest.mark.parametrize("seed", range(12))
def test_top_k_equals_the_exhaustive_search_ties_included(seed: int) -> None:
    # Few items and many holes: many pairs and triples tie, so the tie order is tested too.
    rng = np.random.default_rng(seed)
    matrix, _ = campaign(seed, annotators=int(rng.integers(3, 14)), items=int(rng.integers(1, 25)), missing=0.7)
    t = triples.from_matrix(matrix, DOMAIN)
    for k in (2, 3):
        assert top_k.top_k(t, k) == dense_top_k(matrix, k)
        assert agreement.top_k_annotators(matrix, k) == dense_top_k(matrix, k)


def test_top_triple_when_no_three_annotators_share_an_item() -> None:
    matrix = np.full((4, 4), np.nan)
    matrix[[0, 1], 0] = 1
    matrix[[2, 3], 1] = 2
    assert top_k.top_k(triples.from_matrix(matrix, DOMAIN), 3) == ([0, 1, 2], 0)


@pytest.mark.parametrize("level", ["interval", "ordinal"])
def test_bootstrap_from_triples_equals_the_dense_bootstrap(level: str) -> None:
    matrix, ratings = campaign(3, annotators=12, items=200, missing=0.7)
    labelled = agreement.reliability_matrix(ratings, "compound_score")
    low, high, n_items, n_annotators = dense_bootstrap(labelled, level, 300, 4)
    sparse = agreement.bootstrap_alpha(ratings, "compound_score", level, n_resamples=300, seed=4)
    assert (sparse.n_items, sparse.n_annotators) == (n_items, n_annotators)
    assert sparse.alpha == pytest.approx(
        krippendorff.alpha(labelled, level_of_measurement=level, value_domain=list(range(6))), abs=1e-9
    )
    assert (sparse.low, sparse.high) == pytest.approx((low, high), abs=1e-12)
    on_matrix = agreement._bootstrap_triples(triples.from_matrix(labelled, DOMAIN), level, 300, 4, 0.95, DOMAIN)
    assert (on_matrix.low, on_matrix.high, on_matrix.n_items) == pytest.approx((low, high, n_items), abs=1e-12)


def test_agreement_table_top_k_rows_use_the_exhaustive_searchs_annotators() -> None:
    matrix, ratings = campaign(8, annotators=9, items=25, missing=0.6)
    labelled = agreement.reliability_matrix(ratings, "compound_score")
    rows = agreement.agreement_table(ratings, levels=["interval"], questions=["compound_score"], n_resamples=0)
    for row in rows[1:]:
        picked, count = dense_top_k(labelled, int(row["procedure"][-1]))
        sub = labelled[picked][:, ~np.isnan(labelled[picked]).any(axis=0)]
        expected = krippendorff.alpha(sub, level_of_measurement="interval", value_domain=list(range(6)))
        assert row["n_items"] == count and row["alpha"] == pytest.approx(expected, abs=1e-9)


def test_a_duplicate_rating_or_a_value_outside_the_domain_is_refused() -> None:
    twice = pd.DataFrame({"annotator": ["a", "a"], "item": [1, 1], "q": [1.0, 2.0]})
    with pytest.raises(ValueError, match="more than once"):
        triples.triples(twice, "q", DOMAIN)
    with pytest.raises(ValueError, match="value domain"):
        triples.triples(pd.DataFrame({"annotator": ["a"], "item": [1], "q": [2.5]}), "q", DOMAIN)
