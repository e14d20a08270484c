"""Agreement by scale type: every measure of a question side by side, named and explained."""

import math

from annotation.analysis import by_scale
from annotation.analysis.scales import MEASURES


def test_the_table_takes_the_all_annotators_alphas_and_every_scale_measure_in_order():
    alphas = [
        {"question": "compound_score", "level": "interval", "procedure": "full", "alpha": 0.61, "low": 0.5,
         "high": 0.7, "n_items": 20, "n_annotators": 5, "interval_note": ""},
        {"question": "compound_score", "level": "interval", "procedure": "top2", "alpha": 0.9, "low": 0.8,
         "high": 0.95, "n_items": 7, "n_annotators": 2, "interval_note": ""},
        {"question": "compound_score", "level": "ordinal", "procedure": "full", "alpha": 0.58, "low": 0.4,
         "high": 0.7, "n_items": 20, "n_annotators": 5, "interval_note": ""},
        {"question": "compound_score", "level": "nominal", "procedure": "full", "alpha": 0.2, "low": 0.1,
         "high": 0.3, "n_items": 20, "n_annotators": 5, "interval_note": ""},
    ]  # fmt: skip
    scales = [
        {"question": "compound_score", "measure": "icc2_1", "value": 0.55, "low": 0.4, "high": 0.7, "n_items": 20,
         "n_annotators": 5, "note": ""},
        {"question": "compound_score", "measure": "kappa_quadratic", "value": math.nan, "low": math.nan,
         "high": math.nan, "n_items": 0, "n_annotators": 0, "note": "no pair shares 10 items"},
    ]  # fmt: skip
    workers = [{"rho": 0.2}, {"rho": 0.8}, {"rho": 0.5}, {"rho": math.nan}]
    rows = by_scale.table(alphas, scales, workers)
    assert [row["measure"] for row in rows] == [
        "alpha_interval", "icc2_1", "alpha_ordinal", "kappa_quadratic", "spearman_loo"
    ]  # fmt: skip
    interval = rows[0]
    assert interval["value"] == 0.61 and interval["scale"] == "interval"  # the full procedure, not the top-2 one
    assert interval["label"] == MEASURES["alpha_interval"][0] and interval["reference"]
    kappa = rows[3]
    assert kappa["value"] is None and kappa["note"] == "no pair shares 10 items"  # NaN becomes None, with the reason
    spearman = rows[4]
    assert (spearman["value"], spearman["low"], spearman["high"], spearman["n_annotators"]) == (0.5, 0.2, 0.8, 3)


def test_no_worker_with_a_rho_says_so():
    row = by_scale.spearman_row("compound_score", [{"rho": None}])
    assert row["value"] is None and row["note"] == "no worker shares 3 items"
