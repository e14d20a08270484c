"""Sim, Affinity and Scaled Similarity against values computed by hand."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from probing.embedding.base import TextSpan, Vectors
from probing.measures.metrics import (
    MEASURES,
    ContextSim,
    PairSim,
    Standardiser,
    affinity,
    compound_values,
    context_similarities,
    cosine,
    fit_standardiser,
    pair_similarities,
    report_entry,
    scaled_similarity,
    sentence_values,
)
from probing.measures.probes import ContextPair, Pair
from releases.snapshot import word_count

ORIGINAL = TextSpan("an eager beaver here", (3, 15))


def pair(probe: str, rank: int = 1, sentence_id: str = "naturalistic-1", compound: str = "eager beaver") -> Pair:
    replacement = f"{probe}{rank}"
    return Pair(
        language="en",
        compound=compound,
        condition="naturalistic",
        sentence_id=sentence_id,
        probe=probe,
        rank=rank,
        original=ORIGINAL,
        variant=TextSpan(f"an {replacement} here", (3, 3 + len(replacement))),
        length=word_count(ORIGINAL.text),
    )


def sims(values: dict, sentence_id: str = "naturalistic-1", level: str = "nc") -> list[PairSim]:
    """PairSims from {probe: [sim of rank 1, sim of rank 2, …]}; sim_std = sim / 2 to tell them apart."""
    return [
        PairSim(pair(probe, rank, sentence_id), level, sim, sim / 2)
        for probe, ranked in values.items()
        for rank, sim in enumerate(ranked, start=1)
    ]


def vectors(sentence, span=None) -> Vectors:
    return Vectors(
        sentence=np.asarray(sentence, dtype=np.float32),
        span=None if span is None else np.asarray(span, dtype=np.float32),
        tokens=3,
    )


def test_cosine_of_tiny_vectors():
    assert cosine(np.array([1.0, 0.0]), np.array([1.0, 1.0])) == pytest.approx(1 / math.sqrt(2))
    assert cosine(np.array([1.0, 2.0]), np.array([-2.0, 1.0])) == pytest.approx(0.0)
    assert cosine(np.array([3.0, 4.0]), np.array([6.0, 8.0])) == pytest.approx(1.0)
    assert cosine(np.array([0.0, 0.0]), np.array([1.0, 1.0])) is None


def test_standardiser_gives_z_scores_and_leaves_constant_dimensions_unscaled():
    z = fit_standardiser([np.array([1.0, 10.0]), np.array([3.0, 10.0]), np.array([5.0, 10.0])])

    assert z.mean.tolist() == [3.0, 10.0]
    assert z.std.tolist() == pytest.approx([math.sqrt(8 / 3), 1.0])  # population std; 0 becomes 1
    assert z.transform(np.array([5.0, 10.0])).tolist() == pytest.approx([2 / math.sqrt(8 / 3), 0.0])
    assert Standardiser.from_dict(json.loads(json.dumps(z.as_dict()))).transform([1.0, 12.0]).tolist() == (
        pytest.approx([-2 / math.sqrt(8 / 3), 2.0])
    )


def test_a_rogue_dimension_dominates_raw_cosine_but_not_the_standardised_one():
    a, b, c = TextSpan("a"), TextSpan("b"), TextSpan("c")
    found = {a: vectors([1.0, 10.0], [1.0, 10.0]), b: vectors([5.0, 10.0], [5.0, 10.0]), c: vectors([3.0, 10.0])}
    p = Pair("en", "x y", "naturalistic", "naturalistic-1", "syn", 1, a, b)
    helper = Pair("en", "x y", "naturalistic", "naturalistic-1", "rand", 1, a, c)

    by_level = {ps.level: ps for ps in pair_similarities([p, helper], found) if ps.pair == p}

    assert by_level["sentence"].sim == pytest.approx(105 / math.sqrt(101 * 125))
    # Over a, b, c the first dimension has mean 3: a and b lie on opposite sides of it.
    assert by_level["sentence"].sim_std == pytest.approx(-1.0)
    # At the nc level only a and b have span vectors: the standardiser is fitted over them alone.
    assert by_level["nc"].sim_std == pytest.approx(-1.0)


def test_pair_similarities_skip_missing_span_vectors_and_can_be_given_standardisers():
    a, b = TextSpan("a"), TextSpan("b")
    p = Pair("en", "x y", "naturalistic", "naturalistic-1", "syn", 1, a, b)
    found = {a: vectors([1.0, 0.0]), b: vectors([1.0, 1.0])}

    given = pair_similarities([p], found, standardiser={"sentence": Standardiser(np.zeros(2), np.ones(2), 1)})
    unstandardised = pair_similarities([p], found, standardiser={})

    assert [(ps.level, ps.sim, ps.sim_std) for ps in given] == [
        ("sentence", pytest.approx(1 / math.sqrt(2)), pytest.approx(1 / math.sqrt(2)))
    ]
    assert unstandardised[0].sim_std is None
    assert pair_similarities([p], {a: found[a]}) == []


def test_affinity_and_scaled_similarity_by_hand():
    assert affinity(0.9, 0.6) == pytest.approx(0.3)
    assert scaled_similarity(0.9, 0.6) == pytest.approx(0.75)
    assert scaled_similarity(0.6, 0.6) == pytest.approx(0.0)
    assert scaled_similarity(0.9, 1.0) is None
    assert affinity(None, 0.6) is None
    assert scaled_similarity(0.9, None) is None


def test_sentence_values_by_hand():
    rows = sentence_values(
        sims(
            {
                "syn": [0.9],
                "head": [0.5],
                "modifier": [0.7],
                "words_syn": [0.8, 0.6],
                "rand": [0.5, 0.6, 0.7, 0.6, 0.6],
            }
        )
    )

    assert len(rows) == 1
    row = rows[0]
    assert row["sim_syn"] == pytest.approx(0.9)
    assert row["sim_words_syn"] == pytest.approx(0.7)  # mean over its ranks
    assert row["sim_rand"] == pytest.approx(0.6)  # mean over the five
    assert row["affinity_syn_words_syn"] == pytest.approx(0.2)
    assert row["affinity_syn_rand"] == pytest.approx(0.3)
    assert row["scaled_syn"] == pytest.approx(0.75)
    assert row["scaled_words_syn"] == pytest.approx(0.25)
    assert row["sim_syn_std"] == pytest.approx(0.45)
    assert row["scaled_syn_std"] == pytest.approx((0.45 - 0.3) / 0.7)
    assert (row["n_words_syn"], row["n_rand"], row["missing"], row["length"]) == (2, 5, [], 4)


def test_comp_takes_the_modifier_when_it_is_the_more_similar_word():
    modifier_wins = sentence_values(sims({"head": [0.5], "modifier": [0.7]}))[0]
    head_wins = sentence_values(sims({"head": [0.8], "modifier": [0.7]}))[0]

    assert (modifier_wins["sim_comp"], modifier_wins["comp_choice"]) == (0.7, "modifier")
    assert (head_wins["sim_comp"], head_wins["comp_choice"]) == (0.8, "head")
    assert (modifier_wins["sim_head"], modifier_wins["sim_modifier"]) == (0.5, 0.7)


def test_missing_probes_give_none_not_zero_and_are_listed():
    row = sentence_values(sims({"syn": [0.9], "head": [0.4]}))[0]

    assert row["missing"] == ["modifier", "words_syn", "rand"]
    assert (row["sim_comp"], row["comp_choice"]) == (0.4, "head")
    for measure in ("sim_words_syn", "sim_rand", "affinity_syn_rand", "scaled_syn", "scaled_words_syn"):
        assert row[measure] is None
    assert sentence_values(sims({"syn": [0.9]}))[0]["sim_comp"] is None


def test_levels_and_sentences_are_kept_apart():
    rows = sentence_values(
        sims({"syn": [0.9]}, "naturalistic-1") + sims({"syn": [0.8]}, "naturalistic-2", level="sentence")
    )

    assert [(r["sentence_id"], r["level"], r["sim_syn"]) for r in rows] == [
        ("naturalistic-1", "nc", 0.9),
        ("naturalistic-2", "sentence", 0.8),
    ]


def test_compound_values_average_per_sentence_values():
    rows = sentence_values(
        sims({"syn": [0.9], "rand": [0.6], "head": [0.5]}, "naturalistic-1")
        + sims({"syn": [0.5], "rand": [0.0], "modifier": [0.3]}, "naturalistic-2")
        + sims({"syn": [0.7]}, "naturalistic-3")
    )

    [entry] = compound_values(rows)

    assert entry["n_sentences"] == 3
    assert entry["sim_syn"] == pytest.approx(0.7)
    assert entry["sim_rand"] == pytest.approx(0.3)  # sentence 3 has no random variant
    # Eq. 5 scales each sentence, then averages: (0.75 + 0.5) / 2, not (0.7 - 0.3) / (1 - 0.3).
    assert entry["scaled_syn"] == pytest.approx(0.625)
    assert entry["sim_comp"] == pytest.approx(0.4)
    assert entry["comp_choices"] == {"head": 1, "modifier": 1}
    assert "scaled_syn" in entry["missing"] and "sim_syn" not in entry["missing"]
    assert entry["sim_words_syn"] is None


def test_rows_are_json_with_python_floats():
    a, b = TextSpan("a", (0, 1)), TextSpan("b", (0, 1))
    found = {a: vectors([1.0, 2.0], [1.0, 2.0]), b: vectors([2.0, 1.0], [0.5, 1.0])}
    p = Pair("en", "x y", "naturalistic", "naturalistic-1", "syn", 1, a, b)

    rows = compound_values(sentence_values(pair_similarities([p], found)))

    assert json.loads(json.dumps(rows))
    for row in rows:
        assert all(type(row[m]) in (float, type(None)) for m in MEASURES)
    entry = report_entry(rows[0])
    assert entry["sim"]["syn"] == rows[0]["sim_syn"]
    assert set(entry) == {
        "language",
        "compound",
        "condition",
        "level",
        "sim",
        "affinity",
        "scaled",
        "sim_std",
        "affinity_std",
        "scaled_std",
    }


def test_context_similarity_compares_the_compound_in_context_with_its_words_alone():
    inside, head, modifier, nc = (
        TextSpan("an eager beaver", (3, 15)),
        TextSpan("beaver", (0, 6)),
        TextSpan("eager", (0, 5)),
        TextSpan("eager beaver", (0, 12)),
    )
    found = {
        inside: vectors([9.0, 9.0], [1.0, 0.0]),
        head: vectors([0.0, 0.0], [0.0, 1.0]),
        modifier: vectors([0.0, 0.0], [1.0, 1.0]),
        nc: vectors([0.0, 0.0], [1.0, 1.0]),
    }
    common = {"language": "en", "compound": "eager beaver", "condition": "naturalistic", "sentence_id": "n-1"}
    out = ContextPair(probe="nc_out", in_context=inside, out_of_context=(nc,), **common)
    out_comp = ContextPair(probe="nc_out_comp", in_context=inside, out_of_context=(head, modifier), **common)
    unknown = ContextPair(probe="nc_out", in_context=TextSpan("nowhere"), out_of_context=(nc,), **common)

    result = context_similarities([out, out_comp, unknown], found)

    assert [type(r) for r in result] == [ContextSim, ContextSim]
    assert result[0].sim == pytest.approx(1 / math.sqrt(2))
    assert result[1].sim == pytest.approx(0.5 / math.sqrt(1.25))  # mean of (0, 1) and (1, 1)
    assert result[1].sim_std is not None


def test_the_correlations_and_tables_live_in_analysis_only():
    # One definition of each: metrics computes the measures, analysis (which imports metrics) correlates them.
    from probing.measures import analysis, metrics

    assert callable(analysis.correlations) and callable(analysis.summary_table)
    assert not hasattr(metrics, "correlations") and not hasattr(metrics, "summary_table")
