"""Portuguese agreement: a replacement's words and the words around it take its head's gender and number (pure).

"os grandes abalos sísmicos" with "trepidação" for "abalo" becomes "as grandes trepidações
sísmicas": the head's gender comes from a morphological dictionary
(``building.lexicon.portuguese_morphology``, injected), and so do the forms of the
adjectives inside the replacement, of the adjectives right after it, and of the words before
it that agree with the old head (articles, contractions such as do/da, no/na, ao/à, pelo/pela,
num/numa, demonstratives, possessives, quantifiers and adjectives: "nestes grandes" →
"nestas grandes"). A contraction ends the scan: what comes before it belongs to another
phrase. A word the dictionary does not know is left as it is and flagged for a curator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from building.lexicon.portuguese_morphology import (
    ADJECTIVES,
    ARTICLE,
    BOTH,
    CONJUNCTIONS,
    CONTRACTION,
    DETERMINERS,
    FUNCTION_WORDS,
    INDEFINITE,
    NOMINAL,
    NOUN,
    NOUNS,
    Analysis,
)
from building.rules.grammar.inflection import PT_PREPOSITIONS, Flags, pluralise
from building.rules.grammar.sentence_words import same_case

# How far agreement reaches: "em todas as suas grandes trepidações sísmicas fortes".
WORDS_BEFORE = 4
WORDS_AFTER = 2
_AGREEING_BEFORE = DETERMINERS | ADJECTIVES
# After a noun these are the verb far more often than the adjective ("são" are, not sane);
# the dictionary's nominal table does not hold verb forms to tell.
_VERBS_AFTER = frozenset({"são"})


class Morphology(Protocol):
    def analyse(self, word: str, categories: frozenset[str]) -> list[Analysis]: ...

    def noun_gender(self, word: str) -> str | None: ...

    def inflect(self, word: str, categories: frozenset[str], gender: str, number: str) -> str | None: ...


@dataclass(frozen=True)
class Phrase:
    """A replacement with its words agreeing; ``gender`` is its head's ("m"/"f"), None when not known."""

    text: str
    gender: str | None
    flags: Flags = ()


def head_index(words: list[str], morphology: Morphology, head: str | None = None) -> int | None:
    """The head noun among a phrase's words before any preposition, None when the dictionary cannot tell.

    ``head``, when the caller knows it (the synonym that replaced the compound's head), is
    looked for first; it must be a noun the dictionary knows. Otherwise a word that is only
    a noun comes first ("alta temporada", "abalo sísmico"), then the first that can be a
    noun ("plano baixo"). An unknown word before it may be the head itself ("trepidação
    clínico"), so then nothing is known.
    """
    group = _noun_group(words)
    if head:
        first = head.split()[0].casefold()
        for i, word in enumerate(group):
            if word.casefold() == first:
                return i if morphology.analyse(word, NOUNS) else None
    readings = [{a.category for a in morphology.analyse(word, NOMINAL)} for word in group]
    noun_only = [i for i, r in enumerate(readings) if NOUN in r and not r & ADJECTIVES]
    can_be_noun = [i for i, r in enumerate(readings) if r & NOUNS]
    found = (noun_only or can_be_noun or [None])[0]
    if found is None or any(
        not r and w.casefold() not in FUNCTION_WORDS for w, r in zip(group[:found], readings[:found], strict=True)
    ):
        return None
    return found


def phrase_gender(phrase: str, morphology: Morphology) -> str | None:
    """The gender of a phrase's head noun ("m", "f", "_" for either), None when the dictionary does not know it."""
    words = phrase.split()
    i = head_index(words, morphology)
    return None if i is None else morphology.noun_gender(words[i])


def agree_phrase(
    phrase: str, morphology: Morphology, *, plural: bool, either: str | None = None, head: str | None = None
) -> Phrase:
    """``phrase`` (a replacement, as a thesaurus gives it) in the number asked, its adjectives agreeing with its head.

    ``either`` is the gender to use when the head takes both ("o/a artista"): the
    original's; ``head`` the head word when known (see ``head_index``). Words after a
    preposition are a complement and stay as they are ("tremor de terra" → "tremores de terra").
    """
    words = phrase.split()
    number = "p" if plural else "s"
    i = head_index(words, morphology, head)
    if i is None:
        text, flags = pluralise(phrase, "pt") if plural else (phrase, ())
        shown = (head or phrase).split()[0]
        note = f"agreement: '{shown}' is not a noun in the Portuguese dictionary; check what agrees with it"
        return Phrase(text, None, (*flags, note))
    gender = morphology.noun_gender(words[i]) or BOTH
    if gender == BOTH:
        gender = either or BOTH
    flags: list[str] = []
    out = list(words)
    group = _noun_group(words)
    for j, word in enumerate(group):
        if j != i and word.casefold() in FUNCTION_WORDS:
            # A closed-class word the dictionary is not asked about ("o", "um"): kept, and said only when
            # the number changes, since an article or determiner then changes with it.
            if plural:
                flags.append(f"agreement: '{word}' kept as it is; check it agrees with '{words[i]}' in the plural")
            continue
        if j == i:
            categories = frozenset({NOUN}) if morphology.analyse(word, frozenset({NOUN})) else NOUNS
            new = morphology.inflect(word, categories, _own_gender(word, categories, morphology), number)
        else:
            new = morphology.inflect(word, ADJECTIVES, gender, number) if gender != BOTH else None
            if new is None and gender == BOTH and morphology.analyse(word, ADJECTIVES):
                new = morphology.inflect(word, ADJECTIVES, _own_gender(word, ADJECTIVES, morphology), number)
            if new is None and not morphology.analyse(word, ADJECTIVES):
                if not morphology.analyse(word, NOUNS):
                    flags.append(
                        f"agreement: '{word}' is not in the Portuguese dictionary; check it agrees with '{words[i]}'"
                    )
                # A noun as modifier agrees when it has both genders ("trabalho escravo" → "tarefa
                # escrava") and keeps its own otherwise ("peixe espada").
                new = morphology.inflect(word, NOUNS, gender, number) if gender != BOTH else None
                new = new or word
        if new is None:
            new, note = _plural_guess(word) if plural else (word, None)
            flags.extend([note] if note else [])
        out[j] = same_case(word, new)
    rest = words[len(group) :]
    if plural and rest and rest[0].casefold() in CONJUNCTIONS:
        flags.append(f"agreement: '{' '.join(rest[1:])}' after '{rest[0]}' kept as it is; check its number")
    return Phrase(" ".join(out), None if gender == BOTH else gender, tuple(flags))


def agree_before(words: list[str], old: Analysis, gender: str, morphology: Morphology) -> list[str]:
    """The words before a replacement (nearest first) that agreed with the old head, in ``gender``.

    Returns the new words for the ones rewritten (possibly fewer than given): the scan stops
    at a word that does not agree with the old head, and after a contraction.
    """
    out: list[str] = []
    categories = _AGREEING_BEFORE
    for word in words[:WORDS_BEFORE]:
        reading = _agreeing(word, categories, old, morphology)
        if reading is None:
            break
        out.append(morphology.inflect(word, categories, gender, reading.number) or word)
        if morphology.analyse(word, frozenset({CONTRACTION})):
            break
        if morphology.analyse(word, frozenset({ARTICLE})):
            # Before an article only "todos", "ambos" belong to the phrase ("tornado uma carga" does not).
            categories = frozenset({INDEFINITE})
    return out


def agree_after(words: list[str], old: Analysis, gender: str, morphology: Morphology) -> list[str]:
    """The adjectives right after a replacement that agreed with the old head, in ``gender``."""
    out: list[str] = []
    for word in words[:WORDS_AFTER]:
        if word.casefold() in _VERBS_AFTER:
            break
        reading = _agreeing(word, ADJECTIVES, old, morphology)
        if reading is None or morphology.analyse(word, frozenset({NOUN})):
            break  # a noun after the compound starts another phrase ("abalos sísmicos terremotos")
        out.append(morphology.inflect(word, ADJECTIVES, gender, reading.number) or word)
    return out


def old_head(surface: str, morphology: Morphology) -> Analysis | None:
    """The reading of the replaced compound's head as it occurs ("abalos" → abalo, m, plural)."""
    words = surface.split()
    i = head_index(words, morphology)
    if i is None:
        return None
    readings = morphology.analyse(words[i], NOUNS)
    return readings[0] if readings else None


def _agreeing(word: str, categories: frozenset[str], old: Analysis, morphology: Morphology) -> Analysis | None:
    """``word``'s reading that agrees with the old head in gender and number, if any."""
    for reading in morphology.analyse(word, categories):
        if reading.gender in (old.gender, BOTH) and reading.number in (old.number, BOTH):
            return reading
    return None


def _own_gender(word: str, categories: frozenset[str], morphology: Morphology) -> str:
    genders = {a.gender for a in morphology.analyse(word, categories)}
    return genders.pop() if len(genders) == 1 else BOTH


def _noun_group(words: list[str]) -> list[str]:
    """The words before the first preposition or conjunction (after the first word).

    After a preposition comes a complement ("tremor de terra"), after a conjunction another
    conjunct ("pão e manteiga"): neither agrees with the head, and both stay as they are.
    """
    for i, word in enumerate(words[1:], start=1):
        if word.casefold() in PT_PREPOSITIONS or word.casefold() in CONJUNCTIONS:
            return words[:i]
    return words


def _plural_guess(word: str) -> tuple[str, str | None]:
    text, flags = pluralise(word, "pt")
    return text, flags[0] if flags else None
