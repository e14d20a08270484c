"""A likelihood probe's tables, as the similarity probes' are read (pure: no Django).

From the per-sentence and per-compound preferences (``preferences``) and the scored
multiple-choice items (``items.item_rows``), with the human scores of the release
(``probing.measures.analysis.human_scores``):

- ``correlations``: Spearman of each preference (and the compound's surprisal) against the human
  compositionality score (Comp, eq. 1) per language, condition and level, over all compounds, each
  class and those whose synonym shares no word; p-values adjusted by Benjamini-Hochberg over the
  table, as the similarity report does;
- ``length_correlations``: Spearman of each sentence's preferences against its length in words;
- ``accuracy``: the multiple-choice metrics' means by language, condition and compositionality
  class (and over every class), with the number of items;
- ``by_class``: each preference's mean per language, condition, level and class.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean

from datasets import vocabulary
from probing.likelihood.choices import METRICS
from probing.likelihood.preferences import LEVELS, MEASURES
from probing.measures import analysis
from probing.vocabulary import ALL, CONDITIONS

ALPHA = 0.05
LENGTH_MEASURES = tuple(m for m in MEASURES if m.startswith("pref_"))


def correlations(compound_rows: Iterable[Mapping], human: Mapping, alpha: float = ALPHA) -> list[dict]:
    return analysis.correlations(compound_rows, human, alpha=alpha, correction="bh", measures=MEASURES)


def length_correlations(sentence_rows: Iterable[Mapping], alpha: float = ALPHA) -> list[dict]:
    return analysis.length_correlations(
        list(sentence_rows),
        conditions=CONDITIONS,
        levels=LEVELS,
        measures=LENGTH_MEASURES,
        alpha=alpha,
        correction="bh",
    )


def _class_of(human: Mapping, language: str, compound: str) -> str | None:
    info = human.get((language, compound))
    return info.get("class") if info else None


def accuracy(item_rows: Iterable[Mapping], human: Mapping) -> list[dict]:
    """Mean of each metric per language, condition and class (``all`` for every class), with ``items``."""
    groups: dict[tuple, list[Mapping]] = defaultdict(list)
    for row in item_rows:
        cls = _class_of(human, row["language"], row["compound"])
        groups[(row["language"], row["condition"], ALL)].append(row)
        if cls:
            groups[(row["language"], row["condition"], cls)].append(row)
    out = []
    for (language, condition, cls), members in sorted(groups.items(), key=lambda kv: _order(kv[0])):
        row = {"language": language, "condition": condition, "class": cls, "items": len(members)}
        for metric in METRICS:
            values = [m[metric] for m in members if m.get(metric) is not None]
            row[metric] = fmean(values) if values else None
        out.append(row)
    return out


def by_class(compound_rows: Iterable[Mapping], human: Mapping, measures: Sequence[str] = MEASURES) -> list[dict]:
    """Each measure's mean per language, condition, level and class (``all`` too), with ``compounds``."""
    groups: dict[tuple, list[Mapping]] = defaultdict(list)
    for row in compound_rows:
        cls = _class_of(human, row["language"], row["compound"])
        key = (row["language"], row["condition"], row["level"])
        groups[(*key, ALL)].append(row)
        if cls:
            groups[(*key, cls)].append(row)
    out = []
    for (language, condition, level, cls), members in sorted(groups.items(), key=lambda kv: _order(kv[0])):
        row = {"language": language, "condition": condition, "level": level, "class": cls, "compounds": len(members)}
        for measure in measures:
            values = [m[measure] for m in members if m.get(measure) is not None]
            row[measure] = fmean(values) if values else None
        out.append(row)
    return out


def _order(key: tuple) -> tuple:
    """Languages sorted, naturalistic before neutral, sentence before nc, ``all`` then the classes in their order."""
    classes = [ALL, *vocabulary.CLASSES]
    ranked = []
    for value in key:
        if value in CONDITIONS:
            ranked.append((0, CONDITIONS.index(value)))
        elif value in LEVELS:
            ranked.append((0, LEVELS.index(value)))
        elif value in classes:
            ranked.append((0, classes.index(value)))
        else:
            ranked.append((1, value))
    return tuple(ranked)
