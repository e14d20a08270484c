"""Tests of annotation.analysis.agreement (pure: no database)."""

from __future__ import annotations

import itertools

import krippendorff
import numpy as np
import pandas as pd
import pytest

from annotation.analysis import agreement

NAN = np.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers × 12 units, missing data.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def to_ratings(matrix, question: str = "compound_score") -> pd.DataFrame:
    """Long ratings from an annotators × items matrix (NaN cells left out)."""
    rows = [
        {"item": j, "annotator": f"a{i}", "compound": j // 3, question: value}
        for i, row in enumerate(np.asarray(matrix, dtype=float))
        for j, value in enumerate(row)
        if not np.isnan(value)
    ]
    return pd.DataFrame(rows)


def random_matrix(rng: np.random.Generator, annotators: int, items: int, missing: float) -> np.ndarray:
    """Uniform 0-5 ratings with a share of missing cells."""
    matrix = rng.integers(0, 6, size=(annotators, items)).astype(float)
    matrix[rng.random(matrix.shape) < missing] = np.nan
    return matrix


@pytest.mark.parametrize(("level", "expected"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_2011_worked_example(level: str, expected: float) -> None:
    ratings = to_ratings(KRIPPENDORFF_2011)
    assert round(agreement.alpha(ratings, "compound_score", level), 3) == expected
    o = agreement.item_coincidences(agreement.value_counts(np.array(KRIPPENDORFF_2011))).sum(axis=0)
    assert round(agreement.alpha_from_coincidences(o, level), 3) == expected


def test_reliability_matrix_layout() -> None:
    ratings = pd.DataFrame(
        {"item": ["s1", "s2", "s1"], "annotator": ["x", "x", "y"], "compound": ["c", "c", "c"], "q": [1, 2, 3]}
    )
    matrix = agreement.reliability_matrix(ratings, "q")
    np.testing.assert_array_equal(matrix, [[1, 2], [3, NAN]])


def test_duplicate_ratings_are_rejected() -> None:
    ratings = pd.DataFrame({"item": [1, 1], "annotator": ["x", "x"], "compound": [1, 1], "q": [1, 2]})
    with pytest.raises(ValueError, match="more than once"):
        agreement.reliability_matrix(ratings, "q")


@pytest.mark.parametrize("level", agreement.LEVELS)
@pytest.mark.parametrize("seed", range(5))
def test_vectorised_alpha_equals_krippendorff_package(level: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    matrix = random_matrix(rng, annotators=int(rng.integers(2, 12)), items=int(rng.integers(5, 80)), missing=0.4)
    # Some correlated signal so alpha is not just noise around 0.
    matrix = np.where(np.isnan(matrix), NAN, np.clip(np.rint((matrix + rng.integers(0, 6, matrix.shape[1])) / 2), 0, 5))
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement=level, value_domain=list(range(6)))
    o = agreement.item_coincidences(agreement.value_counts(matrix)).sum(axis=0)
    assert agreement.alpha_from_coincidences(o, level) == pytest.approx(expected, abs=1e-9)
    assert agreement.alpha(to_ratings(matrix), "compound_score", level) == pytest.approx(expected, abs=1e-12)


def test_vectorised_alpha_batches_over_leading_axes() -> None:
    rng = np.random.default_rng(7)
    matrices = [random_matrix(rng, 5, 30, 0.3) for _ in range(4)]
    o = np.stack([agreement.item_coincidences(agreement.value_counts(m)).sum(axis=0) for m in matrices])
    for level in agreement.LEVELS:
        batch = agreement.alpha_from_coincidences(o, level)
        singles = [agreement.alpha_from_coincidences(x, level) for x in o]
        np.testing.assert_allclose(batch, singles, atol=1e-12)


@pytest.mark.parametrize("level", agreement.LEVELS)
def test_perfect_agreement_is_one(level: str) -> None:
    truth = np.tile(np.arange(6.0), 5)
    matrix = np.vstack([truth] * 4)
    matrix[1, ::4] = NAN
    assert agreement.alpha(to_ratings(matrix), "compound_score", level) == pytest.approx(1.0)


def test_undefined_alpha_is_nan() -> None:
    assert np.isnan(agreement.alpha(to_ratings([[2, 2, 2], [2, 2, 2]]), "compound_score"))
    assert np.isnan(agreement.alpha(to_ratings([[1, NAN], [NAN, 2]]), "compound_score"))


@pytest.mark.parametrize("level", agreement.LEVELS)
def test_uniform_random_ratings_have_alpha_near_zero(level: str) -> None:
    ratings = to_ratings(random_matrix(np.random.default_rng(1), annotators=20, items=2000, missing=0.5))
    assert abs(agreement.alpha(ratings, "compound_score", level)) < 0.05


def test_bootstrap_contains_point_estimate_and_is_seeded() -> None:
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 6, 300)
    matrix = np.clip(truth + rng.normal(0, 1.2, (8, 300)), 0, 5).round()
    matrix[rng.random(matrix.shape) < 0.5] = NAN
    ratings = to_ratings(matrix)
    first = agreement.bootstrap_alpha(ratings, "compound_score", "interval", n_resamples=500, seed=11)
    again = agreement.bootstrap_alpha(ratings, "compound_score", "interval", n_resamples=500, seed=11)
    other = agreement.bootstrap_alpha(ratings, "compound_score", "interval", n_resamples=500, seed=12)
    assert first == again
    assert (other.low, other.high) != (first.low, first.high)
    assert first.low < first.alpha < first.high
    assert first.alpha == pytest.approx(agreement.alpha(ratings, "compound_score", "interval"))
    assert first.n_resamples == 500 and first.n_annotators == 8
    assert first.n_items == int(((~np.isnan(matrix)).sum(axis=0) >= 2).sum())


def test_bootstrap_without_resamples_has_no_interval() -> None:
    result = agreement.bootstrap_alpha(to_ratings(KRIPPENDORFF_2011), "compound_score", "nominal", n_resamples=0)
    assert round(result.alpha, 3) == 0.743 and np.isnan(result.low) and np.isnan(result.high)
    # Unit 11 (one rating) is not pairable, so it is not counted.
    assert result.n_items == 11


def test_paper_procedure_picks_annotators_with_most_items_in_common() -> None:
    full = np.tile([0.0, 1, 2, 3, 4, 5], 3)  # 18 items
    matrix = np.full((5, 18), NAN)
    matrix[0, :12] = full[:12]  # a0 and a1 share 12 items, a2 joins them on 8
    matrix[1, :14] = full[:14]
    matrix[2, 4:12] = full[4:12]
    matrix[3, 10:18] = (full[10:18] + 1) % 6
    matrix[4, 12:18] = full[12:18]
    ratings = to_ratings(matrix)
    top2 = agreement.paper_procedure(ratings, "compound_score", 2)
    assert (top2.n_items, top2.n_annotators, top2.alpha) == (12, 2, pytest.approx(1.0))
    top3 = agreement.paper_procedure(ratings, "compound_score", 3)
    assert (top3.n_items, top3.n_annotators, top3.alpha) == (8, 3, pytest.approx(1.0))
    with pytest.raises(ValueError):
        agreement.paper_procedure(ratings, "compound_score", 4)


@pytest.mark.parametrize("seed", range(4))
def test_top_k_matches_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    matrix = random_matrix(rng, annotators=9, items=40, missing=0.6)
    rated = ~np.isnan(matrix)
    for k in (2, 3):
        best = max(rated[list(c)].all(axis=0).sum() for c in itertools.combinations(range(9), k))
        rows, count = agreement.top_k_annotators(matrix, k)
        assert count == best == rated[rows].all(axis=0).sum() and len(set(rows)) == k


def test_agreement_table_rows() -> None:
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 6, 60)
    frames = []
    for question in agreement.QUESTIONS:
        matrix = np.clip(truth + rng.normal(0, 1, (6, 60)), 0, 5).round()
        matrix[rng.random(matrix.shape) < 0.3] = NAN
        frames.append(to_ratings(matrix, question).set_index(["item", "annotator", "compound"]))
    ratings = pd.concat(frames, axis=1).reset_index()
    rows = agreement.agreement_table(ratings, n_resamples=50, seed=1)
    assert len(rows) == 3 * 2 * 3
    assert {(r["question"], r["level"], r["procedure"]) for r in rows} == set(
        itertools.product(agreement.QUESTIONS, ("interval", "ordinal"), ("full", "top2", "top3"))
    )
    for row in rows:
        assert set(row) == {
            *("question", "level", "procedure", "alpha", "low", "high", "n_items", "n_annotators", "interval_note")
        }
        # every procedure is bootstrapped, the top-k ones on the items their annotators share
        assert row["low"] <= row["alpha"] <= row["high"] and row["interval_note"] == ""
        if row["procedure"] == "full":
            assert row["n_annotators"] == 6
        else:
            assert row["n_annotators"] == int(row["procedure"][-1])


def test_agreement_table_keeps_its_shape_with_two_annotators() -> None:
    ratings = to_ratings([[1, 2, 3, 4], [1, 2, 3, 5]])
    rows = agreement.agreement_table(ratings, questions=["compound_score"], n_resamples=20)
    assert [(r["level"], r["procedure"]) for r in rows] == [
        (level, procedure) for level in ("interval", "ordinal") for procedure in ("full", "top2", "top3")
    ]
    top3 = [r for r in rows if r["procedure"] == "top3"]
    assert all(np.isnan(r["alpha"]) and r["n_items"] == 0 and r["n_annotators"] == 0 for r in top3)
    assert {r["interval_note"] for r in top3} == {"no item was rated by 3 annotators in common"}


def test_top_k_intervals_are_finite_on_the_benchmark_campaign() -> None:
    """benchmarks/analytics.py printed [nan, nan] for top2 and top3: the top-k alphas were never bootstrapped."""
    from benchmarks.analytics import build_campaign

    rows = agreement.agreement_table(build_campaign(0), questions=["compound_score"], n_resamples=200, seed=0)
    top_k = [r for r in rows if r["procedure"] != "full"]
    assert len(top_k) == 4 and all(r["n_items"] > 0 for r in top_k)
    for row in top_k:
        assert np.isfinite(row["low"]) and np.isfinite(row["high"]), row
        assert row["low"] <= row["alpha"] <= row["high"]
