"""Reading the words around a span of a sentence (pure: no Django import): what realisation rewrites."""

from __future__ import annotations

Span = tuple[int, int]


def is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch in "'’-"


def words_before(text: str, index: int, limit: int = 2) -> list[Span]:
    """Spans of up to ``limit`` words right before ``index``, nearest first.

    Only whitespace may separate them: after punctuation ("…, front man") the words
    before belong to another phrase. A word may itself follow an opening bracket or
    quote, which then ends the scan.
    """
    spans: list[Span] = []
    i = index
    while len(spans) < limit:
        j = i
        while j > 0 and text[j - 1].isspace():
            j -= 1
        if j == i or j == 0:
            break
        k = j
        while k > 0 and is_word_char(text[k - 1]):
            k -= 1
        if k == j:
            break
        spans.append((k, j))
        if k > 0 and not text[k - 1].isspace():
            break
        i = k
    return spans


def words_after(text: str, index: int, limit: int) -> list[Span]:
    """Spans of up to ``limit`` words right after ``index``, separated by whitespace only."""
    spans: list[Span] = []
    while len(spans) < limit:
        found = word_after(text, index)
        if found is None:
            break
        spans.append(found)
        index = found[1]
    return spans


def word_after(text: str, index: int) -> Span | None:
    j = index
    while j < len(text) and text[j].isspace():
        j += 1
    if j == index:
        return None
    k = j
    while k < len(text) and is_word_char(text[k]):
        k += 1
    return (j, k) if k > j else None


def at_sentence_start(text: str, index: int) -> bool:
    head = text[:index].rstrip(" \t\n\"'“‘«([")
    return not head or head[-1] in ".!?…:"


def capitalise_first(text: str) -> str:
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1 :]
    return text


def same_case(model: str, word: str) -> str:
    """``word`` in ``model``'s case: all capitals, a capital first, or as it is."""
    if len(model) > 1 and model.isupper():
        return word.upper()
    return word[:1].upper() + word[1:] if model[:1].isupper() else word
