"""Synonym-of-the-words variants (NC_WordsSyn) and generic variants (pure: no Django import).

He et al. (2024, NCIMP §3.1) replace both words of a compound by synonyms from WordNet,
ranked first by how common the senses are and then by how common the words are; the
public release adds one-sided variants and generic words ("thing game", "arcade thing").
Each word is replaced where it stands in the compound's text, so English keeps
modifier-head order ("front man" → "forepart serviceman") and Portuguese head-modifier
order ("água doce" → "líquido açucarado"), and longer compounds keep their other words
("pé de moleque").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace

from building.lexicon.base import ADJECTIVE, NOUN, Lexicon, Synonym, preferred_pos
from building.rules.context_fit import ContextFit, Similarity, context_fit, contexts_of
from building.rules.inflection import pt_adjective_gender, pt_adjective_lemma, pt_inflect_adjective
from building.rules.offensive import OffensiveWords
from datasets import vocabulary
from datasets.formats.spans import Span, fold

LIMIT = 5
# Below wordfreq's smallest value: a word it does not know ranks after every word it knows.
FREQUENCY_FLOOR = 1e-4  # per million

Frequency = Callable[[str], float]


@dataclass(frozen=True)
class GenericWords:
    modifier: str  # replaces the modifier ("thing game", "água normal")
    head: str  # replaces the head ("arcade thing", "coisa doce")
    compound: str  # replaces the whole compound


GENERIC_WORDS = {
    "en": GenericWords(modifier="thing", head="thing", compound="normal thing"),
    "pt": GenericWords(modifier="normal", head="coisa", compound="coisa normal"),
}
# Which part of speech to look a modifier up as, when the lexicon uses it in both equally.
MODIFIER_POS = {"en": (NOUN, ADJECTIVE), "pt": (ADJECTIVE, NOUN)}


class WordNotInCompound(ValueError):
    """The modifier or head is not a word of the compound's text, so it cannot be replaced in place."""


@dataclass(frozen=True)
class Replacement:
    """A variant's text, its kind (``datasets.vocabulary``) and where it came from."""

    kind: str
    text: str
    details: dict = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Layout:
    """Where the modifier and the head stand in the compound's text."""

    compound: str
    modifier: Span
    head: Span

    def replace(self, modifier: str | None = None, head: str | None = None) -> str:
        changes = sorted(
            [(span, word) for span, word in ((self.modifier, modifier), (self.head, head)) if word is not None]
        )
        parts, end = [], 0
        for (start, stop), word in changes:
            parts += [self.compound[end:start], word]
            end = stop
        return "".join(parts) + self.compound[end:]


@dataclass(frozen=True)
class SynonymLookup:
    """Both words' synonyms from one lexicon, best sense first."""

    resource: str
    modifier_pos: str
    modifier: list[Synonym]
    head: list[Synonym]


def language_key(language: str) -> str:
    return language.split("-")[0].casefold()


def generic_words(language: str) -> GenericWords:
    try:
        return GENERIC_WORDS[language_key(language)]
    except KeyError:
        raise ValueError(f"no generic words for language {language!r} (known: {', '.join(GENERIC_WORDS)})") from None


def modifier_role(lexicon: Lexicon, modifier: str, language: str, compound: str = "") -> str:
    """The modifier's part of speech in the compound.

    A Portuguese modifier right after its head ("campo militar", "água doce", "ficha limpa") is an
    adjective whenever the lexicon knows it (or its masculine singular) as one, however often it is
    a noun elsewhere; otherwise the part of speech the lexicon uses it most in ("eager": adjective).
    """
    choices = MODIFIER_POS.get(language_key(language), (NOUN, ADJECTIVE))
    if language_key(language) == "pt" and len(compound.split()) == 2:
        # A feminine or plural adjective ("ficha limpa", "planta baixa") is known by its masculine lemma.
        if lexicon.usage(modifier, ADJECTIVE) or lexicon.usage(pt_adjective_lemma(modifier), ADJECTIVE):
            return ADJECTIVE
    return preferred_pos(lexicon, modifier, choices)


def lookup_synonyms(lexicon: Lexicon, modifier: str, head: str, language: str, compound: str = "") -> SynonymLookup:
    """The head as a noun; the modifier in its role in ``compound`` (:func:`modifier_role`)."""
    modifier_pos = modifier_role(lexicon, modifier, language, compound)
    lemma = pt_adjective_lemma(modifier) if language_key(language) == "pt" else modifier
    # Thesauri list adjectives in the masculine singular: "alcoólica" is looked up as "alcoólico"
    # and its synonyms take the modifier's gender ("etílica"). The feminine form's own entries are
    # mostly the noun ("a baixa": descida, desconto), so the lemma wins when the thesaurus knows it.
    by_lemma = lemma != modifier and modifier_pos == ADJECTIVE and lexicon.usage(lemma, ADJECTIVE) > 0
    modifier_found = [] if by_lemma else lexicon.synonyms(modifier, modifier_pos)
    if not modifier_found and lemma != modifier:
        gender = pt_adjective_gender(modifier) or "m"
        modifier_pos = modifier_role(lexicon, lemma, language, compound)
        modifier_found = [
            replace(s, lemma=pt_inflect_adjective(s.lemma, gender)) for s in lexicon.synonyms(lemma, modifier_pos)
        ]
    return SynonymLookup(lexicon.name, modifier_pos, modifier_found, lexicon.synonyms(head, NOUN))


def without_offensive(found: SynonymLookup, offensive: OffensiveWords) -> SynonymLookup:
    """The lookup less every synonym on the language's offensive-word list."""
    return replace(
        found,
        modifier=[s for s in found.modifier if not offensive.blocks(s.lemma)],
        head=[s for s in found.head if not offensive.blocks(s.lemma)],
    )


def _occurrences(compound: str, word: str) -> list[Span]:
    tokens = list(re.finditer(r"\w+", compound))
    wanted = [fold(part) for part in re.findall(r"\w+", word)]
    if not wanted:
        return []
    found = []
    for i in range(len(tokens) - len(wanted) + 1):
        if [fold(token.group()) for token in tokens[i : i + len(wanted)]] == wanted:
            found.append((tokens[i].start(), tokens[i + len(wanted) - 1].end()))
    return found


def locate(compound: str, modifier: str, head: str) -> Layout:
    """Find both words in ``compound`` (case- and accent-insensitive); raises WordNotInCompound."""
    modifiers, heads = _occurrences(compound, modifier), _occurrences(compound, head)
    if not modifiers:
        raise WordNotInCompound(f"the modifier {modifier!r} is not a word of {compound!r}")
    if not heads:
        raise WordNotInCompound(f"the head {head!r} is not a word of {compound!r}")
    first_modifier = modifiers[0]
    # A repeated word ("bye bye"): the head is its last other occurrence.
    apart = [span for span in heads if span[1] <= first_modifier[0] or span[0] >= first_modifier[1]]
    if not apart:
        raise WordNotInCompound(f"the modifier {modifier!r} and the head {head!r} overlap in {compound!r}")
    return Layout(compound, first_modifier, apart[-1])


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


def words_syn(
    compound: str,
    modifier: str,
    head: str,
    modifier_synonyms: Sequence[Synonym],
    head_synonyms: Sequence[Synonym],
    frequency: Frequency,
    resource: str = "",
    limit: int = LIMIT,
    fit: ContextFit | None = None,
) -> list[Replacement]:
    """Up to ``limit`` compounds with both words replaced: best fit in the compound's sentences (``fit``),
    then lowest sense-rank sum, then most frequent words.

    Raises WordNotInCompound when the modifier or the head is not a word of ``compound``.
    """
    layout = locate(compound, modifier, head)
    frequency = _cached(frequency)
    modifiers, heads = _usable(modifier_synonyms, modifier, head), _usable(head_synonyms, head, modifier)
    pairs = []
    for m in modifiers:
        for h in heads:
            text = layout.replace(modifier=m.lemma, head=h.lemma)
            score = _log(frequency(m.lemma)) + _log(frequency(h.lemma))
            pairs.append((_pair_key(fit, m, h), m.sense_rank + h.sense_rank, -score, fold(text), text, m, h))
    pairs.sort(key=lambda pair: pair[:4])
    found, seen = [], {fold(compound)}
    for _, rank_sum, _, key, text, m, h in _diverse(pairs):
        if key in seen:
            continue
        seen.add(key)
        details = {
            "resource": resource,
            "sense_rank_sum": rank_sum,
            "modifier": _side(modifier, m, frequency(m.lemma), _fit(fit, "modifier", m.lemma)),
            "head": _side(head, h, frequency(h.lemma), _fit(fit, "head", h.lemma)),
        }
        found.append(Replacement(vocabulary.SYNONYM_BOTH, text, details))
        if len(found) == limit:
            break
    return found


def scored_in_context(
    compound: str,
    modifier: str,
    head: str,
    modifier_synonyms: Sequence[Synonym],
    head_synonyms: Sequence[Synonym],
    frequency: Frequency,
    contexts: Sequence[tuple[str, Span]],
    similarity: Similarity,
    model: str = "",
    **_: object,
) -> ContextFit:
    """Both sides' best-ranked synonyms scored in the compound's sentences, in one call of ``similarity``.

    Raises WordNotInCompound when the modifier or the head is not a word of ``compound``.
    """
    layout = locate(compound, modifier, head)
    frequency = _cached(frequency)
    others = (modifier, head)
    return context_fit(
        contexts_of(compound, contexts),
        compound,
        layout.replace,
        [s.lemma for s in _ranked(modifier_synonyms, modifier, others, frequency)],
        [s.lemma for s in _ranked(head_synonyms, head, others, frequency)],
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


def _one_side(
    side: str,
    compound: str,
    modifier: str,
    head: str,
    options: Sequence[Synonym],
    frequency: Frequency,
    resource: str,
    limit: int,
    fit: ContextFit | None = None,
) -> list[Replacement]:
    layout = locate(compound, modifier, head)
    frequency = _cached(frequency)
    word = modifier if side == "modifier" else head
    kind = vocabulary.SYNONYM_MODIFIER if side == "modifier" else vocabulary.SYNONYM_HEAD
    found, seen = [], {fold(compound)}
    for synonym in _ranked(options, word, (modifier, head), frequency, fit, side):
        text = layout.replace(**{side: synonym.lemma})
        if fold(text) in seen:
            continue
        seen.add(fold(text))
        details = {
            "resource": resource,
            side: _side(word, synonym, frequency(synonym.lemma), _fit(fit, side, synonym.lemma)),
        }
        found.append(Replacement(kind, text, details))
        if len(found) == limit:
            break
    return found


def modifier_synonyms(
    compound: str,
    modifier: str,
    head: str,
    modifier_synonyms: Sequence[Synonym],
    head_synonyms: Sequence[Synonym],
    frequency: Frequency,
    resource: str = "",
    limit: int = LIMIT,
    fit: ContextFit | None = None,
) -> list[Replacement]:
    """Up to ``limit`` compounds with the modifier replaced by a synonym and the head kept."""
    return _one_side("modifier", compound, modifier, head, modifier_synonyms, frequency, resource, limit, fit)


def head_synonyms(
    compound: str,
    modifier: str,
    head: str,
    modifier_synonyms: Sequence[Synonym],
    head_synonyms: Sequence[Synonym],
    frequency: Frequency,
    resource: str = "",
    limit: int = LIMIT,
    fit: ContextFit | None = None,
) -> list[Replacement]:
    """Up to ``limit`` compounds with the head replaced by a synonym and the modifier kept."""
    return _one_side("head", compound, modifier, head, head_synonyms, frequency, resource, limit, fit)


def lone_synonyms(
    compound: str,
    modifier: str,
    head: str,
    modifier_synonyms: Sequence[Synonym],
    head_synonyms: Sequence[Synonym],
    frequency: Frequency,
    resource: str = "",
    limit: int = LIMIT,
    fit: ContextFit | None = None,
    *,
    side: str,
) -> list[Replacement]:
    """Up to ``limit`` synonyms of one word standing alone ("only modifier synonym", "only head synonym")."""
    if side not in ("modifier", "head"):
        raise ValueError(f"side must be 'modifier' or 'head', not {side!r}")
    word, options = (modifier, modifier_synonyms) if side == "modifier" else (head, head_synonyms)
    kind = vocabulary.MODIFIER_SYNONYM_ONLY if side == "modifier" else vocabulary.HEAD_SYNONYM_ONLY
    frequency = _cached(frequency)
    return [
        Replacement(
            kind, s.lemma, {"resource": resource, side: _side(word, s, frequency(s.lemma), _fit(fit, side, s.lemma))}
        )
        for s in _ranked(options, word, (modifier, head), frequency, fit, side)[:limit]
    ]


def generic_variants(compound: str, modifier: str, head: str, language: str) -> list[Replacement]:
    """Generic modifier, generic head, both generic (in place) and the generic compound.

    Raises WordNotInCompound when the modifier or the head is not a word of ``compound``.
    """
    words = generic_words(language)
    layout = locate(compound, modifier, head)
    variants = [
        (vocabulary.GENERIC_MODIFIER, layout.replace(modifier=words.modifier)),
        (vocabulary.GENERIC_HEAD, layout.replace(head=words.head)),
        (vocabulary.GENERIC_BOTH, layout.replace(modifier=words.modifier, head=words.head)),
        (vocabulary.GENERIC_COMPOUND, words.compound),
    ]
    return [
        Replacement(kind, text, {"language": language_key(language), "generic": asdict(words)})
        for kind, text in variants
    ]


def generic_replacements(compound: str, modifier: str, head: str, language: str) -> dict[str, str]:
    """The generic variants as kind → text."""
    return {r.kind: r.text for r in generic_variants(compound, modifier, head, language)}
