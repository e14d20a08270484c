"""Correlations, corrections and summary tables against values computed by hand."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from scipy import stats

from core.statistics import adjust_bh
from datasets import vocabulary
from probing.embedding.base import TextSpan
from probing.measures.analysis import (
    context_correlations,
    context_values,
    correlations,
    human_scores,
    length_correlations,
    model_correlations,
    summary_table,
)
from probing.measures.metrics import ContextSim, PairSim
from probing.measures.probes import ContextPair, Pair
from releases.snapshot import ReleaseCompound, ScoreInfo, Snapshot

COMPOUNDS = ["a b", "c d", "e f", "g h", "i j", "k l"]
COMP = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
SIM_SYN = [0.1, 0.3, 0.2, 0.5, 0.4, 0.6]


def compound_rows(values=SIM_SYN, level="nc", language="en") -> list[dict]:
    return [
        {"language": language, "compound": c, "condition": "naturalistic", "level": level, "sim_syn": x}
        for c, x in zip(COMPOUNDS, values, strict=True)
    ]


def human(overlapping=("c d",)) -> dict:
    classes = [vocabulary.IDIOMATIC] * 3 + [vocabulary.COMPOSITIONAL] * 3
    return {
        ("en", c): {"comp": comp, "class": cls, "overlap": c in overlapping, "frequency": 10 - comp, "ppmi": comp}
        for c, comp, cls in zip(COMPOUNDS, COMP, classes, strict=True)
    }


def test_correlations_overall_by_class_and_without_overlapping_synonyms():
    rows = correlations(compound_rows(), human())

    by_subset = {r["subset"]: r for r in rows}
    assert list(by_subset) == ["all", vocabulary.IDIOMATIC, vocabulary.COMPOSITIONAL, "no_overlap"]
    assert by_subset["all"]["rho"] == pytest.approx(stats.spearmanr(SIM_SYN, COMP).statistic)
    assert by_subset["all"]["n"] == 6
    # Idiomatic: sims (0.1, 0.3, 0.2) rank (1, 3, 2) against (1, 2, 3): rho = 1 - 6 * 2 / (3 * 8) = 0.5.
    assert by_subset[vocabulary.IDIOMATIC]["rho"] == pytest.approx(0.5)
    assert by_subset["no_overlap"]["n"] == 5
    assert by_subset["no_overlap"]["rho"] == pytest.approx(1.0 - 6 * 2 / (5 * 24))
    first = by_subset["all"]
    assert {k: first[k] for k in ("language", "condition", "level", "measure")} == {
        "language": "en",
        "condition": "naturalistic",
        "level": "nc",
        "measure": "sim_syn",
    }
    assert first["significant"] is (first["p"] <= 0.05)
    assert first["p_adjusted"] is None
    assert json.loads(json.dumps(rows)) == rows


def test_overlap_is_computed_from_the_synonym_when_not_given():
    info = {("en", c): {"comp": comp} for c, comp in zip(COMPOUNDS, COMP, strict=True)}
    info[("en", "a b")]["synonym"] = "b thing"
    for c in COMPOUNDS[1:]:
        info[("en", c)]["synonym"] = "other"

    rows = correlations(compound_rows(), info)

    assert {r["subset"]: r["n"] for r in rows} == {"all": 6, "no_overlap": 5}


def test_correlations_with_benjamini_hochberg_mark_on_adjusted_p():
    rows = correlations(compound_rows(), human(), correction="bh", alpha=0.05)

    adjusted = adjust_bh([r["p"] for r in rows])
    assert [r["p_adjusted"] for r in rows] == adjusted
    assert [r["significant"] for r in rows] == [a is not None and a <= 0.05 for a in adjusted]
    with pytest.raises(ValueError):
        correlations(compound_rows(), human(), correction="bonferroni")


def test_compounds_missing_from_the_human_scores_or_values_are_left_out():
    rows = compound_rows([0.1, None, 0.2, 0.5, 0.4, 0.6]) + [
        {"language": "en", "compound": "zz", "condition": "naturalistic", "level": "nc", "sim_syn": 0.9}
    ]

    result = {r["subset"]: r["n"] for r in correlations(rows, human(), measures=["sim_syn", "scaled_syn"])}

    assert result == {"all": 5, vocabulary.IDIOMATIC: 2, vocabulary.COMPOSITIONAL: 3, "no_overlap": 5}


def sentence_row(sid: str, length: int, sim: float, level: str = "sentence", condition="naturalistic") -> dict:
    return {
        "language": "en",
        "compound": "a b",
        "condition": condition,
        "level": level,
        "sentence_id": sid,
        "length": length,
        "sim_syn": sim,
    }


def test_length_correlations_from_sentence_rows():
    rows = [sentence_row(f"s{i}", length, sim) for i, (length, sim) in enumerate([(5, 0.5), (10, 0.7), (20, 0.9)])]
    rows += [sentence_row("nc", 5, 0.1, level="nc"), sentence_row("neu", 5, 0.1, condition="neutral")]

    [row] = length_correlations(rows, measures=["sim_syn"])

    assert (row["level"], row["condition"], row["rho"], row["n"]) == ("sentence", "naturalistic", 1.0, 3)


def test_length_correlations_use_the_length_each_pair_carries():
    def ps(text: str, sim: float, length: int) -> PairSim:
        original = TextSpan(text)
        return PairSim(
            Pair("en", "a b", "naturalistic", text, "syn", 1, original, TextSpan("x"), length), "sentence", sim, None
        )

    result = length_correlations([ps("a", 0.9, 2), ps("b", 0.5, 3), ps("c", 0.1, 4)])

    assert [(r["measure"], r["rho"], r["n"]) for r in result] == [("sim_syn", pytest.approx(-1.0), 3)]


def context_sim(compound: str, sid: str, sim: float, token: float | None, probe: str = "nc_out") -> ContextSim:
    p = ContextPair("en", compound, "naturalistic", sid, probe, TextSpan(sid), (TextSpan(compound),), (), token)
    return ContextSim(p, sim, sim)


def test_context_correlations_at_token_and_type_level():
    sims = []
    for i, c in enumerate(COMPOUNDS[:4]):
        sims += [context_sim(c, f"{c}-1", 0.1 * i, token=i), context_sim(c, f"{c}-2", 0.1 * i + 0.05, token=i + 0.5)]

    rows = context_correlations(sims, human())
    index = {(r["granularity"], r["against"], r["measure"]): r for r in rows}

    assert index[("token", "comp", "sim")]["n"] == 8
    assert index[("token", "comp", "sim")]["rho"] == pytest.approx(1.0)
    assert index[("type", "comp", "sim")]["n"] == 4
    assert index[("type", "frequency", "sim")]["rho"] == pytest.approx(-1.0)
    assert index[("type", "ppmi", "sim_std")]["rho"] == pytest.approx(1.0)
    assert {r["probe"] for r in rows} == {"nc_out"}
    values = context_values(sims)
    assert values[0]["sim"] == pytest.approx(0.025) and values[0]["n_sentences"] == 2


def test_model_correlations_pair_every_two_models_on_shared_compounds():
    a = compound_rows()
    b = compound_rows([x * 2 for x in SIM_SYN])
    c = compound_rows([-x for x in SIM_SYN])[:4]

    rows = model_correlations({"bert": a, "glove": b, "llama": c}, measures=["sim_syn"])

    assert [(r["model_a"], r["model_b"], r["n"]) for r in rows] == [
        ("bert", "glove", 6),
        ("bert", "llama", 4),
        ("glove", "llama", 4),
    ]
    assert rows[0]["rho"] == pytest.approx(1.0) and rows[1]["rho"] == pytest.approx(-1.0)


def test_summary_table_gives_mean_and_sample_standard_deviation():
    rows = compound_rows([0.2, 0.4, 0.6, None, 0.4, 0.4], level="sentence")

    [row] = [r for r in summary_table(rows) if r["measure"] == "sim_syn"]

    assert row["mean"] == pytest.approx(0.4)
    assert row["std"] == pytest.approx(math.sqrt(0.08 / 4))
    assert row["n"] == 5
    empty = [r for r in summary_table(rows) if r["measure"] == "scaled_syn"][0]
    assert (empty["mean"], empty["std"], empty["n"]) == (None, None, 0)


def test_summary_rows_come_in_the_papers_order():
    rows = compound_rows(level="nc") + compound_rows(level="sentence") + compound_rows(level="nc", language="de")

    order = list(dict.fromkeys((r["language"], r["level"]) for r in summary_table(rows)))

    assert order == [("de", "nc"), ("en", "sentence"), ("en", "nc")]


def test_human_scores_from_a_release():
    c = ReleaseCompound(
        language="en",
        text="eager beaver",
        modifier="eager",
        head="beaver",
        compositionality_class=vocabulary.IDIOMATIC,
        type_score=0.5,
        token_score=0.7,
        head_score=None,
        modifier_score=None,
        gold_synonym="eager person",
        frequency=1.5,
        modifier_frequency=None,
        head_frequency=None,
        frequency_source="",
        pmi=2.0,
        ppmi=2.0,
    )
    release = Snapshot(("en",), (c,), ScoreInfo("reference"))

    assert human_scores(release)[("en", "eager beaver")] == {
        "comp": 0.5,
        "class": vocabulary.IDIOMATIC,
        "frequency": 1.5,
        "pmi": 2.0,
        "ppmi": 2.0,
        "synonym": "eager person",
        "overlap": True,
    }
    assert human_scores(release, score="token")[("en", "eager beaver")]["comp"] == 0.7
    # A published overlap (NCIMP's MWE Synonym Overlap) wins over the rule (datasets/overlap.py).
    published = Snapshot(("en",), (dataclasses.replace(c, synonym_overlap=0),), ScoreInfo("reference"))
    assert human_scores(published)[("en", "eager beaver")]["overlap"] is False
