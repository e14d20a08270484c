"""Words never proposed as variants: a maintained offensive-word list per language (pure: no Django import).

The lists are glin-profanity's (MIT, on PyPI, English and Portuguese among its languages),
chosen over better-profanity (English only, unreleased since 2020) and safetext (its
Portuguese list is similar but the package pulls in a language detector and an HTTP
client). They are broad: beside slurs and obscenities they hold words that are only
sometimes offensive ("saco", "comer"). For a candidate replacement that costs one option
among many, where proposing an offensive one costs a curator's trust, so the list is used
as it is. WordNet's own usage domains (slurs, obscenities) are applied in
``building.lexicon.wordnet``; this module adds the words a lexicon does not mark.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from datasets.formats.spans import fold

# glin-profanity's dictionary file of each language we build variants in.
DICTIONARIES = {"en": "english", "pt": "portuguese"}
SOURCE = "glin-profanity word lists"


@dataclass(frozen=True)
class OffensiveWords:
    """Folded words and phrases (case and accents ignored); a text is offensive if it holds one."""

    words: frozenset[str] = frozenset()
    phrases: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def of(cls, entries: Iterable[str]) -> OffensiveWords:
        words, phrases = set(), set()
        for entry in entries:
            tokens = tuple(tokens_of(entry))
            if len(tokens) == 1:
                words.add(tokens[0])
            elif tokens:
                phrases.add(tokens)
        return cls(frozenset(words), tuple(sorted(phrases)))

    def __or__(self, other: OffensiveWords) -> OffensiveWords:
        return OffensiveWords(self.words | other.words, tuple(sorted(set(self.phrases) | set(other.phrases))))

    def blocks(self, text: str) -> bool:
        tokens = tokens_of(text)
        if any(token in self.words or _singular(token) in self.words for token in tokens):
            return True
        return any(_holds(tokens, phrase) for phrase in self.phrases)

    def allowed(self, texts: Iterable[str]) -> list[str]:
        return [text for text in texts if not self.blocks(text)]


def tokens_of(text: str) -> list[str]:
    return [fold(token) for token in re.findall(r"\w+", text.replace("_", " "))]


def _singular(token: str) -> str:
    # Plural candidates ("piss" is listed, "pisses" is not): an -s plural in both languages.
    return token[:-1] if len(token) > 3 and token.endswith("s") else token


def _holds(tokens: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(tokens[i : i + n]) == phrase for i in range(len(tokens) - n + 1))


@cache
def word_list(language: str) -> OffensiveWords:
    """The language's offensive words (an empty list for a language glin-profanity lacks)."""
    name = DICTIONARIES.get(language.split("-")[0].casefold())
    if name is None:
        return OffensiveWords()
    path = resources.files("glin_profanity") / "data" / "dictionaries" / f"{name}.json"
    return OffensiveWords.of(json.loads(path.read_text(encoding="utf-8"))["words"])
