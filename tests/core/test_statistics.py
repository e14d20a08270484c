"""The shared statistics: Spearman with scipy, Benjamini-Hochberg with scipy, against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from core.statistics import adjust_bh, average_ranks, nan_for_none, spearman, spearman_columns, t_two_sided


def test_spearman_matches_a_hand_ranking_of_five_items():
    # Ranks differ by (-1, 1, -1, 1, 0): rho = 1 - 6 * 4 / (5 * (25 - 1)) = 0.8.
    rho, p, n = spearman([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])

    assert rho == pytest.approx(0.8)
    assert p == pytest.approx(stats.spearmanr([1, 2, 3, 4, 5], [2, 1, 4, 3, 5]).pvalue)
    assert n == 5
    assert type(rho) is float and type(p) is float


def test_spearman_skips_missing_values_and_refuses_degenerate_series():
    assert spearman([1, None, 3, 4], [1, 2, float("nan"), 4]) == (None, None, 2)
    assert spearman([1, 2, 3], [5, 5, 5]) == (None, None, 3)
    assert spearman([3, 2, 1, None], [1, 2, 3, 4])[:2] == (pytest.approx(-1.0), pytest.approx(0.0))


def test_adjust_bh_on_a_hand_computed_case():
    # Sorted: 0.001 * 3/1 = 0.003; 0.03 * 3/2 = 0.045; 0.04 * 3/3 = 0.04; step-up keeps 0.045 down at 0.04.
    assert adjust_bh([0.04, 0.001, 0.03, None]) == [
        pytest.approx(0.04),
        pytest.approx(0.003),
        pytest.approx(0.04),
        None,
    ]
    assert adjust_bh([0.5, 0.9]) == [pytest.approx(0.9), pytest.approx(0.9)]
    assert adjust_bh([]) == []


def test_adjust_bh_agrees_with_scipy():
    p = [0.01, 0.2, 0.03, 0.04, 0.5, 0.001, 0.049]

    assert adjust_bh(p) == pytest.approx(list(stats.false_discovery_control(p)))


def test_spearman_reads_numpy_arrays_and_their_nan():
    rho, p, n = spearman(np.array([1.0, 2.0, np.nan, 4.0, 5.0]), np.array([1.0, 3.0, 2.0, 4.0, 5.0]))
    assert (rho, n) == (pytest.approx(1.0), 4) and type(rho) is float


def test_adjust_bh_leaves_nan_out_of_the_family():
    assert adjust_bh([0.01, float("nan"), 0.02]) == [pytest.approx(0.02), None, pytest.approx(0.02)]


def test_nan_for_none_is_for_tables():
    assert math.isnan(nan_for_none(None)) and nan_for_none(0.5) == 0.5


def test_spearman_gives_scipys_numbers_with_ties_and_missing_values():
    rng = np.random.default_rng(3)
    for n in (3, 7, 40, 459):
        x = np.round(rng.normal(size=n), 1)
        y = np.round(x * 0.3 + rng.normal(size=n))
        expected = stats.spearmanr(x, y)
        rho, p, count = spearman([*x, None, float("nan")], [*y, 1.0, 2.0])
        assert count == n
        assert rho == pytest.approx(expected.statistic, abs=1e-12)
        assert p == pytest.approx(expected.pvalue, rel=1e-9)


def test_spearman_columns_equals_spearman_of_each_column_missing_values_and_ties_included():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 6, 40).astype(float)  # ties, as human scores have
    y[[3, 17]] = np.nan
    columns = rng.normal(size=(40, 5))
    columns[5, 1] = np.nan  # a measure missing where the human score is present: ranked alone
    columns[3, 2] = np.nan  # missing where the human score is missing too: still ranked with the others
    columns[:, 3] = 0.5  # constant
    columns[:, 4] = np.where(np.isnan(y), 0.0, y * 2)  # perfectly monotone
    found = spearman_columns(columns, y)
    for j in range(columns.shape[1]):
        assert found[j] == spearman(columns[:, j], y)  # the very same numbers, not approximately
    assert found[1].n == 37 and found[0].n == 38
    assert found[3][:2] == (None, None)
    assert found[4][:2] == (1.0, 0.0)
    assert found[0].rho == pytest.approx(stats.spearmanr(columns[:, 0], y, nan_policy="omit").statistic)
    assert spearman_columns(columns[:2], y[:2]) == [(None, None, 2)] * 5


def test_average_ranks_are_scipys_rankdata_with_ties():
    rng = np.random.default_rng(11)
    a = rng.integers(0, 5, size=(60, 4)).astype(float)  # many ties in every column
    a[:, 3] = 2.0  # one constant column: every rank the mean
    assert np.array_equal(average_ranks(a), stats.rankdata(a, axis=0))
    assert np.array_equal(average_ranks(np.array([[3.0], [1.0], [3.0], [2.0]])), [[3.5], [1.0], [3.5], [2.0]])


def test_adjust_bh_agrees_with_scipy_on_ties_and_large_families():
    rng = np.random.default_rng(5)
    p = np.round(rng.uniform(size=300) ** 3, 3).tolist()  # ties and near-zero values
    assert adjust_bh(p) == pytest.approx(list(stats.false_discovery_control(p)), abs=1e-15)


def test_students_t_p_values_are_scipys_over_many_degrees_of_freedom_and_sizes():
    # Within 1e-9 (relative): log-gamma differences of large arguments lose the tenth digit past 10^5.
    from scipy import special

    for df in (1, 2, 3, 5, 10, 28, 100, 457, 1000, 12184, 250_000):
        for t in (0.0, 1e-6, 0.05, 0.5, 1.0, 1.96, 2.5, 4.0, 8.0, 20.0, 60.0, -3.0):
            expected = float(2 * special.stdtr(df, -abs(t)))
            assert t_two_sided(t, df) == pytest.approx(expected, rel=1e-9, abs=1e-300), (df, t)
