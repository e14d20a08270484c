"""Tests of annotation.analysis.scales (pure: no database) against its peers: pingouin.intraclass_corr for the ICCs
and their F-based intervals, sklearn.metrics.cohen_kappa_score for the weighted kappas."""

from __future__ import annotations

import csv
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pingouin
import pytest
from sklearn.metrics import cohen_kappa_score

from annotation.analysis import scales

# Six items rated by four raters; the fourth rates about 1.5 points higher than the others (a rater bias).
BIASED = np.array(
    [
        [4, 2, 5, 5],
        [1, 0, 3, 3],
        [5, 3, 5, 5],
        [2, 1, 4, 4],
        [3, 2, 5, 4],
        [0, 0, 2, 2],
    ],
    dtype=float,
)


def long(matrix: np.ndarray, question: str = "compound_score") -> pd.DataFrame:
    """An items × raters matrix (NaN: not rated) as the long ratings frame, labels as the app writes them."""
    i, j = np.nonzero(~np.isnan(matrix))
    return pd.DataFrame({"item": i * 10, "annotator": [f"w{x}" for x in j], question: matrix[i, j]})


def peer(ratings: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> pd.DataFrame:
    """pingouin's ICC table indexed by type, with the intervals unrounded (it rounds them to 2 decimals)."""
    monkeypatch.setitem(pingouin.options, "round.column.CI95", None)
    with warnings.catch_warnings():
        # pingouin 0.7 calls DataFrame.dropna(inplace=True), which pandas 3.1 deprecates: its business, not ours.
        warnings.filterwarnings("ignore", message="The inplace keyword", category=Warning)
        table = pingouin.intraclass_corr(ratings, targets="item", raters="annotator", ratings="compound_score")
    return table.set_index("Type")


def assert_matches_pingouin(ratings: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> dict[str, scales.ICCResult]:
    ours = scales.icc2(ratings)
    theirs = peer(ratings, monkeypatch)
    # pingouin 0.7 names ICC2 and ICC2k after McGraw & Wong: ICC(A,1) and ICC(A,k).
    for measure, row in (("icc2_1", "ICC(A,1)"), ("icc2_k", "ICC(A,k)")):
        low, high = theirs.loc[row, "CI95"]
        assert ours[measure].value == pytest.approx(theirs.loc[row, "ICC"], abs=1e-12)
        assert (ours[measure].low, ours[measure].high) == pytest.approx((low, high), abs=1e-12)
        assert "F-based" in ours[measure].note
    return ours


def mean_squares(matrix: np.ndarray) -> tuple[float, float, float]:
    """MSR, MSC and MSE of the two-way ANOVA without interaction, written out for the check."""
    n, k = matrix.shape
    grand = matrix.mean()
    msr = k * ((matrix.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    msc = n * ((matrix.mean(axis=0) - grand) ** 2).sum() / (k - 1)
    residual = matrix - matrix.mean(axis=1, keepdims=True) - matrix.mean(axis=0, keepdims=True) + grand
    return msr, msc, (residual**2).sum() / ((n - 1) * (k - 1))


def test_hand_made_matrix_equals_pingouin_and_the_mean_square_formulas(monkeypatch: pytest.MonkeyPatch) -> None:
    ours = assert_matches_pingouin(long(BIASED), monkeypatch)
    msr, msc, mse = mean_squares(BIASED)
    n, k = BIASED.shape
    assert ours["icc2_1"].value == pytest.approx((msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n))
    assert ours["icc2_k"].value == pytest.approx((msr - mse) / (msr + (msc - mse) / n))
    components = scales.variance_components(long(BIASED))
    assert (components.items, components.raters, components.error) == pytest.approx(
        ((msr - mse) / k, (msc - mse) / n, mse)
    )
    assert components.complete and components.k == k
    # Absolute agreement counts the rater bias against the raters; consistency, ICC(3,1), does not.
    consistency = peer(long(BIASED), monkeypatch).loc["ICC(C,1)", "ICC"]
    assert consistency - ours["icc2_1"].value > 0.1


def nctti_block(shared_data: Path, seed: int = 7) -> np.ndarray:
    """40 compounds' published means (NCTTI CompType) rated by 5 simulated raters with a bias and noise each."""
    with (shared_data / "nctti" / "data_en.tsv").open(encoding="utf-8") as f:
        means = [float(row["CompType"]) for row in csv.DictReader(f, delimiter="\t") if row["CompType"].strip()]
    truth = np.array(means[:40])
    rng = np.random.default_rng(seed)
    bias = rng.normal(0, 0.5, 5)
    return np.clip(np.rint(truth[:, None] + bias[None, :] + rng.normal(0, 0.8, (40, 5))), 0, 5)


def test_public_shaped_block_equals_pingouin(shared_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    block = nctti_block(shared_data)
    ours = assert_matches_pingouin(long(block), monkeypatch)
    assert 0.5 < ours["icc2_1"].value < ours["icc2_k"].value < 1
    assert ours["icc2_1"].low < ours["icc2_1"].value < ours["icc2_1"].high
    assert (ours["icc2_1"].n_items, ours["icc2_1"].n_annotators) == (40, 5)


def test_sparse_estimate_is_close_to_the_complete_one_and_its_bootstrap_is_seeded(shared_data: Path) -> None:
    block = nctti_block(shared_data)
    complete = scales.icc2(long(block))
    holes = block.copy()
    holes[np.random.default_rng(3).random(block.shape) < 0.25] = np.nan
    ratings = long(holes)
    first = scales.icc2(ratings, n_resamples=400, seed=5)
    for measure in ("icc2_1", "icc2_k"):
        assert first[measure].value == pytest.approx(complete[measure].value, abs=0.06)
        assert first[measure].value != pytest.approx(complete[measure].value, abs=1e-6)
        assert first[measure].low < first[measure].value < first[measure].high
        assert "bootstrap" in first[measure].note and "harmonic mean" in first[measure].note
    assert scales.icc2(ratings, n_resamples=400, seed=5) == first
    assert scales.icc2(ratings, n_resamples=400, seed=6)["icc2_1"].low != first["icc2_1"].low
    unbootstrapped = scales.icc2(ratings, n_resamples=0)["icc2_1"]
    assert math.isnan(unbootstrapped.low) and "not bootstrapped" in unbootstrapped.note


def henderson_by_traces(matrix: np.ndarray) -> np.ndarray:
    """Henderson's Method 1 written from its definition, densely: E(y'Ay) = sum of tr(A Z Z') sigma^2 + tr(A) sigma_e^2
    for the forms A = P_items - J, P_raters - J and I - J (P: projection on the item or rater indicators)."""
    i, j = np.nonzero(~np.isnan(matrix))
    y = matrix[i, j]
    z_items, z_raters = np.eye(matrix.shape[0])[i], np.eye(matrix.shape[1])[j]
    project = [z @ np.linalg.pinv(z.T @ z) @ z.T for z in (z_items, z_raters)]
    centre = np.full((y.size, y.size), 1 / y.size)
    forms = [project[0] - centre, project[1] - centre, np.eye(y.size) - centre]
    coefficients = [[np.trace(a @ z @ z.T) for z in (z_items, z_raters)] + [np.trace(a)] for a in forms]
    return np.linalg.solve(np.array(coefficients), np.array([y @ a @ y for a in forms]))


def test_sparse_estimate_equals_method_1_from_its_definition_and_k_is_the_harmonic_mean() -> None:
    rng = np.random.default_rng(8)
    matrix = np.clip(np.rint(rng.uniform(0, 5, 15)[:, None] + rng.normal(0, 1, (15, 6)) + np.arange(6) / 3), 0, 5)
    matrix[rng.random(matrix.shape) < 0.45] = np.nan
    c = scales.variance_components(long(matrix))
    expected = henderson_by_traces(matrix)
    assert (expected > 0).all() and not c.complete
    assert (c.items, c.raters, c.error) == pytest.approx(expected, abs=1e-9)
    per_item = (~np.isnan(matrix)).sum(axis=1)
    harmonic = len(per_item) / (1 / per_item).sum()
    assert c.k == pytest.approx(harmonic) and c.k != pytest.approx(per_item.mean())
    average = scales.icc2(long(matrix), n_resamples=0)["icc2_k"]
    assert average.value == pytest.approx(c.items / (c.items + (c.raters + c.error) / harmonic))
    assert f"k = {harmonic:.2f}" in average.note


def test_bootstrap_counts_an_item_drawn_twice_as_two_items() -> None:
    rng = np.random.default_rng(9)
    matrix = np.clip(np.rint(rng.uniform(0, 5, 20)[:, None] + rng.normal(0, 1, (20, 5))), 0, 5)
    matrix[rng.random(matrix.shape) < 0.3] = np.nan
    matrix[:, 0] = np.where(np.isnan(matrix).all(axis=1), 2.0, matrix[:, 0])  # every item keeps a rating
    result = scales.icc2(long(matrix), n_resamples=30, seed=2)["icc2_1"]
    # The same draws (items in label order), each resample written out as a frame whose copies are new items.
    draws = np.random.default_rng(2).integers(0, 20, (30, 20))
    values = [scales.icc2(long(matrix[draw]), n_resamples=0)["icc2_1"].value for draw in draws]
    assert (result.low, result.high) == pytest.approx(tuple(np.percentile(values, [2.5, 97.5])), abs=1e-9)


def test_henderson_recovers_planted_components_on_a_sparse_campaign() -> None:
    rng = np.random.default_rng(11)
    n_items, n_raters = 3000, 300
    item, rater = rng.integers(0, n_items, 40_000), rng.integers(0, n_raters, 40_000)
    ratings = pd.DataFrame({"item": item, "annotator": rater}).drop_duplicates().reset_index(drop=True)
    effects = rng.normal(0, 1.5, n_items)[ratings["item"]] + rng.normal(0, 0.5, n_raters)[ratings["annotator"]]
    ratings["compound_score"] = effects + rng.normal(0, 0.8, len(ratings))
    c = scales.variance_components(ratings)
    assert not c.complete and c.note == ""
    assert (c.items, c.raters, c.error) == pytest.approx((2.25, 0.25, 0.64), rel=0.15)
    # Without the rater term the raters' variance would land in the residual; it must stay apart.
    assert c.raters > 0.15 and c.error < 0.75


def test_negative_rater_variance_is_truncated_at_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every rater has the same mean, so MSC = 0 < MSE: the rater variance estimate is negative, taken as 0.
    matrix = np.array([[1, 2, 3], [2, 3, 1], [3, 1, 2], [4, 5, 4], [5, 4, 5]], dtype=float)
    ours = scales.icc2(long(matrix))
    theirs = peer(long(matrix), monkeypatch)
    assert scales.variance_components(long(matrix)).raters == 0
    assert ours["icc2_1"].value == pytest.approx(theirs.loc["ICC(C,1)", "ICC"])
    assert ours["icc2_1"].value != pytest.approx(theirs.loc["ICC(A,1)", "ICC"])


@pytest.mark.parametrize(
    ("ratings", "note"),
    [
        (long(BIASED[:, :1]), "one annotator"),
        (long(np.full((6, 4), 3.0)), "no variation"),
        (long(BIASED[:1]), "fewer than 2 items"),
        (long(np.diag([1.0, 2.0, 3.0]) + np.where(np.eye(3), 0, np.nan)), "no item has two ratings"),
        (long(np.full((3, 3), np.nan)), "no ratings"),
    ],
)
def test_undefined_icc_is_nan_with_a_note(ratings: pd.DataFrame, note: str) -> None:
    for result in scales.icc2(ratings).values():
        assert math.isnan(result.value) and math.isnan(result.low) and note in result.note
    rows = scales.scale_agreement(ratings, questions=["compound_score"], n_resamples=10)
    assert [r["measure"] for r in rows] == ["icc2_1", "icc2_k", "kappa_quadratic"]
    assert all(math.isnan(r["value"]) and r["note"] for r in rows)


def two_annotators(a: list[float], b: list[float]) -> pd.DataFrame:
    n = len(a)
    return pd.DataFrame({"item": list(range(n)) * 2, "annotator": ["a"] * n + ["b"] * n, "compound_score": a + b})


def test_kappa_of_a_hand_made_pair_equals_sklearn_with_the_six_categories() -> None:
    # Nobody used category 2: with labels fixed it still stands between 1 and 3.
    a = [0, 1, 1, 3, 4, 5, 5, 3, 1, 0, 4, 4]
    b = [1, 1, 3, 3, 5, 4, 5, 4, 0, 0, 3, 5]
    ratings = two_annotators(a, b)
    for weights in ("quadratic", "linear"):
        pairs = scales.pairwise_kappa(ratings, weights=weights)
        expected = cohen_kappa_score(a, b, weights=weights, labels=range(6))
        assert pairs.to_dict("records") == [
            {"annotator_a": "a", "annotator_b": "b", "n_shared": 12, "kappa": pytest.approx(expected, abs=1e-12)}
        ]
        assert pairs["kappa"][0] != pytest.approx(cohen_kappa_score(a, b, weights=weights), abs=1e-3)
    quadratic, linear = (scales.pairwise_kappa(ratings, weights=w)["kappa"][0] for w in ("quadratic", "linear"))
    assert quadratic != pytest.approx(linear)


def test_kappa_per_pair_equals_sklearn_on_a_seeded_campaign() -> None:
    rng = np.random.default_rng(4)
    truth = rng.uniform(0, 5, 60)
    matrix = np.clip(np.rint(truth[:, None] + rng.normal(0, 1, (60, 6))), 0, 5)
    matrix[rng.random(matrix.shape) < 0.4] = np.nan
    matrix[:, 5] = np.where(np.arange(60) < 8, matrix[:, 5], np.nan)  # w5 shares at most 8 items with anyone
    pairs = scales.pairwise_kappa(long(matrix), min_shared=10)
    assert len(pairs) == 10 and "w5" not in set(pairs["annotator_a"]) | set(pairs["annotator_b"])
    for row in pairs.itertuples():
        x, y = matrix[:, int(row.annotator_a[1:])], matrix[:, int(row.annotator_b[1:])]
        shared = ~np.isnan(x) & ~np.isnan(y)
        assert row.n_shared == shared.sum() >= 10
        expected = cohen_kappa_score(x[shared], y[shared], weights="quadratic", labels=range(6))
        assert row.kappa == pytest.approx(expected, abs=1e-12)
    summary = scales.kappa_summary(pairs["n_shared"], pairs["kappa"])
    assert summary["n_pairs"] == 10 and summary["median"] == pytest.approx(pairs["kappa"].median())
    assert (summary["min"], summary["max"]) == (pairs["kappa"].min(), pairs["kappa"].max())
    weighted = (pairs["kappa"] * pairs["n_shared"]).sum() / pairs["n_shared"].sum()
    assert summary["weighted_mean"] == pytest.approx(weighted)


def test_kappa_undefined_when_a_pair_used_one_category() -> None:
    pairs = scales.pairwise_kappa(two_annotators([3.0] * 10, [3.0] * 10))
    assert len(pairs) == 1 and math.isnan(pairs["kappa"][0])
    row = scales.scale_agreement(two_annotators([3.0] * 10, [3.0] * 10), ["compound_score"])[2]
    assert math.isnan(row["value"]) and "undefined without variation" in row["note"]


def test_scale_agreement_rows_and_measures(shared_data: Path) -> None:
    block = nctti_block(shared_data)
    ratings = long(block).assign(head_score=lambda f: f["compound_score"], modifier_score=lambda f: 5 - f["item"] % 6)
    rows = scales.scale_agreement(ratings, n_resamples=50, min_shared=10)
    assert [(r["question"], r["measure"]) for r in rows] == [
        (q, m) for q in scales.QUESTIONS for m in ("icc2_1", "icc2_k", "kappa_quadratic")
    ]
    assert all(set(r) == set(scales.ROW) for r in rows)
    kappa = rows[2]
    assert kappa["n_annotators"] == 5 and kappa["n_items"] == 40 and "median of 10 annotator pairs" in kappa["note"]
    assert kappa["low"] <= kappa["value"] <= kappa["high"]
    assert {"icc2_1", "icc2_k", "kappa_quadratic", "alpha_interval", "alpha_ordinal", "spearman_loo"} <= set(
        scales.MEASURES
    )
    assert all(len(entry) == 3 and all(entry) for entry in scales.MEASURES.values())


def test_importing_the_module_leaves_pandas_and_scipy_unloaded() -> None:
    code = "import sys, annotation.analysis.scales; print(sorted({'pandas', 'scipy', 'matplotlib'} & set(sys.modules)))"
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
