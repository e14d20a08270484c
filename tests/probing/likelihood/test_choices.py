"""probing/likelihood/choices.py: lm-evaluation-harness's multiple-choice metrics, re-derived here with numpy.

The harness (lm_eval/api/task.py, process_results for output type multiple_choice) takes
argmax(lls), argmax(lls / len(choice)), argmax(lls / len(choice.encode())) and
argmax(lls - lls_unconditional); numpy's argmax keeps the first of equal values.
"""

from __future__ import annotations

import numpy as np
import pytest

from probing.likelihood.choices import ScoredItem, argmax, item_metrics, mean_metrics


def harness(item: ScoredItem) -> dict[str, float]:
    lls = np.array(item.loglikelihoods)
    lengths = np.array([float(len(c)) for c in item.choices])
    utf8 = np.array([float(len(c.encode("utf-8"))) for c in item.choices])
    found = {
        "acc": float(np.argmax(lls) == item.gold),
        "acc_norm": float(np.argmax(lls / lengths) == item.gold),
        "acc_bytes": float(np.argmax(lls / utf8) == item.gold),
    }
    if item.unconditional is not None:
        found["acc_mutual_info"] = float(np.argmax(lls - np.array(item.unconditional)) == item.gold)
    return found


# Hand-made items where the metrics disagree: a long right answer loses on raw log-likelihood but wins
# per character; accented Portuguese makes bytes and characters differ; a frequent wrong answer wins
# until its unconditional likelihood is taken away.
ITEMS = [
    ScoredItem(("a late sleeper", "a bird"), (-12.0, -7.0), 0, (-20.0, -6.0)),
    ScoredItem(("a late sleeper", "a bird"), (-6.0, -7.0), 0, (-5.0, -9.0)),
    ScoredItem(("coração", "coracao"), (-7.5, -7.2), 0, (-7.0, -7.0)),
    ScoredItem(("pessoa que se deita tarde", "ave", "tela prateada"), (-30.0, -5.0, -14.0), 1, (-31.0, -2.0, -13.0)),
    ScoredItem(("x", "y"), (-3.0, -3.0), 1, None),
]


@pytest.mark.parametrize("item", ITEMS)
def test_each_metric_is_the_harness_formula(item):
    found = item_metrics(item)
    expected = harness(item)
    assert {k: v for k, v in found.items() if v is not None} == expected


def test_the_metrics_disagree_where_they_should():
    long_right, frequent_wrong, accented = item_metrics(ITEMS[0]), item_metrics(ITEMS[1]), item_metrics(ITEMS[2])
    assert (long_right["acc"], long_right["acc_norm"]) == (0, 1)  # -12/14 > -7/6
    assert long_right["acc_mutual_info"] == 1  # -12+20 > -7+6
    assert (frequent_wrong["acc"], frequent_wrong["acc_mutual_info"]) == (1, 0)  # -6+5 < -7+9
    # 7 characters each, but "coração" is 9 bytes: per byte the right answer wins, per character it does not.
    assert (accented["acc_norm"], accented["acc_bytes"]) == (0, 1)


def test_ties_go_to_the_first_choice_as_numpy_argmax():
    assert argmax([-3.0, -3.0]) == 0 == int(np.argmax([-3.0, -3.0]))
    assert item_metrics(ITEMS[4])["acc"] == 0


def test_means_over_items_and_mutual_information_only_where_scored():
    means = mean_metrics(ITEMS)
    per = [harness(item) for item in ITEMS]
    assert means["acc"] == pytest.approx(np.mean([p["acc"] for p in per]))
    assert means["acc_norm"] == pytest.approx(np.mean([p["acc_norm"] for p in per]))
    assert means["acc_mutual_info"] == pytest.approx(np.mean([p["acc_mutual_info"] for p in per[:4]]))
    assert mean_metrics([]) == dict.fromkeys(["acc", "acc_norm", "acc_bytes", "acc_mutual_info"])


def test_malformed_items_are_refused():
    with pytest.raises(ValueError, match="one log-likelihood per choice"):
        ScoredItem(("a", "b"), (-1.0,), 0)
    with pytest.raises(ValueError, match="gold index 2"):
        ScoredItem(("a", "b"), (-1.0, -2.0), 2)
    with pytest.raises(ValueError, match="unconditional"):
        ScoredItem(("a", "b"), (-1.0, -2.0), 0, (-1.0,))
