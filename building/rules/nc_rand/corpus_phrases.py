"""Real two-word phrases read from a language's own sentences, for the NC_Rand pool (pure: no Django import).

The experts who made NCIMP's Portuguese random compounds took free adjective-noun phrases
from a corpus ("índios aculturados", "preceitos rígidos"); the Portuguese thesauri hold a few
dozen two-word entries, most of them not phrases anyone writes. Here every noun followed by
an adjective that agrees with it in gender and number, in sentences the workbench holds,
becomes a candidate in the singular ("preceito rígido"), which the realiser inflects again
in each sentence. Parts of speech, gender and number come from the Hunspell morphology
(``building.lexicon.portuguese_morphology``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from building.lexicon.portuguese_morphology import (
    ADJECTIVE,
    BOTH,
    FUNCTION_WORDS,
    NOUN,
    NOUN_OR_ADJECTIVE,
    Analysis,
    PortugueseMorphology,
)

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
# The first word a noun only: a noun-adjective ("clínico") first makes mostly two adjectives;
# the second an adjective, or a word that is both ("branca").
NOUNS_ONLY = frozenset({NOUN})
ADJECTIVES_ONLY = frozenset({ADJECTIVE, NOUN_OR_ADJECTIVE})


def _agree(noun: Analysis, adjective: Analysis) -> bool:
    return all(a == b or BOTH in (a, b) for a, b in ((noun.gender, adjective.gender), (noun.number, adjective.number)))


def _singular(
    morphology: PortugueseMorphology, words: tuple[str, str], noun: Analysis, adjective: Analysis
) -> str | None:
    """The pair in the singular, each word in its own spelling ("fenômenos atmosféricos" → "fenômeno atmosférico")."""
    gender = noun.gender if noun.gender != BOTH else adjective.gender
    head = morphology.inflect(words[0], NOUNS_ONLY, noun.gender, "s")
    modifier = morphology.inflect(words[1], ADJECTIVES_ONLY, gender, "s")
    return f"{head} {modifier}" if head and modifier else None


def noun_adjective_phrases(texts: Iterable[str], morphology: PortugueseMorphology) -> list[str]:
    """Each agreeing noun + adjective pair of ``texts`` once, in the singular, in order of first occurrence."""
    found: dict[str, str] = {}
    for text in texts:
        words = _WORD.findall(text)
        for first, second in zip(words, words[1:], strict=False):
            if "-" in first + second or {first.casefold(), second.casefold()} & FUNCTION_WORDS:
                continue
            pairs = [
                (noun, adjective)
                for noun in morphology.analyse(first, NOUNS_ONLY)
                for adjective in morphology.analyse(second, ADJECTIVES_ONLY)
                if _agree(noun, adjective)
            ]
            for noun, adjective in pairs[:1]:
                phrase = _singular(morphology, (first, second), noun, adjective)
                if phrase:
                    found.setdefault(phrase.casefold(), phrase)
    return list(found.values())
