"""Synonym variants of a compound's words: both (NC_WordsSyn), one side, or one word alone (pure: no Django import).

He et al. (2024, NCIMP §3.1) replace both words of a compound by synonyms from WordNet,
ranked first by how common the senses are and then by how common the words are; the
public release adds one-sided variants. Every function here takes one ``SynonymQuery``: the
compound, its two words, their synonyms (``synonym_lookup``), how common a word is, and, when
the generator has a sentence model, how well each synonym fits the compound's own sentences.
Words are replaced where they stand (``layout``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from building.lexicon.base import Synonym
from building.rules.synonyms.context_fit import ContextFit, Similarity, context_fit, contexts_of
from building.rules.synonyms.layout import Layout, Replacement, locate
from datasets import vocabulary
from datasets.formats.spans import Span, fold

LIMIT = 5
# Below wordfreq's smallest value: a word it does not know ranks after every word it knows.
FREQUENCY_FLOOR = 1e-4  # per million

Frequency = Callable[[str], float]
SIDES = ("modifier", "head")


@dataclass(frozen=True)
class SynonymQuery:
    """What every synonym variant of one compound is built from, and how many of each kind to keep."""

    compound: str
    modifier: str
    head: str
    modifier_synonyms: Sequence[Synonym]
    head_synonyms: Sequence[Synonym]
    frequency: Frequency
    resource: str = ""
    limit: int = LIMIT
    fit: ContextFit | None = None

    def layout(self) -> Layout:
        """Where both words stand; raises WordNotInCompound when one is not a word of the compound."""
        return locate(self.compound, self.modifier, self.head)

    def side(self, side: str) -> tuple[str, Sequence[Synonym]]:
        """The word of ``side`` ("modifier" or "head") and its synonyms."""
        if side not in SIDES:
            raise ValueError(f"side must be 'modifier' or 'head', not {side!r}")
        return (self.modifier, self.modifier_synonyms) if side == "modifier" else (self.head, self.head_synonyms)

    def with_fit(self, fit: ContextFit | None) -> SynonymQuery:
        return replace(self, fit=fit)


def _cached(frequency: Frequency) -> Frequency:
    seen: dict[str, float] = {}

    def lookup(word: str) -> float:
        if word not in seen:
            seen[word] = frequency(word)
        return seen[word]

    return lookup


def _log(value: float) -> float:
    return math.log10(max(value, FREQUENCY_FLOOR))


def _usable(options: Sequence[Synonym], word: str, *others: str) -> list[Synonym]:
    """Options for ``word`` in order, without the compound's own words and without repeats (case and accents aside).

    A lower-case word is not replaced by a capitalised lemma: "beaver" the animal is not "Oregonian".
    """
    seen = {fold(original) for original in (word, *others)}
    proper_allowed = word[:1].isupper()
    kept = []
    for option in options:
        key = fold(option.lemma)
        if key in seen or (option.lemma[:1].isupper() and not proper_allowed):
            continue
        seen.add(key)
        kept.append(option)
    return kept


def _side(word: str, synonym: Synonym, frequency: float, fit: float | None = None) -> dict:
    found = {
        "word": word,
        "synonym": synonym.lemma,
        "sense_rank": synonym.sense_rank,
        "count": synonym.count,
        "frequency": frequency,
    }
    return found if fit is None else {**found, "context_fit": round(fit, 4)}


def _fit(fit: ContextFit | None, side: str, word: str) -> float | None:
    return fit.score(side, word) if fit else None


def _pair_key(fit: ContextFit | None, m: Synonym, h: Synonym) -> tuple[int, float]:
    """Pairs whose both words were scored in context first, by the sum of their fits."""
    if fit is None:
        return (0, 0.0)
    a, b = fit.score("modifier", m.lemma), fit.score("head", h.lemma)
    return ((a is None) + (b is None), -((a or 0.0) + (b or 0.0)))


def words_syn(query: SynonymQuery) -> list[Replacement]:
    """Up to ``query.limit`` compounds with both words replaced: best fit in the compound's sentences
    (``query.fit``), then lowest sense-rank sum, then most frequent words.

    Raises WordNotInCompound when the modifier or the head is not a word of the compound.
    """
    q = query
    layout = q.layout()
    frequency = _cached(q.frequency)
    modifiers = _usable(q.modifier_synonyms, q.modifier, q.head)
    heads = _usable(q.head_synonyms, q.head, q.modifier)
    pairs = []
    for m in modifiers:
        for h in heads:
            text = layout.replace(modifier=m.lemma, head=h.lemma)
            score = _log(frequency(m.lemma)) + _log(frequency(h.lemma))
            pairs.append((_pair_key(q.fit, m, h), m.sense_rank + h.sense_rank, -score, fold(text), text, m, h))
    pairs.sort(key=lambda pair: pair[:4])
    found, seen = [], {fold(q.compound)}
    for _, rank_sum, _, key, text, m, h in _diverse(pairs):
        if key in seen:
            continue
        seen.add(key)
        details = {
            "resource": q.resource,
            "sense_rank_sum": rank_sum,
            "modifier": _side(q.modifier, m, frequency(m.lemma), _fit(q.fit, "modifier", m.lemma)),
            "head": _side(q.head, h, frequency(h.lemma), _fit(q.fit, "head", h.lemma)),
        }
        found.append(Replacement(vocabulary.SYNONYM_BOTH, text, details))
        if len(found) == q.limit:
            break
    return found


def scored_in_context(
    query: SynonymQuery, contexts: Sequence[tuple[str, Span]], similarity: Similarity, model: str = ""
) -> ContextFit:
    """Both sides' best-ranked synonyms scored in the compound's sentences, in one call of ``similarity``.

    Raises WordNotInCompound when the modifier or the head is not a word of the compound.
    """
    layout = query.layout()
    frequency = _cached(query.frequency)
    others = (query.modifier, query.head)
    return context_fit(
        contexts_of(query.compound, contexts),
        query.compound,
        layout.replace,
        [s.lemma for s in _ranked(query.modifier_synonyms, query.modifier, others, frequency)],
        [s.lemma for s in _ranked(query.head_synonyms, query.head, others, frequency)],
        similarity,
        model,
    )


def _diverse(pairs: list[tuple]) -> list[tuple]:
    """The ranked pairs, those that bring a new modifier and a new head first.

    Ranked by sense alone, the five pairs mostly combine one head with five modifiers; the
    experts' five vary both words. Within each pass the ranking is kept.
    """
    first, rest, modifiers, heads = [], [], set(), set()
    for pair in pairs:
        m, h = fold(pair[-2].lemma), fold(pair[-1].lemma)
        if m in modifiers or h in heads:
            rest.append(pair)
        else:
            first.append(pair)
            modifiers.add(m)
            heads.add(h)
    return first + rest


def _ranked(
    options: Sequence[Synonym],
    word: str,
    others: Sequence[str],
    frequency: Frequency,
    fit: ContextFit | None = None,
    side: str = "",
) -> list[Synonym]:
    """Usable options by fit in the compound's sentences when scored, then sense rank, then most frequent
    first, then alphabetically."""

    def key(s: Synonym) -> tuple:
        in_context = fit.rank_key(side, s.lemma) if fit else (0, 0.0)
        return (in_context, s.sense_rank, -_log(frequency(s.lemma)), fold(s.lemma))

    return sorted(_usable(options, word, *others), key=key)


def one_side_synonyms(query: SynonymQuery, side: str) -> list[Replacement]:
    """Up to ``query.limit`` compounds with the ``side`` word replaced by a synonym and the other word kept."""
    layout = query.layout()
    frequency = _cached(query.frequency)
    word, options = query.side(side)
    kind = vocabulary.SYNONYM_MODIFIER if side == "modifier" else vocabulary.SYNONYM_HEAD
    found, seen = [], {fold(query.compound)}
    for synonym in _ranked(options, word, (query.modifier, query.head), frequency, query.fit, side):
        text = layout.replace(**{side: synonym.lemma})
        if fold(text) in seen:
            continue
        seen.add(fold(text))
        details = {
            "resource": query.resource,
            side: _side(word, synonym, frequency(synonym.lemma), _fit(query.fit, side, synonym.lemma)),
        }
        found.append(Replacement(kind, text, details))
        if len(found) == query.limit:
            break
    return found


def modifier_synonyms(query: SynonymQuery) -> list[Replacement]:
    """Up to ``query.limit`` compounds with the modifier replaced by a synonym and the head kept."""
    return one_side_synonyms(query, "modifier")


def head_synonyms(query: SynonymQuery) -> list[Replacement]:
    """Up to ``query.limit`` compounds with the head replaced by a synonym and the modifier kept."""
    return one_side_synonyms(query, "head")


def lone_synonyms(query: SynonymQuery, side: str) -> list[Replacement]:
    """Up to ``query.limit`` synonyms of one word standing alone ("only modifier synonym", "only head synonym")."""
    word, options = query.side(side)
    kind = vocabulary.MODIFIER_SYNONYM_ONLY if side == "modifier" else vocabulary.HEAD_SYNONYM_ONLY
    frequency = _cached(query.frequency)
    ranked = _ranked(options, word, (query.modifier, query.head), frequency, query.fit, side)
    return [
        Replacement(
            kind,
            s.lemma,
            {"resource": query.resource, side: _side(word, s, frequency(s.lemma), _fit(query.fit, side, s.lemma))},
        )
        for s in ranked[: query.limit]
    ]
