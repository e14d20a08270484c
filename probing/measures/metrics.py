"""Sim, Affinity and Scaled Similarity of minimal pairs (He et al. 2024, section 3.4; pure: no Django).

Two levels: "sentence" compares the sentence vectors of a pair, "nc" the span vectors (the
compound in the original sentence vs its replacement in the variant). Every cosine is given raw
and after rogue-dimension standardisation (appendix C: each dimension turned into z-scores over
the vectors of the run at that level); measures on standardised cosines end in ``_std``.

Per sentence (``sentence_values``):

- ``sim_syn``, ``sim_head``, ``sim_modifier``: the probe's cosine (its lowest rank when several);
- ``sim_comp``: the more similar of head-only and modifier-only in *this* sentence (P_Comp), and
  ``comp_choice`` says which ("head" on a tie);
- ``sim_words_syn``, ``sim_rand``: the mean over the probe's ranks (eq. 3);
- ``affinity_syn_words_syn`` = sim_syn - sim_words_syn, ``affinity_syn_rand`` = sim_syn - sim_rand (eq. 4);
- ``scaled_syn`` = (sim_syn - sim_rand) / (1 - sim_rand), ``scaled_words_syn`` likewise (eq. 5).

A value that cannot be computed (a probe without a variant or a vector, sim_rand = 1) is None,
never 0, and the row lists the missing probes. Per compound (``compound_values``) each value is the
mean over the compound's sentences that have it, so Scaled Similarity is computed per sentence and
then averaged, as eq. 5 prescribes.

Correlations and tables live in ``probing.measures.analysis``, which builds on this module.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from probing.embedding.base import TextSpan, Vectors
from probing.measures.probes import ContextPair, Pair
from probing.measures.similarity import (
    VectorTable,
    chunk_rows,
    cosines,
    mean_rows,
    moments,
    row_cosines,
    standardised,
)
from probing.vocabulary import LEVELS, MEASURE_LABELS, NC, PROBES, SENTENCE, STD

# The measures of the papers' tables, raw then standardised.
BASE_MEASURES: tuple[str, ...] = tuple(MEASURE_LABELS)
MEASURES: tuple[str, ...] = BASE_MEASURES + tuple(m + STD for m in BASE_MEASURES)
# Every numeric value of a sentence or compound row.
ROW_MEASURES: tuple[str, ...] = MEASURES + ("sim_head", "sim_modifier", "sim_head" + STD, "sim_modifier" + STD)

GROUP_KEYS = ("language", "compound", "condition", "level")


def cosine(a: np.ndarray, b: np.ndarray) -> float | None:
    """Cosine similarity (eq. 2); None when either vector is zero or not finite."""
    a64, b64 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    denominator = float(np.linalg.norm(a64) * np.linalg.norm(b64))
    if not denominator or not math.isfinite(denominator):
        return None
    return float(np.dot(a64, b64) / denominator)


@dataclass(frozen=True, eq=False)
class Standardiser:
    """Per-dimension z-scores: z = (x - mean) / std, with std 0 taken as 1 (appendix C)."""

    mean: np.ndarray
    std: np.ndarray
    n: int

    def transform(self, x: np.ndarray) -> np.ndarray:
        return (np.asarray(x, dtype=np.float64) - self.mean) / self.std

    def as_dict(self) -> dict:
        return {"mean": [float(x) for x in self.mean], "std": [float(x) for x in self.std], "n": self.n}

    @classmethod
    def from_dict(cls, data: Mapping) -> Standardiser:
        return cls(np.asarray(data["mean"], dtype=np.float64), np.asarray(data["std"], dtype=np.float64), data["n"])


def fit_standardiser(vectors: Iterable[np.ndarray] | np.ndarray) -> Standardiser:
    """Mean and population standard deviation per dimension over vectors (rows of a matrix; NaN rows skipped)."""
    matrix = vectors if isinstance(vectors, np.ndarray) else np.asarray([np.asarray(v) for v in vectors])
    if matrix.ndim != 2:
        raise ValueError("fit_standardiser needs at least one vector")
    n, mean, std = moments(matrix)
    if not n:
        raise ValueError("fit_standardiser needs at least one vector")
    # Dimensions that do not vary (up to rounding) carry no signal to rescale.
    std[std <= 1e-12 * np.maximum(1.0, np.abs(mean))] = 1.0
    return Standardiser(mean, std, n)


def level_vector(vectors: Vectors | None, level: str) -> np.ndarray | None:
    if vectors is None:
        return None
    return vectors.sentence if level == SENTENCE else vectors.span


def _table(vectors: Mapping[TextSpan, Vectors] | VectorTable, items: Iterable[TextSpan]) -> VectorTable:
    return vectors if isinstance(vectors, VectorTable) else VectorTable.from_vectors(vectors, items)


def fit_standardisers(
    items: Iterable[TextSpan], vectors: Mapping[TextSpan, Vectors] | VectorTable, levels: Iterable[str] = LEVELS
) -> dict[str, Standardiser]:
    """One standardiser per level over the distinct items' vectors (levels without vectors are left out)."""
    distinct = list(dict.fromkeys(items))
    table = _table(vectors, distinct)
    rows = table.rows(distinct)
    out: dict[str, Standardiser] = {}
    every = len(rows) == len(table.items) and bool((rows == np.arange(len(rows))).all())  # no copy to make
    for level in levels:
        matrix = table.level(level) if every else table.level(level)[rows]
        if (~np.isnan(matrix).any(axis=1)).any():
            out[level] = fit_standardiser(matrix)
    return out


class PairSim(NamedTuple):
    """The cosine of one pair at one level, raw and after standardisation (None when not standardised).

    A named tuple: a run's report makes tens of thousands of them, at a quarter of a dataclass's cost.
    """

    pair: Pair
    level: str  # "sentence" | "nc"
    sim: float
    sim_std: float | None


def pair_cosines(pairs: Sequence[Pair], table: VectorTable, level: str, layer: int | None = None) -> np.ndarray:
    """The raw cosine of each pair at ``level`` (of swept layer row ``layer``), NaN where it has none."""
    matrix = table.level(level, layer)
    return row_cosines(matrix, table.rows([p.original for p in pairs]), table.rows([p.variant for p in pairs]))


def standardised_cosines(pairs: Sequence[Pair], table: VectorTable, level: str, z: Standardiser) -> np.ndarray:
    """Each pair's cosine at ``level`` after standardisation with ``z``, NaN where it has none."""
    matrix = table.standardised(level, z.mean, z.std)
    return row_cosines(matrix, table.rows([p.original for p in pairs]), table.rows([p.variant for p in pairs]))


def pair_similarities(
    pairs: Iterable[Pair],
    vectors: Mapping[TextSpan, Vectors] | VectorTable,
    standardiser: Standardiser | Mapping[str, Standardiser] | None = None,
    levels: Iterable[str] = LEVELS,
) -> list[PairSim]:
    """Cosines of every pair at every level, all pairs at once (``probing.measures.similarity``).

    ``standardiser``: None fits one per level over the distinct items of ``pairs``; a mapping
    gives one per level (a level missing from it, e.g. ``{}``, gets ``sim_std`` None); a single
    ``Standardiser`` serves every level. A pair whose vectors are absent at a level (no span
    vector, a model without spans) or zero is left out there; ``sentence_values`` reports it missing.
    """
    pairs = list(pairs)
    levels = tuple(levels)
    table = _table(vectors, (i for p in pairs for i in (p.original, p.variant)))
    if standardiser is None:
        standardisers = fit_standardisers((i for p in pairs for i in (p.original, p.variant)), table, levels)
    elif isinstance(standardiser, Standardiser):
        standardisers = {level: standardiser for level in levels}
    else:
        standardisers = dict(standardiser)
    raw = {level: pair_cosines(pairs, table, level) for level in levels}
    std = {level: standardised_cosines(pairs, table, level, z) for level, z in standardisers.items() if level in raw}
    out: list[PairSim] = []
    for i, pair in enumerate(pairs):
        for level in levels:
            sim = raw[level][i]
            if np.isnan(sim):
                continue
            z = std[level][i] if level in std else np.nan
            out.append(PairSim(pair, level, float(sim), None if np.isnan(z) else float(z)))
    return out


class ContextSim(NamedTuple):
    """``nc_out`` / ``nc_out_comp`` cosine of one sentence (span vectors), raw and standardised (a named tuple)."""

    pair: ContextPair
    sim: float
    sim_std: float | None


def context_cosines(
    pairs: Sequence[ContextPair], table: VectorTable, z: Standardiser | None = None, layer: int | None = None
) -> np.ndarray:
    """Span vector in context vs the mean of the out-of-context span vectors, per pair (standardised by ``z``)."""
    if z is None:
        matrix = table.level(NC, layer)
    elif layer is None:
        matrix = table.standardised(NC, z.mean, z.std)  # the one the minimal pairs' NC level used
    else:
        matrix = standardised(table.level(NC, layer), z.mean, z.std)
    # A block of pairs at a time: their gathered float64 rows stay small however large the run.
    out, step = np.empty(len(pairs)), chunk_rows(matrix)
    for start in range(0, len(pairs), step):
        block = pairs[start : start + step]
        inside = matrix[table.rows([p.in_context for p in block])]
        alone = mean_rows(matrix, [table.rows(list(p.out_of_context)) for p in block])
        out[start : start + len(block)] = cosines(inside, alone)
    return out


def context_similarities(
    pairs: Iterable[ContextPair],
    vectors: Mapping[TextSpan, Vectors] | VectorTable,
    standardiser: Standardiser | None = None,
) -> list[ContextSim]:
    """Cosine between the compound's span vector in context and the mean of its out-of-context span vectors.

    ``standardiser`` defaults to one fitted over the span vectors of all the pairs' items (pass the
    run's "nc" standardiser to share it with the minimal pairs). Pairs lacking a vector are left out.
    """
    pairs = list(pairs)
    items = [i for p in pairs for i in (p.in_context, *p.out_of_context)]
    table = _table(vectors, items)
    if standardiser is None:
        standardiser = fit_standardisers(items, table, (NC,)).get(NC)
    raw = context_cosines(pairs, table)
    std = context_cosines(pairs, table, standardiser) if standardiser is not None else np.full(len(pairs), np.nan)
    return [
        ContextSim(pair, float(sim), None if np.isnan(z) else float(z))
        for pair, sim, z in zip(pairs, raw, std, strict=True)
        if not np.isnan(sim)
    ]


def affinity(sim_i: float | None, sim_j: float | None) -> float | None:
    """Aff(Pi, Pj | Target) = Sim(Pi) - Sim(Pj) (eq. 4)."""
    if sim_i is None or sim_j is None:
        return None
    return sim_i - sim_j


def scaled_similarity(sim: float | None, sim_rand: float | None) -> float | None:
    """(Sim(Pi) - Sim(P_Rand)) / (1 - Sim(P_Rand)) for one sentence (eq. 5 before the mean)."""
    if sim is None or sim_rand is None or sim_rand == 1.0:
        return None
    return (sim - sim_rand) / (1.0 - sim_rand)


def mean(values: Iterable[float | None]) -> float | None:
    present = [x for x in values if x is not None]
    return float(sum(present) / len(present)) if present else None


def sentence_values(pair_sims: Iterable[PairSim]) -> list[dict]:
    """One row per language, compound, condition, level and sentence (see the module docstring).

    Keys: language, compound, condition, level, sentence_id, length (words in the original
    sentence), n_words_syn, n_rand, missing (probes without a cosine), comp_choice,
    comp_choice_std, and every name in ``ROW_MEASURES`` (float or None).
    """
    groups: dict[tuple, dict] = {}
    for ps in pair_sims:
        p = ps.pair
        key = (p.language, p.compound, p.condition, ps.level, p.sentence_id)
        group = groups.setdefault(key, {"length": p.length, "sims": defaultdict(list)})
        group["sims"][p.probe].append((p.rank, ps.sim, ps.sim_std))
    rows = []
    for (language, compound, condition, level, sid), group in groups.items():
        sims = group["sims"]
        row = {
            "language": language,
            "compound": compound,
            "condition": condition,
            "level": level,
            "sentence_id": sid,
            "length": group["length"],
            "n_words_syn": len(sims.get("words_syn", [])),
            "n_rand": len(sims.get("rand", [])),
            "missing": [probe for probe in PROBES if not sims.get(probe)],
        }
        for suffix, index in (("", 1), (STD, 2)):
            row.update(_values(sims, index, suffix))
        rows.append(row)
    return rows


def _values(sims: Mapping[str, list[tuple]], index: int, suffix: str) -> dict:
    """The measures of one sentence from (rank, sim, sim_std) tuples; index 1 = raw, 2 = standardised."""

    def first(probe: str) -> float | None:
        ranked = sorted(sims.get(probe, []), key=lambda t: t[0])
        return ranked[0][index] if ranked else None

    syn, head, modifier = first("syn"), first("head"), first("modifier")
    words_syn = mean(t[index] for t in sims.get("words_syn", []))
    rand = mean(t[index] for t in sims.get("rand", []))
    if head is None and modifier is None:
        comp, choice = None, None
    elif modifier is None or (head is not None and head >= modifier):
        comp, choice = head, "head"
    else:
        comp, choice = modifier, "modifier"
    return {
        "sim_syn" + suffix: syn,
        "sim_head" + suffix: head,
        "sim_modifier" + suffix: modifier,
        "sim_comp" + suffix: comp,
        "comp_choice" + suffix: choice,
        "sim_words_syn" + suffix: words_syn,
        "sim_rand" + suffix: rand,
        "affinity_syn_words_syn" + suffix: affinity(syn, words_syn),
        "affinity_syn_rand" + suffix: affinity(syn, rand),
        "scaled_syn" + suffix: scaled_similarity(syn, rand),
        "scaled_words_syn" + suffix: scaled_similarity(words_syn, rand),
    }


def compound_values(sentence_rows: Iterable[dict]) -> list[dict]:
    """One row per language, compound, condition and level: each measure's mean over the sentences.

    Keys: language, compound, condition, level, n_sentences, sentence_ids, missing (measures
    absent from at least one sentence), comp_choices ({"head": n, "modifier": n}) and every
    name in ``ROW_MEASURES``.
    """
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in sentence_rows:
        groups[tuple(row[k] for k in GROUP_KEYS)].append(row)
    out = []
    for key, rows in groups.items():
        entry = dict(zip(GROUP_KEYS, key, strict=True))
        entry["n_sentences"] = len(rows)
        entry["sentence_ids"] = [r["sentence_id"] for r in rows]
        entry["missing"] = [m for m in ROW_MEASURES if any(r.get(m) is None for r in rows)]
        choices = [r.get("comp_choice") for r in rows]
        entry["comp_choices"] = {"head": choices.count("head"), "modifier": choices.count("modifier")}
        entry.update({m: mean(r.get(m) for r in rows) for m in ROW_MEASURES})
        out.append(entry)
    return out


def report_entry(row: Mapping) -> dict:
    """A compound row in the nested shape of ``probe_report --format json``'s ``per_compound``.

    The standardised values go under ``sim_std``, ``affinity_std`` and ``scaled_std``.
    """
    entry = {k: row[k] for k in GROUP_KEYS}
    for s in ("", STD):
        entry["sim" + s] = {p: row.get(f"sim_{p}{s}") for p in ("syn", "comp", "words_syn", "rand")}
        entry["affinity" + s] = {a: row.get(f"affinity_{a}{s}") for a in ("syn_words_syn", "syn_rand")}
        entry["scaled" + s] = {p: row.get(f"scaled_{p}{s}") for p in ("syn", "words_syn")}
    return entry
