"""Character spans of a compound in a sentence (pure: no Django import).

Three ways to find where the compound is:
- from a file's boolean tag list over whitespace tokens (NCIMP ``_tag`` columns);
- from the difference between a minimal pair and its original sentence;
- by searching the text for the compound, allowing inflected forms ("eager beavers",
  "abalos sísmicos").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

Span = tuple[int, int]

_WORD = re.compile(r"\w+", re.UNICODE)


def fold(text: str) -> str:
    """Case- and accent-insensitive form: "Atômico" and "atómico" both give "atomico"."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def whitespace_tokens(text: str) -> list[Span]:
    """Character spans of the whitespace-separated tokens of ``text``."""
    return [m.span() for m in re.finditer(r"\S+", text)]


class TagError(ValueError):
    """A tag list that cannot be turned into a span."""


def span_from_tags(text: str, tags: list[bool]) -> Span:
    """The character span covered by the True tags over ``text``'s whitespace tokens."""
    tokens = whitespace_tokens(text)
    if len(tags) != len(tokens):
        raise TagError(f"tag list has {len(tags)} entries but the text has {len(tokens)} words")
    marked = [i for i, flag in enumerate(tags) if flag]
    if not marked:
        raise TagError("tag list marks no word")
    if marked != list(range(marked[0], marked[-1] + 1)):
        raise TagError("tag list marks words that are not contiguous")
    return tokens[marked[0]][0], tokens[marked[-1]][1]


def span_from_diff(original: str, original_span: Span, variant: str) -> Span | None:
    """Where ``variant`` differs from ``original`` around the compound's span.

    The minimal pair keeps every word outside the compound, so the words shared at the
    start and the end (not reaching into the compound) frame the replacement.
    """
    o_tokens = whitespace_tokens(original)
    v_tokens = whitespace_tokens(variant)
    o_words = [original[a:b] for a, b in o_tokens]
    v_words = [variant[a:b] for a, b in v_tokens]
    first_nc = next((i for i, (a, b) in enumerate(o_tokens) if b > original_span[0]), len(o_tokens))
    last_nc = max((i for i, (a, b) in enumerate(o_tokens) if a < original_span[1]), default=-1)
    prefix = 0
    # Words before the compound may change with it (a/an, gender agreement): such pairs
    # still frame the replacement; never go past the compound's first word.
    while prefix < min(first_nc, len(v_words)) and same_frame_word(o_words[prefix], v_words[prefix]):
        prefix += 1
    suffix = 0
    while (
        suffix < len(o_words) - last_nc - 1
        and suffix < len(v_words) - prefix
        and o_words[-1 - suffix] == v_words[-1 - suffix]
    ):
        suffix += 1
    end_index = len(v_words) - suffix
    if end_index <= prefix:
        return None
    return v_tokens[prefix][0], v_tokens[end_index - 1][1]


_AGREEING_WORDS = [
    {"a", "an"},
    {"this", "these"},
    {"is", "are"},
    {"um", "uma", "uns", "umas"},
    {"o", "a", "os", "as"},
    {"este", "esta", "estes", "estas"},
    {"é", "são"},
    {"do", "da", "dos", "das"},
    {"no", "na", "nos", "nas"},
]


def same_frame_word(original: str, variant: str) -> bool:
    """The same word, or its form agreeing with another noun (a/an, este/esta, é/são …)."""
    if original == variant:
        return True
    pair = {original.casefold(), variant.casefold()}
    return any(pair <= group for group in _AGREEING_WORDS)


@dataclass(frozen=True)
class Match:
    span: Span
    exact: bool  # every word matched a known form (False: prefix match only)


_EN_IRREGULAR_PLURALS = {
    "man": "men",
    "woman": "women",
    "child": "children",
    "foot": "feet",
    "tooth": "teeth",
    "mouse": "mice",
    "goose": "geese",
    "person": "people",
    "louse": "lice",
    "ox": "oxen",
    "die": "dice",
    "penny": "pence",
    "criterion": "criteria",
    "phenomenon": "phenomena",
}


def english_plurals(word: str) -> set[str]:
    plurals = {word + "s", word + "es"}
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        plurals.add(word[:-1] + "ies")
    if word.endswith("f"):
        plurals.add(word[:-1] + "ves")
    if word.endswith("fe"):
        plurals.add(word[:-2] + "ves")
    if word.endswith("man"):
        plurals.add(word[:-3] + "men")
    if word.endswith("is"):
        plurals.add(word[:-2] + "es")
    if word in _EN_IRREGULAR_PLURALS:
        plurals.add(_EN_IRREGULAR_PLURALS[word])
    return plurals


_PT_ACCENTED = str.maketrans("áéíóúâêôãõ", "aeiouaeoao")


def _portuguese_genders(word: str) -> set[str]:
    # Adjectives agree with the head (sísmico/sísmica, alemão/alemã).
    bases = {word}
    if word.endswith("o"):
        bases.add(word[:-1] + "a")
    if word.endswith("a"):
        bases.add(word[:-1] + "o")
    if word.endswith("ão"):
        bases.update({word[:-2] + "ã", word[:-2] + "ona"})
    if word.endswith("or"):
        bases.add(word + "a")
    if word.endswith("ês"):
        bases.add(word[:-2] + "esa")
    return bases


def portuguese_plurals(word: str) -> set[str]:
    plurals = set()
    for base in _portuguese_genders(word):
        plurals.add(base + "s")
        if base[-1:] in ("r", "z", "s"):
            plurals.update({base + "es", base.translate(_PT_ACCENTED) + "es"})
        if base.endswith("ão"):
            plurals.update({base[:-2] + "ões", base[:-2] + "ães", base[:-2] + "ãos"})
        if base.endswith("m"):
            plurals.add(base[:-1] + "ns")
        for end, plural in (("al", "ais"), ("el", "éis"), ("ol", "óis"), ("ul", "uis"), ("il", "is")):
            if base.endswith(end):
                plurals.add(base[: -len(end)] + plural)
                if end == "il":
                    plurals.add(base[:-2] + "eis")
    return plurals


def plural_forms(word: str, language: str) -> set[str]:
    word = word.casefold()
    return portuguese_plurals(word) if language.startswith("pt") else english_plurals(word)


def word_forms(word: str, language: str) -> set[str]:
    """The word with its number (and, in Portuguese, gender) inflections."""
    word = word.casefold()
    if language.startswith("pt"):
        return _portuguese_genders(word) | portuguese_plurals(word)
    return {word, word + "'s", word + "s'"} | english_plurals(word)


def _prefix_match(token: str, word: str) -> bool:
    stem = max(3, len(word) - 2)
    return len(word) >= 4 and token.startswith(word[:stem]) and abs(len(token) - len(word)) <= 3


def find_compound(text: str, compound: str, language: str) -> list[Match]:
    """Every occurrence of ``compound`` in ``text``, ignoring case and accents, allowing inflection.

    Exact-form matches come first; prefix matches are returned only when there is none.
    Hyphenated ("caixas-fortes", "eager-beaver") and closed ("lifejacket") spellings are
    found too; "núcleos atómicos" matches "núcleo atômico".
    """
    words = [w for w in re.split(r"[\s-]+", compound.casefold()) if w]
    if not words:
        return []
    forms = [{fold(f) for f in word_forms(w, language)} for w in words]
    folded_words = [fold(w) for w in words]
    tokens = [(fold(m.group()), m.span()) for m in _WORD.finditer(text)]
    exact: list[Match] = []
    fuzzy: list[Match] = []
    n = len(words)
    for i in range(len(tokens) - n + 1):
        window = tokens[i : i + n]
        span = (window[0][1][0], window[-1][1][1])
        if all(tok in forms[k] for k, (tok, _) in enumerate(window)):
            exact.append(Match(span, True))
        elif all(tok in forms[k] or _prefix_match(tok, folded_words[k]) for k, (tok, _) in enumerate(window)):
            fuzzy.append(Match(span, False))
    if n > 1:
        closed = {fold(f) for f in word_forms("".join(words), language)}
        for tok, span in tokens:
            if tok in closed:
                exact.append(Match(span, True))
    exact.sort(key=lambda m: m.span)
    return exact or fuzzy


def is_plural_form(surface: str, compound: str, language: str) -> bool:
    """Whether the occurrence puts the compound's head in the plural ("contact lenses")."""
    s_words = [w for w in re.split(r"[\s-]+", fold(surface)) if w]
    c_words = [w for w in re.split(r"[\s-]+", compound.casefold()) if w]
    if len(s_words) != len(c_words) or not c_words:
        return False
    index = 0 if language.startswith("pt") else -1
    head = c_words[index]
    return s_words[index] != fold(head) and s_words[index] in {fold(f) for f in plural_forms(head, language)}
