"""Synonym variants of a compound's words: both (NC_WordsSyn), one side, or one word alone (pure: no Django import).

He et al. (2024, NCIMP §3.1) replace both words of a compound by synonyms from WordNet,
ranked first by how common the senses are and then by how common the words are; the
public release adds one-sided variants. Every function here takes one ``SynonymQuery``: the
compound, its two words, their synonyms (``synonym_lookup``) and words other sources proposed
(the crowd's paraphrases, a model), how common a word is, and, when the generator has a sentence
model, how well each candidate fits the compound's own sentences. Candidates are ranked by the
tuned score of ``scoring`` (its parts are kept in the details under "ranking"); a pair by the sum
of its two words' scores. Words are replaced where they stand (``layout``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from building.lexicon.base import Synonym
from building.rules.synonyms import scoring
from building.rules.synonyms.context_fit import ContextFit, Similarity, context_fit, contexts_of
from building.rules.synonyms.crowd import Paraphrases, support_index, word_key
from building.rules.synonyms.layout import Layout, Replacement, locate
from building.rules.synonyms.scoring import Evidence, Proposal, Score, Weights
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
    language: str = ""  # for the crowd's words (number aside); "" compares them by case and accents only
    crowd: Paraphrases = ()  # the crowd's paraphrases of the compound: the "crowd" feature
    proposals: Sequence[Proposal] = ()  # candidates from other sources (the crowd's words, a model's)
    morphology: object | None = None  # PortugueseMorphology for the "morphology" feature; None: unknown
    weights: Weights | None = None  # None: the recorded (tuned) weights

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


def _usable(options: Sequence[tuple[Synonym, str]], word: str, *others: str) -> list[tuple[Synonym, str]]:
    """(option, source) for ``word`` in order, without the compound's own words and without repeats (case and
    accents aside): a word both the lexicon and the crowd give is the lexicon's.

    A lower-case word is not replaced by a capitalised lemma: "beaver" the animal is not "Oregonian".
    """
    seen = {fold(original) for original in (word, *others)}
    proper_allowed = word[:1].isupper()
    kept = []
    for option, source in options:
        key = fold(option.lemma)
        if not key or key in seen or (option.lemma[:1].isupper() and not proper_allowed):
            continue
        seen.add(key)
        kept.append((option, source))
    return kept


def side_evidence(query: SynonymQuery, side: str, frequency: Frequency | None = None) -> list[tuple[Synonym, Evidence]]:
    """Every usable candidate of ``side`` (the lexicon's in its order, then other sources') with its evidence."""
    word, options = query.side(side)
    frequency = frequency or _cached(query.frequency)
    proposed = [(Synonym(p.word, 0, 0), p.source) for p in query.proposals if p.side == side]
    usable = _usable([*((o, scoring.LEXICON) for o in options), *proposed], word, query.modifier, query.head)
    crowd = support_index(query.crowd, query.language) if query.crowd else {}
    return [
        (
            synonym,
            Evidence(
                word=synonym.lemma,
                source=source,
                sense_rank=synonym.sense_rank,
                frequency=frequency(synonym.lemma),
                context_fit=_fit(query.fit, side, synonym.lemma),
                crowd=crowd.get(word_key(synonym.lemma, query.language), 0),
                morphology=scoring.morphology_fit(query.morphology, word, synonym.lemma, side),
            ),
        )
        for synonym, source in usable
    ]


def _ranked(query: SynonymQuery, side: str, frequency: Frequency) -> list[tuple[Synonym, Score]]:
    """Usable candidates of ``side``, best score first (``scoring.ranked``)."""
    evidence = side_evidence(query, side, frequency)
    by_word = {id(e): s for s, e in evidence}
    return [(by_word[id(score.evidence)], score) for score in scoring.ranked([e for _, e in evidence], query.weights)]


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


def _ranking(**scores: Score) -> dict:
    """What the curator sees of the ranking: each word's source and score parts, and the total."""
    return {
        **{side: s.as_dict() for side, s in scores.items()},
        "total": round(sum(s.total for s in scores.values()), 4),
    }


def words_syn(query: SynonymQuery) -> list[Replacement]:
    """Up to ``query.limit`` compounds with both words replaced: highest sum of both words' scores, then
    lowest sense-rank sum, then most frequent words.

    Raises WordNotInCompound when the modifier or the head is not a word of the compound.
    """
    q = query
    layout = q.layout()
    frequency = _cached(q.frequency)
    modifiers, heads = _ranked(q, "modifier", frequency), _ranked(q, "head", frequency)
    pairs = []
    for m, m_score in modifiers:
        for h, h_score in heads:
            text = layout.replace(modifier=m.lemma, head=h.lemma)
            common = _log(frequency(m.lemma)) + _log(frequency(h.lemma))
            total = -round(m_score.total + h_score.total, 9)
            pairs.append((total, m.sense_rank + h.sense_rank, -common, fold(text), text, m, h, m_score, h_score))
    pairs.sort(key=lambda pair: pair[:4])
    found, seen = [], {fold(q.compound)}
    for _, rank_sum, _, key, text, m, h, m_score, h_score in _diverse(pairs):
        if key in seen:
            continue
        seen.add(key)
        details = {
            "resource": q.resource,
            "sense_rank_sum": rank_sum,
            "modifier": _side(q.modifier, m, frequency(m.lemma), _fit(q.fit, "modifier", m.lemma)),
            "head": _side(q.head, h, frequency(h.lemma), _fit(q.fit, "head", h.lemma)),
            "ranking": _ranking(modifier=m_score, head=h_score),
        }
        found.append(Replacement(vocabulary.SYNONYM_BOTH, text, details))
        if len(found) == q.limit:
            break
    return found


def scored_in_context(
    query: SynonymQuery, contexts: Sequence[tuple[str, Span]], similarity: Similarity, model: str = ""
) -> ContextFit:
    """Both sides' best-ranked candidates (by the score without context) scored in the compound's sentences,
    in one call of ``similarity``.

    Raises WordNotInCompound when the modifier or the head is not a word of the compound.
    """
    layout = query.layout()
    frequency = _cached(query.frequency)
    unscored = query.with_fit(None)
    return context_fit(
        contexts_of(query.compound, contexts),
        query.compound,
        layout.replace,
        [s.lemma for s, _ in _ranked(unscored, "modifier", frequency)],
        [s.lemma for s, _ in _ranked(unscored, "head", frequency)],
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
        m, h = fold(pair[5].lemma), fold(pair[6].lemma)
        if m in modifiers or h in heads:
            rest.append(pair)
        else:
            first.append(pair)
            modifiers.add(m)
            heads.add(h)
    return first + rest


def one_side_synonyms(query: SynonymQuery, side: str) -> list[Replacement]:
    """Up to ``query.limit`` compounds with the ``side`` word replaced by a synonym and the other word kept."""
    layout = query.layout()
    frequency = _cached(query.frequency)
    word, _ = query.side(side)
    kind = vocabulary.SYNONYM_MODIFIER if side == "modifier" else vocabulary.SYNONYM_HEAD
    found, seen = [], {fold(query.compound)}
    for synonym, score in _ranked(query, side, frequency):
        text = layout.replace(**{side: synonym.lemma})
        if fold(text) in seen:
            continue
        seen.add(fold(text))
        details = {
            "resource": query.resource,
            side: _side(word, synonym, frequency(synonym.lemma), _fit(query.fit, side, synonym.lemma)),
            "ranking": _ranking(**{side: score}),
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
    word, _ = query.side(side)
    kind = vocabulary.MODIFIER_SYNONYM_ONLY if side == "modifier" else vocabulary.HEAD_SYNONYM_ONLY
    frequency = _cached(query.frequency)
    return [
        Replacement(
            kind,
            s.lemma,
            {
                "resource": query.resource,
                side: _side(word, s, frequency(s.lemma), _fit(query.fit, side, s.lemma)),
                "ranking": _ranking(**{side: score}),
            },
        )
        for s, score in _ranked(query, side, frequency)[: query.limit]
    ]
