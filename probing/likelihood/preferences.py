"""Which variant a language model expects: preferences from the minimal pairs' log-probabilities (pure: no Django).

For each sentence and probe, the log-probability of the variant sentence (level ``sentence``: the
whole text; level ``nc``: the replacement's own tokens, given its left context for a causal LM)
is taken from the scored texts; a probe with several ranks (NC_WordsSyn, NC_Rand) counts with the
mean over its ranks, as the similarity probes' eq. 3 does. The model's preference for the gold
synonym over another reading is

    pref_X = log P(NC_Syn sentence) - log P(X sentence),   X in comp, words_syn, rand,

positive when the model finds the synonym likelier. NC_Comp takes the likelier of the head-only
and modifier-only sentences (as P_Comp takes the more similar). ``*_per_token`` divides each
log-probability by its scored tokens first, so that a longer replacement is not penalised for its
length alone. ``surprisal`` is minus the log-probability of the compound in its own sentence (at
level ``nc``: of the compound's tokens). A compound's value per condition and level is the mean
over its sentences, as Comp (eq. 1) averages the human scores.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from statistics import fmean

from probing.embedding.base import TextSpan
from probing.likelihood.scores import TextScore
from probing.measures.probes import Pair

LEVELS = ("sentence", "nc")
OTHERS = ("comp", "words_syn", "rand")
PREFERENCES = tuple(f"pref_{x}" for x in OTHERS)
MEASURES = (*PREFERENCES, *(f"{p}_per_token" for p in PREFERENCES), "surprisal")


def logprob(text: TextSpan, scores: Mapping[str, TextScore], level: str) -> tuple[float, int] | None:
    """(log-probability, scored tokens) of a text at a level; None when it has none there."""
    score = scores[text.text]
    if level == "sentence":
        return (score.total, score.scored) if score.scored else None
    if text.span is None:
        return None
    values = [score.logprobs[i] for i in score.inside(*text.span)]
    if not values or any(v is None for v in values):
        return None
    return sum(values), len(values)


def sentence_rows(pairs: Iterable[Pair], scores: Mapping[str, TextScore]) -> list[dict]:
    """One row per sentence and level with each preference, its per-token form and the compound's surprisal."""
    variants: dict[tuple, dict[str, list[tuple[float, int]]]] = defaultdict(lambda: defaultdict(list))
    originals: dict[tuple, Pair] = {}
    for pair in pairs:
        for level in LEVELS:
            key = (pair.language, pair.compound, pair.condition, pair.sentence_id, level)
            originals.setdefault(key, pair)
            if (found := logprob(pair.variant, scores, level)) is not None:
                variants[key][pair.probe].append(found)
    rows = []
    for key, pair in originals.items():
        language, compound, condition, sentence_id, level = key
        original = logprob(pair.original, scores, level)
        row = {
            "language": language,
            "compound": compound,
            "condition": condition,
            "sentence_id": sentence_id,
            "level": level,
            "length": pair.length,
            "surprisal": -original[0] if original else None,
        }
        row.update(preferences(variants.get(key, {})))
        rows.append(row)
    return rows


def preferences(found: Mapping[str, list[tuple[float, int]]]) -> dict[str, float | None]:
    """pref_X and pref_X_per_token from each probe's (log-probability, tokens) per rank."""
    raw = {probe: fmean(v for v, _ in ranks) for probe, ranks in found.items() if ranks}
    per_token = {probe: fmean(v / n for v, n in ranks) for probe, ranks in found.items() if ranks}
    for table in (raw, per_token):
        comp = [table[p] for p in ("head", "modifier") if p in table]
        if comp:
            table["comp"] = max(comp)
    out: dict[str, float | None] = {}
    for other in OTHERS:
        out[f"pref_{other}"] = raw["syn"] - raw[other] if "syn" in raw and other in raw else None
        out[f"pref_{other}_per_token"] = (
            per_token["syn"] - per_token[other] if "syn" in per_token and other in per_token else None
        )
    return out


def compound_rows(rows: Iterable[Mapping]) -> list[dict]:
    """Each compound's mean per language, condition and level over its sentences (values that exist only)."""
    groups: dict[tuple, list[Mapping]] = defaultdict(list)
    for row in rows:
        groups[(row["language"], row["compound"], row["condition"], row["level"])].append(row)
    out = []
    for (language, compound, condition, level), members in groups.items():
        row = {"language": language, "compound": compound, "condition": condition, "level": level}
        for measure in MEASURES:
            values = [m[measure] for m in members if m.get(measure) is not None and math.isfinite(m[measure])]
            row[measure] = fmean(values) if values else None
        row["sentences"] = len(members)
        out.append(row)
    return out
