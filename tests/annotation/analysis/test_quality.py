"""Tests of annotation.analysis.quality (pure: no database): speeders, straight-liners, attention, agreement."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotation.analysis import quality
from annotation.analysis.quality import Signals, Thresholds
from annotation.analysis.reliability import FilterPolicy, annotator_reliability


def crowd(n_items: int = 69, seed: int = 0) -> pd.DataFrame:
    """Eight careful workers near a latent truth; "speeder" answers at random in 0.2 s; "liner" always 5/5/5."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 5, n_items)
    rows = []
    for worker in [f"careful{i}" for i in range(8)] + ["speeder", "liner"]:
        for item in range(n_items):
            if worker == "speeder":
                answers, seconds = rng.integers(0, 6, 3), rng.uniform(0.1, 0.3)
            elif worker == "liner":
                answers, seconds = np.array([5, 5, 5]), rng.uniform(8, 12)
            else:
                answers = np.clip(np.rint(truth[item] + rng.normal([0.6, 0.4, 0], 0.6)), 0, 5)
                seconds = rng.uniform(12, 40)
            head, modifier, compound = (float(a) for a in answers)
            rows.append(
                {
                    "item": item,
                    "annotator": worker,
                    "head_score": head,
                    "modifier_score": modifier,
                    "compound_score": compound,
                    "seconds": seconds,
                }
            )
    return pd.DataFrame(rows)


def attention(failures: dict[str, int], checks: int = 3) -> pd.DataFrame:
    return pd.DataFrame(
        [{"annotator": w, "correct": i >= n} for w, n in failures.items() for i in range(checks)],
        columns=["annotator", "correct"],
    )


DEFAULTS = Thresholds()


def flag_names(signals: Signals, thresholds: Thresholds = DEFAULTS) -> list[str]:
    return [flag.name for flag in quality.flags(signals, thresholds)]


def test_a_speeder_and_a_straight_liner_are_flagged_and_careful_workers_are_not():
    signals = quality.worker_signals(crowd(), attention({"careful0": 0, "speeder": 0, "liner": 0}))

    assert signals["speeder"].median_seconds == pytest.approx(0.2, abs=0.05)
    assert flag_names(signals["speeder"]) == [quality.SPEEDER, quality.LOW_AGREEMENT]
    assert signals["speeder"].rho < 0.2

    assert signals["liner"].same_answer_share == 1.0 and signals["liner"].modal_answers == (5, 5, 5)
    assert flag_names(signals["liner"]) == [quality.STRAIGHT_LINING]
    # A constant worker has no rank correlation: not judged on agreement, straight-lining says it all.
    assert signals["liner"].rho is None

    for worker in (f"careful{i}" for i in range(8)):
        assert flag_names(signals[worker]) == [], worker
        assert signals[worker].median_seconds > 12 and signals[worker].same_answer_share < 0.5


def test_reasons_give_the_numbers():
    signals = quality.worker_signals(crowd())
    [speeder, _] = quality.flags(signals["speeder"], Thresholds())
    assert speeder.reason.startswith("median 0.") and speeder.reason.endswith("s per item < 3 s")
    [liner] = quality.flags(signals["liner"], Thresholds())
    assert liner.reason == "69 of 69 items answered 5/5/5 (100% ≥ 80%)"
    assert str(liner) == f"straight-lining ({liner.reason})"


def test_same_answers_takes_the_most_common_triple_and_breaks_ties_by_value():
    frame = pd.DataFrame(
        [(1, 2, 3), (1, 2, 3), (5, 5, 5), (5, 5, 5), (0, 0, 1)],
        columns=["head_score", "modifier_score", "compound_score"],
    )
    assert quality.same_answers(frame) == (0.4, (1, 2, 3))
    assert quality.same_answers(frame.iloc[0:0]) == (None, None)


def test_patterns_are_not_judged_on_a_handful_of_items_but_speed_is():
    few = crowd(n_items=6)
    signals = quality.worker_signals(few)
    assert flag_names(signals["liner"]) == []
    assert flag_names(signals["speeder"]) == [quality.SPEEDER]
    assert flag_names(signals["liner"], Thresholds(min_items=5)) == [quality.STRAIGHT_LINING]


def test_attention_checks_failed_more_than_allowed():
    signals = quality.worker_signals(crowd(n_items=12), attention({"careful0": 1, "careful1": 2, "liner": 3}))
    assert (signals["careful0"].attention_checks, signals["careful0"].attention_failures) == (3, 1)
    assert flag_names(signals["careful0"]) == []
    assert flag_names(signals["careful1"]) == [quality.ATTENTION_FAILED]
    [flag] = quality.flags(signals["careful1"], Thresholds())
    assert flag.reason == "2 of 3 failed (more than 1)"
    assert flag_names(signals["careful0"], Thresholds(max_attention_failures=0)) == [quality.ATTENTION_FAILED]


def test_a_worker_with_only_attention_checks_gets_signals():
    signals = quality.worker_signals(crowd(n_items=0).iloc[0:0], attention({"late": 3}))
    assert signals["late"] == Signals("late", attention_checks=3, attention_failures=3)


def test_none_turns_a_signal_off():
    signals = quality.worker_signals(crowd(), attention({"speeder": 3}))
    off = Thresholds(min_median_seconds=None, max_same_answer_share=None, max_attention_failures=None, min_rho=None)
    assert flag_names(signals["speeder"], off) == [] and flag_names(signals["liner"], off) == []
    assert flag_names(signals["speeder"], Thresholds(min_rho=None, max_attention_failures=None)) == [quality.SPEEDER]


def test_a_policy_that_excludes_flagged_workers_removes_them_with_the_reason():
    ratings = crowd()
    reliability = annotator_reliability(ratings)
    flagged = {
        worker: "; ".join(str(f) for f in quality.flags(s, Thresholds()))
        for worker, s in quality.worker_signals(ratings).items()
        if quality.flags(s, Thresholds())
    }
    assert set(flagged) == {"speeder", "liner"}

    kept, removed = FilterPolicy("exclude flagged", min_rho=None, exclude_flagged=True).apply(reliability, {}, flagged)
    assert set(kept) == {f"careful{i}" for i in range(8)}
    reasons = {r["annotator"]: r["reason"] for r in removed}
    assert reasons["liner"] == "flagged: straight-lining (69 of 69 items answered 5/5/5 (100% ≥ 80%))"
    assert reasons["speeder"].startswith("flagged: speeder (median 0.")

    # Without the option, flags change nothing; with it, the caller must say who is flagged.
    kept, _ = FilterPolicy("none", min_rho=None).apply(reliability, {}, flagged)
    assert len(kept) == 10
    with pytest.raises(ValueError, match="needs the flagged annotators"):
        FilterPolicy("exclude flagged", min_rho=None, exclude_flagged=True).apply(reliability, {})


@pytest.mark.parametrize("seed", range(4))
def test_grouped_signals_equal_each_annotators_own_figures(seed: int) -> None:
    """worker_signals computes every annotator at once: the same as median_seconds and same_answers on their rows."""
    rng = np.random.default_rng(seed)
    n = 400
    ratings = pd.DataFrame(
        {
            "annotator": rng.choice([f"w{i}" for i in range(25)], n),
            "item": rng.integers(0, 60, n),
            **{answer: rng.integers(0, 3, n).astype(float) for answer in quality.ANSWERS},
            "seconds": np.where(rng.random(n) < 0.2, np.nan, rng.exponential(5, n)),
        }
    ).drop_duplicates(["annotator", "item"])
    ratings.loc[rng.random(len(ratings)) < 0.1, "head_score"] = np.nan  # incomplete triples do not count
    ratings.loc[ratings["annotator"] == "w3", "seconds"] = np.nan  # no known time at all
    ratings.loc[ratings["annotator"] == "w4", "compound_score"] = np.nan  # no complete triple at all
    signals = quality.worker_signals(ratings)
    assert list(signals) == list(pd.unique(ratings["annotator"]))
    for annotator, own in ratings.groupby("annotator"):
        share, modal = quality.same_answers(own)
        got = signals[annotator]
        assert (got.same_answer_share, got.modal_answers) == (share, modal)
        assert got.median_seconds == quality.median_seconds(own["seconds"])
        assert got.n_items == own["item"].nunique()
