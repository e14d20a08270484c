"""Generic variants: a word of the compound, or the whole compound, replaced by a word that means little (pure: no Django import).

The public NCIMP release has them ("thing game", "arcade thing", "coisa doce"): a compound whose
meaning survives a generic modifier is read through its head.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from building.rules.synonyms.layout import Replacement, locate
from building.rules.synonyms.lookup import language_key
from datasets import vocabulary


@dataclass(frozen=True)
class GenericWords:
    modifier: str  # replaces the modifier ("thing game", "água normal")
    head: str  # replaces the head ("arcade thing", "coisa doce")
    compound: str  # replaces the whole compound


GENERIC_WORDS = {
    "en": GenericWords(modifier="thing", head="thing", compound="normal thing"),
    "pt": GenericWords(modifier="normal", head="coisa", compound="coisa normal"),
}


def generic_words(language: str) -> GenericWords:
    try:
        return GENERIC_WORDS[language_key(language)]
    except KeyError:
        raise ValueError(f"no generic words for language {language!r} (known: {', '.join(GENERIC_WORDS)})") from None


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
