"""Tests of annotation.analysis.machine on a hand-made campaign whose answers are known (pure: no database)."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from annotation.analysis import agreement
from annotation.analysis.machine import machine_comparison, machine_comparisons, paraphrase_overlap
from datasets.vocabulary import COMPOSITIONAL, IDIOMATIC, PARTLY

ITEMS = ["s1", "s2", "s3", "s4", "s5", "s6"]
COMPOUND_OF = {"s1": "c1", "s2": "c1", "s3": "c2", "s4": "c2", "s5": "c3", "s6": "c3"}
# Four workers; each item's mean is 0.5, 1, 2, 2.5, 3.5, 4.5 and every worker ties somewhere, so none ranks
# the items exactly as the others' mean does.
WORKERS = {
    1: [0, 0, 2, 2, 3, 5],
    2: [0, 1, 2, 3, 4, 4],
    3: [1, 1, 1, 2, 3, 5],
    4: [1, 2, 3, 3, 4, 4],
}
MEANS = [0.5, 1.0, 2.0, 2.5, 3.5, 4.5]
CLASSES = {"c1": IDIOMATIC, "c2": IDIOMATIC, "c3": COMPOSITIONAL}


def campaign(compound_of: dict[str, str] = COMPOUND_OF) -> pd.DataFrame:
    """The workers' ratings: head as the compound, modifier its mirror (5 - compound)."""
    rows = [
        {
            "item": item,
            "annotator": worker,
            "compound": compound_of[item],
            "compound_score": float(score),
            "head_score": float(score),
            "modifier_score": 5.0 - score,
        }
        for worker, scores in WORKERS.items()
        for item, score in zip(ITEMS, scores, strict=True)
    ]
    return pd.DataFrame(rows)


def model(scores: list[float], items: list[str] = ITEMS, compound_of: dict[str, str] = COMPOUND_OF) -> pd.DataFrame:
    """A machine annotator answering ``items`` with ``scores`` (head the same, modifier mirrored)."""
    return pd.DataFrame(
        {
            "item": items,
            "annotator": "llm",
            "compound": [compound_of.get(item, "c9") for item in items],
            "compound_score": scores,
            "head_score": scores,
            "modifier_score": [5.0 - s for s in scores],
        }
    )


CONSENSUS = [0, 1, 2, 3, 4, 5]  # the human means' rank order
REVERSED = [5, 4, 3, 2, 1, 0]
OFFSET = [m + 0.5 for m in MEANS]  # every item half a point above the humans


def compare(scores: list[float], **kwargs) -> dict:
    return machine_comparison(campaign(), model(scores), CLASSES, **kwargs)


def test_consensus_model_correlates_perfectly_with_known_errors() -> None:
    result = compare(CONSENSUS)
    assert (result["level"], result["items_answered"], result["items_compared"]) == ("token", 6, 6)
    compound = result["scores"]["compound"]
    assert compound["spearman_item"] == {"rho": 1.0, "p": 0.0, "n": 6}
    assert compound["spearman_compound"] == {"rho": 1.0, "p": 0.0, "n": 3}
    # Items: |0-0.5| + 0 + 0 + |3-2.5| + |4-3.5| + |5-4.5| = 2 over 6; compounds 0.5/2.5/4.5 vs 0.75/2.25/4.
    assert compound["mae_item"] == pytest.approx(1 / 3)
    assert compound["bias"] == pytest.approx(1 / 6)
    assert compound["mae_compound"] == pytest.approx((0.25 + 0.25 + 0.5) / 3)
    assert (compound["n_items"], compound["n_compounds"]) == (6, 3)
    # The modifier is mirrored on both sides: the ranks still agree.
    assert result["scores"]["modifier"]["spearman_item"]["rho"] == 1.0
    assert result["scores"]["modifier"]["bias"] == pytest.approx(-1 / 6)


def test_reversed_model_correlates_minus_one() -> None:
    scores = compare(REVERSED)["scores"]
    assert scores["compound"]["spearman_item"]["rho"] == -1.0
    assert scores["compound"]["spearman_compound"]["rho"] == -1.0
    assert scores["head"]["spearman_item"]["rho"] == -1.0
    # |5-0.5| + |4-1| + |3-2| + |2-2.5| + |1-3.5| + |0-4.5| = 16 over 6.
    assert scores["compound"]["mae_item"] == pytest.approx(16 / 6)
    assert scores["compound"]["bias"] == pytest.approx((15 - 14) / 6)


def test_constant_offset_has_exact_error_and_bias() -> None:
    compound = compare(OFFSET)["scores"]["compound"]
    assert compound["spearman_item"]["rho"] == 1.0
    assert compound["mae_item"] == pytest.approx(0.5)
    assert compound["mae_compound"] == pytest.approx(0.5)
    assert compound["bias"] == pytest.approx(0.5)
    below = compare([m - 0.5 for m in MEANS])["scores"]["compound"]
    assert below["bias"] == pytest.approx(-0.5) and below["mae_item"] == pytest.approx(0.5)


def test_only_items_both_rated_are_compared() -> None:
    # The model skips s6 and answers s9, which no human rated.
    machine = model([0, 1, 2, 3, 4, 2], items=["s1", "s2", "s3", "s4", "s5", "s9"])
    result = machine_comparison(campaign(), machine, CLASSES)
    assert (result["items_answered"], result["items_compared"]) == (6, 5)
    compound = result["scores"]["compound"]
    assert compound["spearman_item"]["n"] == 5 and compound["spearman_item"]["rho"] == 1.0
    # c3 is s5 alone on both sides: 4 vs 3.5.
    assert compound["mae_compound"] == pytest.approx((0.25 + 0.25 + 0.5) / 3)


def test_missing_answer_to_one_question_drops_only_that_question() -> None:
    machine = model(CONSENSUS)
    machine.loc[0, "head_score"] = np.nan
    scores = machine_comparison(campaign(), machine, CLASSES)["scores"]
    assert scores["head"]["n_items"] == 5 and scores["compound"]["n_items"] == 6


def matrix_with(machine: pd.DataFrame) -> np.ndarray:
    """Annotators × items (items sorted), the humans then the model, NaN where one did not rate."""
    humans = agreement.reliability_matrix(campaign(), "compound_score")
    row = machine.set_index("item")["compound_score"].reindex(ITEMS).to_numpy(dtype=float)
    return np.vstack([humans, row])


@pytest.mark.parametrize("scores", [CONSENSUS, REVERSED, OFFSET])
def test_alpha_with_the_model_matches_krippendorff(scores: list[float]) -> None:
    machine = model(scores)
    alphas = machine_comparison(campaign(), machine, CLASSES)["alpha"]["compound"]
    humans = krippendorff.alpha(
        reliability_data=agreement.reliability_matrix(campaign(), "compound_score"), level_of_measurement="interval"
    )
    both = krippendorff.alpha(reliability_data=matrix_with(machine), level_of_measurement="interval")
    assert alphas["humans"] == pytest.approx(humans, abs=1e-9)
    assert alphas["with_machine"] == pytest.approx(both, abs=1e-9)
    assert alphas["change"] == pytest.approx(both - humans, abs=1e-9)


def test_a_contrarian_lowers_alpha_and_a_consensus_model_raises_it() -> None:
    contrarian = compare(REVERSED)["alpha"]["compound"]
    consensus = compare(MEANS)["alpha"]["compound"]
    assert contrarian["with_machine"] < contrarian["humans"] < consensus["with_machine"]


def rho_against_others(ratings: pd.DataFrame, annotator: object) -> float:
    """Spearman of one annotator's compound scores against the mean of everyone else's, by scipy."""
    wide = ratings.pivot(index="item", columns="annotator", values="compound_score")
    return stats.spearmanr(wide[annotator], wide.drop(columns=annotator).mean(axis=1)).statistic


def test_consensus_model_ranks_top_of_reliability_and_contrarian_bottom() -> None:
    top = compare(CONSENSUS)["reliability"]["compound"]
    bottom = compare(REVERSED)["reliability"]["compound"]
    assert top["rho"] == pytest.approx(1.0) and top["percentile"] == 100.0
    assert bottom["rho"] == pytest.approx(-1.0) and bottom["percentile"] == 0.0
    assert top["n_humans"] == bottom["n_humans"] == 4 and top["n_shared"] == 6
    assert not top["scores_rounded"]
    # The workers' rhos are computed with the model among "the others".
    together = pd.concat([campaign(), model(CONSENSUS).assign(annotator="llm")], ignore_index=True)
    expected = np.median([rho_against_others(together, worker) for worker in WORKERS])
    assert top["human_median_rho"] == pytest.approx(expected)
    assert bottom["human_median_rho"] < top["human_median_rho"]


def test_reliability_rounds_expected_scores_to_the_scale() -> None:
    # Expected values round half up: 0, 1, 3, 2, 4, 5 (truncating would give 0, 0, 2, 2, 3, 4).
    result = compare([0.4, 0.5, 2.5, 2.2, 3.6, 4.9])
    reliability = result["reliability"]["compound"]
    assert reliability["scores_rounded"]
    wide = campaign().pivot(index="item", columns="annotator", values="compound_score")
    expected = stats.spearmanr([0, 1, 3, 2, 4, 5], wide.mean(axis=1)).statistic
    assert reliability["rho"] == pytest.approx(expected)
    # The error against the human means keeps the exact values: 0.1 + 0.5 + 0.5 + 0.3 + 0.1 + 0.4 over 6.
    assert result["scores"]["compound"]["mae_item"] == pytest.approx(1.9 / 6)


def test_by_class_means() -> None:
    by_class = compare(REVERSED)["by_class"]
    assert list(by_class) == [IDIOMATIC, PARTLY, COMPOSITIONAL]
    # Compound means: humans c1 0.75, c2 2.25, c3 4; the reversed model c1 4.5, c2 2.5, c3 0.5.
    assert by_class[IDIOMATIC]["compound"] == {"human": 1.5, "machine": 3.5, "n": 2}
    assert by_class[COMPOSITIONAL]["compound"] == {"human": 4.0, "machine": 0.5, "n": 1}
    assert by_class[PARTLY]["compound"] == {"human": None, "machine": None, "n": 0}
    assert by_class[COMPOSITIONAL]["modifier"] == {"human": 1.0, "machine": 4.5, "n": 1}


def test_by_class_leaves_out_unclassified_and_keeps_other_names() -> None:
    classes = {"c1": None, "c2": "figurative", "c3": COMPOSITIONAL}
    by_class = machine_comparison(campaign(), model(CONSENSUS), classes)["by_class"]
    assert list(by_class) == [IDIOMATIC, PARTLY, COMPOSITIONAL, "figurative"]
    assert by_class["figurative"]["head"] == {"human": 2.25, "machine": 2.5, "n": 1}
    assert by_class[IDIOMATIC]["head"]["n"] == 0


def test_typetoken_at_token_level_with_each_sides_type_scores() -> None:
    report = compare(
        CONSENSUS,
        human_type_scores={"c1": 0, "c2": 3, "c3": 4},
        machine_type_scores={"c1": 5, "c2": 2, "c3": 1},
    )["typetoken"]
    human, machine = report["human"], report["machine"]
    assert human["n_compounds"] == machine["n_compounds"] == 3
    assert human["correlations"]["all"]["rho"] == 1.0
    assert machine["correlations"]["all"]["rho"] == -1.0
    # Sentence scores per compound: the model's (0, 1), (2, 3), (4, 5); the humans' (0.5, 1), (2, 2.5), (3.5, 4.5).
    assert machine["class_means"][IDIOMATIC]["compound"] == {"mean": 1.5, "std": pytest.approx(2**0.5, abs=1e-6)}
    assert human["class_means"][IDIOMATIC]["compound"]["mean"] == 1.5
    assert machine["spread"]["share_std_below_0_6"] == 0.0
    assert human["spread"]["share_std_below_0_6"] == pytest.approx(2 / 3, abs=1e-6)


def test_typetoken_without_type_scores_keeps_spread_and_means() -> None:
    report = compare(CONSENSUS)["typetoken"]["machine"]
    assert report["correlations"]["all"] == {"rho": None, "p": None, "n": 0}
    assert report["class_means"][COMPOSITIONAL]["compound"]["mean"] == 4.5


def test_type_level_compound_figures_equal_item_figures_and_no_typetoken() -> None:
    # At type level each item is a compound.
    compound_of = {item: f"k{item}" for item in ITEMS}
    classes = {f"k{item}": (IDIOMATIC if i < 3 else COMPOSITIONAL) for i, item in enumerate(ITEMS)}
    result = machine_comparison(campaign(compound_of), model(REVERSED, compound_of=compound_of), classes, level="type")
    compound = result["scores"]["compound"]
    assert compound["spearman_compound"] == compound["spearman_item"]
    assert compound["spearman_item"]["rho"] == -1.0 and compound["n_compounds"] == 6
    assert compound["mae_compound"] == pytest.approx(compound["mae_item"])
    assert result["typetoken"] is None
    assert result["by_class"][IDIOMATIC]["compound"] == {"human": pytest.approx(3.5 / 3), "machine": 4.0, "n": 3}


HUMAN_PARAPHRASES = [
    ("s1", "c1", "Parking Area"),
    ("s2", "c1", "a car lot."),
    ("s3", "c2", "D.J."),
    ("s3", "c2", "..."),
]
MACHINE_PARAPHRASES = [
    ("s1", "c1", "parking area!"),  # the same item, after case and punctuation
    ("s1", "c1", "PARKING  AREA"),  # the same text again: counted once
    ("s2", "c1", "Parking area"),  # a human gave it for the compound, not for this sentence
    ("s2", "c1", "car lot"),  # normalise keeps articles: "a car lot" is another text
    ("s3", "c2", "dj"),
    ("s5", "c3", "anything"),  # nobody paraphrased s5 or c3: not comparable
    ("s5", "c3", "?!"),  # empty once normalised
]


def test_paraphrase_overlap_after_normalisation() -> None:
    overlap = paraphrase_overlap(HUMAN_PARAPHRASES, MACHINE_PARAPHRASES)
    assert overlap == {
        "machine_item_paraphrases": 5,
        "machine_compound_paraphrases": 4,
        "human_item_paraphrases": 3,
        "human_compound_paraphrases": 3,
        # s1 "parking area" and s3 "dj" of the four on s1-s3.
        "same_item": {"n": 4, "matched": 2, "share": 0.5},
        # c1 "parking area" and c2 "dj" of c1 "parking area", c1 "car lot", c2 "dj".
        "same_compound": {"n": 3, "matched": 2, "share": 2 / 3},
    }
    assert paraphrase_overlap([], MACHINE_PARAPHRASES)["same_item"] == {"n": 0, "matched": 0, "share": None}


def test_several_models_share_one_reading_of_the_human_paraphrases() -> None:
    results = machine_comparisons(
        campaign(),
        {"consensus": model(CONSENSUS), "contrarian": model(REVERSED)},
        CLASSES,
        human_paraphrases=iter(HUMAN_PARAPHRASES),
        machine_paraphrases={"consensus": MACHINE_PARAPHRASES},
    )
    assert list(results) == ["consensus", "contrarian"]
    assert results["consensus"]["scores"]["compound"]["spearman_item"]["rho"] == 1.0
    assert results["contrarian"]["scores"]["compound"]["spearman_item"]["rho"] == -1.0
    assert results["consensus"]["paraphrases"]["same_item"]["share"] == 0.5
    assert results["contrarian"]["paraphrases"]["human_item_paraphrases"] == 3
    assert results["contrarian"]["paraphrases"]["same_item"]["n"] == 0


def test_result_is_json_without_nan() -> None:
    # A constant model has no rank correlation: None, not NaN.
    result = compare([3, 3, 3, 3, 3, 3], human_paraphrases=HUMAN_PARAPHRASES, machine_paraphrases=MACHINE_PARAPHRASES)
    assert result["scores"]["compound"]["spearman_item"] == {"rho": None, "p": None, "n": 6}
    assert result["reliability"]["compound"]["rho"] is None and result["reliability"]["compound"]["percentile"] is None
    assert json.loads(json.dumps(result, allow_nan=False)) == result


def test_rejects_several_annotators_repeated_items_and_unknown_levels() -> None:
    with pytest.raises(ValueError, match="several annotators"):
        machine_comparison(campaign(), campaign(), CLASSES)
    with pytest.raises(ValueError, match="more than once"):
        machine_comparison(campaign(), model([1, 2], items=["s1", "s1"]), CLASSES)
    with pytest.raises(ValueError, match="level"):
        machine_comparison(campaign(), model(CONSENSUS), CLASSES, level="sentence")
