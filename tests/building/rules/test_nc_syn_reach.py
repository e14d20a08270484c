"""Where the experts' NC_Syn stands among the crowd's paraphrases: ranks, the ceiling, the shapes of the missing."""

from __future__ import annotations

from building.rules.expert_comparison import same
from building.rules.synonyms.nc_syn_reach import reach, shape_of, summary


def alike(a: str, b: str) -> bool:
    return same(a, b, "en")


def test_the_rank_is_found_loosely_and_is_none_when_the_crowd_never_gave_it():
    ranked = ["bad person", "troublemakers", "bad egg"]
    assert reach("bad apple", "troublemaker", ranked, alike).rank == 2  # number aside
    assert reach("bad apple", "The bad person", ranked, alike).rank == 1  # article and case aside
    missing = reach("bad apple", "rogue", ranked, alike)
    assert (missing.rank, missing.paraphrases, missing.shape) == (None, 3, "one word")


def test_shapes_of_what_the_experts_wrote():
    assert shape_of("bad person", "bad apple", alike) == "keeps a word of the compound"
    assert shape_of("trouble maker", "bad apple", alike) == "several words"
    assert shape_of("rogue", "bad apple", alike) == "one word"


def test_summary_shares_are_cumulative_and_the_absent_are_counted_by_shape():
    found = [
        reach("a b", "x", ["x", "y"], alike),  # rank 1
        reach("a b", "y", ["x", "y"], alike),  # rank 2
        reach("a b", "z", ["w", "x", "y", "v", "u", "z"], alike),  # rank 6: anywhere, not top 5
        reach("a b", "a c", ["x"], alike),  # absent, keeps "a"
        reach("a b", "p q", ["x"], alike),  # absent, several words
    ]
    out = summary(found)
    assert out["compounds"] == 5
    assert (out["rank_le_1"], out["rank_le_3"], out["rank_le_5"], out["anywhere"]) == (0.2, 0.4, 0.4, 0.6)
    assert out["absent"] == 2
    assert out["absent_shapes"] == {"keeps a word of the compound": 1, "several words": 1}
    assert out["median_paraphrases"] == 2  # of 2, 2, 6, 1, 1
    assert summary([])["rank_le_1"] is None
