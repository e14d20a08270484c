"""Correlations and summary tables of probe values (pure: no Django import).

- ``correlations``: Spearman rho of each measure against the human compositionality score, per
  language, condition and level, overall, by class and without the compounds whose synonym shares a
  word with them (He et al. 2024, tables 2, 3, 5, 6, 14, 15);
- ``length_correlations``: sentence similarity vs sentence length in words (EACL table 5; He et al. table 4);
- ``context_correlations``: ``nc_out`` (EACL P4) and ``nc_out_comp`` vs human scores, frequency and
  PPMI, at token and type level (ACL table 5);
- ``model_correlations``: per-compound values of two models against each other (figure 10);
- ``summary_table``: mean and standard deviation of each measure (tables 10-13);
- ``layer_report``: the summary and the correlations of each swept layer (a layer sweep).

A correlation that cannot be computed (fewer than 3 values, a constant series) has rho and p None
and is never significant. ``significant`` is p <= alpha, or, with ``correction="bh"``, the
Benjamini-Hochberg adjusted p (``p_adjusted``) <= alpha, the family being every row of the call.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

import numpy as np

from core.statistics import adjust_bh, finite, numbers, spearman, spearman_columns
from datasets import vocabulary
from datasets.overlap import overlaps
from probing.measures.metrics import (
    BASE_MEASURES,
    MEASURES,
    ContextSim,
    PairSim,
    compound_values,
    mean,
    sentence_values,
)
from probing.vocabulary import ALL, CONDITIONS, LEVELS, NATURALISTIC, NO_OVERLAP
from releases.snapshot import Snapshot

LENGTH_MEASURES = ("sim_syn", "sim_comp", "sim_words_syn", "sim_rand")
CONTEXT_TARGETS = ("comp", "frequency", "ppmi")


def human_scores(snapshot: Snapshot, score: str = "type") -> dict[tuple[str, str], dict]:
    """The ``human`` mapping of the correlation functions, from a release.

    ``comp`` is the type-level score (``score="type"``) or the mean of the sentences' token
    scores (``"token"``); ``overlap`` (appendix B) is the published value when the compound has
    one, else ``datasets.overlap``'s rule on the compound and its gold synonym.
    """
    if score not in ("type", "token"):
        raise ValueError(f"score must be 'type' or 'token', not {score!r}")
    out = {}
    for c in snapshot.compounds:
        out[(c.language, c.text)] = {
            "comp": c.type_score if score == "type" else c.token_score,
            "class": c.compositionality_class,
            "frequency": c.frequency,
            "pmi": c.pmi,
            "ppmi": c.ppmi,
            "synonym": c.gold_synonym,
            "overlap": overlaps(c.text, c.gold_synonym, c.synonym_overlap),
        }
    return out


def correlations(
    compound_rows: Iterable[Mapping],
    human: Mapping[tuple[str, str], Mapping],
    alpha: float = 0.05,
    correction: str | None = None,
    measures: Sequence[str] = MEASURES,
    target: str = "comp",
) -> list[dict]:
    """Spearman of each measure against ``human[...][target]`` per language, condition and level.

    Subsets: "all", each compositionality class, and "no_overlap" (compounds whose ``overlap`` is
    False; taken from ``human`` or computed from its ``synonym``; unknown overlap leaves a
    compound out of that subset). Rows: language, condition, level, measure, subset, rho, p, n,
    significant, p_adjusted. Subsets without any value are left out.
    """
    lookup = _human_lookup(human)
    groups: dict[tuple, list[tuple[Mapping, Mapping]]] = defaultdict(list)
    for row in compound_rows:
        info = lookup.get(_key(row["language"], row["compound"]))
        if info is not None:
            groups[(row["language"], row["condition"], row["level"])].append((row, info))
    out = []
    for language, condition, level in _sorted_groups(groups):
        members = groups[(language, condition, level)]
        classes = _ordered({info.get("class") for _, info in members if info.get("class")}, vocabulary.CLASSES)
        subsets = [(ALL, list(range(len(members))))]
        subsets += [(cls, [i for i, m in enumerate(members) if m[1].get("class") == cls]) for cls in classes]
        subsets.append((NO_OVERLAP, [i for i, m in enumerate(members) if _overlap(m[0]["compound"], m[1]) is False]))
        # Every measure of every member at once: the members' columns are ranked together per subset.
        values = np.column_stack([numbers(r.get(measure) for r, _ in members) for measure in measures])
        human = numbers(info.get(target) for _, info in members)
        found = {subset: spearman_columns(values[chosen], human[chosen]) for subset, chosen in subsets}
        for j, measure in enumerate(measures):
            for subset, _ in subsets:
                rho, p, n = found[subset][j]
                if n:
                    out.append(
                        {
                            "language": language,
                            "condition": condition,
                            "level": level,
                            "measure": measure,
                            "subset": subset,
                            "rho": rho,
                            "p": p,
                            "n": n,
                        }
                    )
    return _mark(out, alpha, correction)


def length_correlations(
    pair_sims: Iterable[PairSim] | Iterable[Mapping],
    conditions: Sequence[str] = (NATURALISTIC,),
    levels: Sequence[str] = ("sentence",),
    measures: Sequence[str] = LENGTH_MEASURES,
    alpha: float = 0.05,
    correction: str | None = None,
) -> list[dict]:
    """Spearman between each sentence's probe similarity and its length in words (EACL table 5).

    Takes pair similarities (or ``sentence_values`` rows); a probe with several ranks counts once
    per sentence with its mean. Rows: language, condition, level, measure, rho, p, n, significant,
    p_adjusted.
    """
    items = list(pair_sims)
    rows = items if items and isinstance(items[0], Mapping) else sentence_values(items)
    groups: dict[tuple, list[Mapping]] = defaultdict(list)
    for row in rows:
        if row["condition"] in conditions and row["level"] in levels:
            groups[(row["language"], row["condition"], row["level"])].append(row)
    out = []
    for language, condition, level in _sorted_groups(groups):
        members = groups[(language, condition, level)]
        for measure in measures:
            rho, p, n = spearman([r.get(measure) for r in members], [r["length"] for r in members])
            if n:
                out.append(
                    {
                        "language": language,
                        "condition": condition,
                        "level": level,
                        "measure": measure,
                        "rho": rho,
                        "p": p,
                        "n": n,
                    }
                )
    return _mark(out, alpha, correction)


def context_values(context_sims: Iterable[ContextSim]) -> list[dict]:
    """Per language, compound, condition and probe: mean ``sim`` and ``sim_std`` over the sentences.

    Keys: language, compound, condition, probe, sim, sim_std, n_sentences, synthesised (what the
    release lacked and was made from the compound's own text).
    """
    groups: dict[tuple, list[ContextSim]] = defaultdict(list)
    for cs in context_sims:
        p = cs.pair
        groups[(p.language, p.compound, p.condition, p.probe)].append(cs)
    out = []
    for (language, compound, condition, probe), members in groups.items():
        out.append(
            {
                "language": language,
                "compound": compound,
                "condition": condition,
                "probe": probe,
                "sim": mean(m.sim for m in members),
                "sim_std": mean(m.sim_std for m in members),
                "n_sentences": len(members),
                "synthesised": sorted({s for m in members for s in m.pair.synthesised}),
            }
        )
    return out


def context_correlations(
    context_sims: Iterable[ContextSim],
    human: Mapping[tuple[str, str], Mapping],
    alpha: float = 0.05,
    correction: str | None = None,
    targets: Sequence[str] = CONTEXT_TARGETS,
) -> list[dict]:
    """``nc_out`` / ``nc_out_comp`` similarities against human comp, frequency and PPMI (ACL table 5).

    Token level: one value per sentence; ``comp`` is the sentence's own token score, frequency and
    PPMI the compound's. Type level: the compound's mean over its sentences against ``human``.
    Rows: language, condition, probe, granularity ("token" | "type"), against, measure ("sim" |
    "sim_std"), rho, p, n, significant, p_adjusted.
    """
    sims = list(context_sims)
    lookup = _human_lookup(human)
    token: dict[tuple, list[tuple[Mapping, Mapping]]] = defaultdict(list)
    for cs in sims:
        p = cs.pair
        info = lookup.get(_key(p.language, p.compound), {})
        values = {"sim": cs.sim, "sim_std": cs.sim_std}
        token[(p.language, p.condition, p.probe)].append((values, {**info, "comp": p.token_score}))
    type_level: dict[tuple, list[tuple[Mapping, Mapping]]] = defaultdict(list)
    for row in context_values(sims):
        info = lookup.get(_key(row["language"], row["compound"]), {})
        type_level[(row["language"], row["condition"], row["probe"])].append((row, info))
    out = []
    for granularity, groups in (("token", token), ("type", type_level)):
        for language, condition, probe in _sorted_groups(groups):
            members = groups[(language, condition, probe)]
            for against in targets:
                for measure in ("sim", "sim_std"):
                    rho, p, n = spearman([r.get(measure) for r, _ in members], [i.get(against) for _, i in members])
                    if n:
                        out.append(
                            {
                                "language": language,
                                "condition": condition,
                                "probe": probe,
                                "granularity": granularity,
                                "against": against,
                                "measure": measure,
                                "rho": rho,
                                "p": p,
                                "n": n,
                            }
                        )
    return _mark(out, alpha, correction)


def model_correlations(
    values_by_model: Mapping[str, Iterable[Mapping]], measures: Sequence[str] = MEASURES
) -> list[dict]:
    """Spearman between two models' per-compound values of each measure (the correlogram of figure 10).

    ``values_by_model``: model name -> ``compound_values`` rows. Compounds are matched on
    (language, compound, condition, level); each unordered pair of models appears once, in the
    mapping's order. Rows: language, condition, level, measure, model_a, model_b, rho, p, n.
    """
    indexed: dict[str, dict[tuple, Mapping]] = {}
    for model, rows in values_by_model.items():
        indexed[model] = {
            (r["language"], r["condition"], r["level"], vocabulary.compound_key(r["compound"])): r for r in rows
        }
    groups = {key[:3] for rows in indexed.values() for key in rows}
    out = []
    for language, condition, level in _sorted_groups(groups):
        for a, b in combinations(indexed, 2):
            shared = sorted(k for k in indexed[a].keys() & indexed[b].keys() if k[:3] == (language, condition, level))
            for measure in measures:
                x = [indexed[a][k].get(measure) for k in shared]
                y = [indexed[b][k].get(measure) for k in shared]
                rho, p, n = spearman(x, y)
                if n:
                    out.append(
                        {
                            "language": language,
                            "condition": condition,
                            "level": level,
                            "measure": measure,
                            "model_a": a,
                            "model_b": b,
                            "rho": rho,
                            "p": p,
                            "n": n,
                        }
                    )
    return out


def summary_table(compound_rows: Iterable[Mapping], measures: Sequence[str] = MEASURES) -> list[dict]:
    """Mean and sample standard deviation (n - 1) over compounds, per language, condition, level and measure.

    Rows: language, condition, level, measure, mean, std (None below 2 values), n.
    """
    groups: dict[tuple, list[Mapping]] = defaultdict(list)
    for row in compound_rows:
        groups[(row["language"], row["condition"], row["level"])].append(row)
    out = []
    for language, condition, level in _sorted_groups(groups):
        for measure in measures:
            values = [r.get(measure) for r in groups[(language, condition, level)]]
            values = [float(x) for x in values if finite(x)]
            n = len(values)
            average = sum(values) / n if n else None
            std = math.sqrt(sum((x - average) ** 2 for x in values) / (n - 1)) if n > 1 else None
            out.append(
                {
                    "language": language,
                    "condition": condition,
                    "level": level,
                    "measure": measure,
                    "mean": average,
                    "std": std,
                    "n": n,
                }
            )
    return out


def layer_report(
    index: Sequence[int],
    per_layer: Sequence[Iterable[PairSim]],
    human: Mapping[tuple[str, str], Mapping],
    alpha: float = 0.05,
) -> dict:
    """Per swept layer, the summary and the correlations of the raw measures (standardisation is the combination's).

    ``per_layer[j]``: the pair cosines at hidden state ``index[j]``. Returns ``{"index", "summary",
    "correlations"}``, rows as ``summary_table`` and ``correlations`` give them with a ``layer`` key.
    """
    summary, correlation_rows = [], []
    for layer, sims in zip(index, per_layer, strict=True):
        rows = compound_values(sentence_values(sims))
        summary += [{"layer": layer, **row} for row in summary_table(rows, measures=BASE_MEASURES)]
        found = correlations(rows, human, alpha=alpha, measures=BASE_MEASURES)
        correlation_rows += [{"layer": layer, **row} for row in found]
    return {"index": list(index), "summary": summary, "correlations": correlation_rows}


def _mark(rows: list[dict], alpha: float, correction: str | None) -> list[dict]:
    if correction not in (None, "bh"):
        raise ValueError(f"correction must be None or 'bh', not {correction!r}")
    adjusted = adjust_bh([r["p"] for r in rows]) if correction == "bh" else [None] * len(rows)
    for row, p_adjusted in zip(rows, adjusted, strict=True):
        decisive = p_adjusted if correction == "bh" else row["p"]
        row["p_adjusted"] = p_adjusted
        row["significant"] = decisive is not None and decisive <= alpha
    return rows


def _key(language: str, compound: str) -> tuple[str, str]:
    return language, vocabulary.compound_key(compound)


def _human_lookup(human: Mapping[tuple[str, str], Mapping]) -> dict[tuple[str, str], Mapping]:
    return {_key(language, compound): info for (language, compound), info in human.items()}


def _overlap(compound: str, info: Mapping) -> bool | None:
    if info.get("overlap") is not None:
        return bool(info["overlap"])
    return overlaps(compound, info.get("synonym") or info.get("gold_synonym") or "")


def _ordered(values: Iterable[str], preferred: Sequence[str]) -> list[str]:
    distinct = set(values)
    return [x for x in preferred if x in distinct] + sorted(distinct - set(preferred))


def _sorted_groups(keys: Iterable[tuple]) -> list[tuple]:
    """(language, condition, level-or-probe) keys: languages sorted, naturalistic first, sentence before nc."""

    def rank(value: str, order: Sequence[str]) -> tuple[int, str]:
        return (order.index(value), "") if value in order else (len(order), str(value))

    return sorted(set(keys), key=lambda k: (str(k[0]), rank(k[1], CONDITIONS), rank(k[2], LEVELS)))
