"""A compound's modifier and head looked up in a lexicon, in their roles in the compound (pure: no Django import).

He et al. (2024, NCIMP §3.1) take the synonyms of both words from WordNet, best sense first. The
head is looked up as a noun; the modifier in the part of speech it has in the compound (a
Portuguese modifier after its head is an adjective whenever the lexicon knows it as one).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from building.lexicon.base import ADJECTIVE, NOUN, Lexicon, Synonym, preferred_pos
from building.rules.grammar.inflection import pt_adjective_gender, pt_adjective_lemma, pt_inflect_adjective
from building.rules.synonyms.offensive import OffensiveWords

# Which part of speech to look a modifier up as, when the lexicon uses it in both equally.
MODIFIER_POS = {"en": (NOUN, ADJECTIVE), "pt": (ADJECTIVE, NOUN)}


@dataclass(frozen=True)
class SynonymLookup:
    """Both words' synonyms from one lexicon, best sense first."""

    resource: str
    modifier_pos: str
    modifier: list[Synonym]
    head: list[Synonym]


def language_key(language: str) -> str:
    return language.split("-")[0].casefold()


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
