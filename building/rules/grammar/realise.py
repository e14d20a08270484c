"""Putting a replacement where the compound was, keeping the sentence grammatical (pure: no Django import).

A minimal pair changes only the compound ("an eager beaver" → "a hard worker"). What the
grammar forces is done here: the compound's number, a capital at the start of a
sentence, and the English article right before it. Portuguese agreement (gender and number
of the replacement's adjectives and of the determiners and adjectives around it) is
rewritten from a morphological dictionary when one is given (``building.rules.grammar.agreement``);
without one, or for a word it does not know, it is only flagged: a wrong automatic fix
("um água") is worse than a visible note.

Also the neutral sentences of the papers ("This is a/an X", "Este é um X"), which give
the compound no informative context.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from building.rules.grammar import agreement
from building.rules.grammar.inflection import (
    Flags,
    article,
    guess_gender,
    is_portuguese,
    pluralise,
)
from building.rules.grammar.sentence_words import (
    Span,
    same_case,
    words_after,
    words_before,
)
from building.rules.grammar.surroundings import agreement_flags, english_determiner, match_capital, occurs_in_plural

__all__ = ["Realised", "article", "guess_gender", "neutral", "pluralise", "realise"]


@dataclass(frozen=True)
class Realised:
    """A sentence with the replacement in place; ``text[span[0]:span[1]]`` is the replacement."""

    text: str
    span: Span
    flags: Flags = ()


def realise(
    sentence: str,
    span: Span,
    replacement: str,
    language: str,
    *,
    plural: bool | None = None,
    compound: str | None = None,
    morphology: agreement.Morphology | None = None,
    head: str | None = None,
) -> Realised:
    """``sentence`` with ``sentence[span[0]:span[1]]`` (the compound as it occurs) replaced.

    ``replacement`` is a lemma (singular). ``plural`` says whether the occurrence is
    plural; when None it is read from the occurrence, compared with ``compound`` (its
    lemma) when given, else from its ending and the determiner before it. In English only
    the word right before the span is ever rewritten ("a"/"an"); in Portuguese, given a
    ``morphology``, the words that agree with the compound's head. Anything else that may
    have to change is reported in ``flags``. ``head`` is the replacement's head word when
    the caller knows it (a head synonym), else it is found with the dictionary.
    """
    start, end = span
    if not 0 <= start < end <= len(sentence):
        raise ValueError(f"span {span} is not inside a sentence of {len(sentence)} characters")
    replacement = " ".join(replacement.split())
    if not replacement:
        raise ValueError("the replacement is empty")
    portuguese = is_portuguese(language)
    surface = sentence[start:end]
    before = words_before(sentence, start)
    if plural is None:
        plural = occurs_in_plural(sentence, surface, before, compound, language, portuguese)
    if portuguese and morphology is not None:
        agreed = _portuguese(sentence, span, replacement, plural, morphology, head)
        if agreed is not None:
            return agreed
    flags: list[str] = []
    if portuguese and morphology is not None and (head or " " in replacement):
        # A phrase whose head the dictionary does not know as a noun: nothing was made to agree.
        unknown = (head or replacement).split(" ", 1)[0]
        flags.append(f"agreement: '{unknown}' is not a noun in the Portuguese dictionary; check what agrees with it")
    text = replacement
    if plural:
        text, plural_flags = pluralise(text, language)
        flags.extend(plural_flags)
    text = match_capital(sentence, start, surface, text, flags)
    if portuguese:
        flags.extend(agreement_flags(sentence, end, before, compound or surface, replacement, text))
        return Realised(sentence[:start] + text + sentence[end:], (start, start + len(text)), tuple(flags))
    prefix = sentence[:start]
    if before:
        word_start, word_end = before[0]
        word = sentence[word_start:word_end]
        new_article = english_determiner(word, surface, text, plural, flags)
        if new_article != word:
            prefix = sentence[:word_start] + new_article + sentence[word_end:start]
    return Realised(prefix + text + sentence[end:], (len(prefix), len(prefix) + len(text)), tuple(flags))


def neutral(
    replacement: str,
    language: str,
    *,
    pattern: str,
    plural: bool,
    gender: str | None = None,
    morphology: agreement.Morphology | None = None,
) -> Realised:
    """One of the papers' uninformative sentences around ``replacement`` (a lemma).

    ``pattern`` is "short" ("This is a X") or "long" ("This is what a X is supposed to
    be"). Portuguese needs the replacement's gender ("m"/"f"); when not given it is read
    from ``morphology`` (whose forms the replacement then takes) or guessed from the
    ending, and an unknown gender gives the masculine with an ``agreement:`` flag.
    English has no final period, as in the NCIMP file.
    """
    if pattern not in ("short", "long"):
        raise ValueError(f"unknown neutral pattern {pattern!r}: expected 'short' or 'long'")
    if gender not in (None, "m", "f"):
        raise ValueError(f"unknown gender {gender!r}: expected 'm', 'f' or None")
    replacement = " ".join(replacement.split())
    if not replacement:
        raise ValueError("the replacement is empty")
    flags: list[str] = []
    text = replacement
    if is_portuguese(language) and morphology is not None:
        phrase = agreement.agree_phrase(replacement, morphology, plural=plural, either=gender)
        text, gender = phrase.text, gender or phrase.gender
        flags.extend(phrase.flags)
    elif plural:
        text, plural_flags = pluralise(text, language)
        flags.extend(plural_flags)
    if is_portuguese(language):
        if gender is None:
            gender = guess_gender(replacement)
            if gender is None:
                gender = "m"
                flags.append(f"agreement: gender of '{replacement}' unknown; used the masculine")
        feminine = gender == "f"
        if pattern == "short" and plural:
            before, after = ("Estas são " if feminine else "Estes são "), ""
        elif pattern == "short":
            before, after = ("Esta é uma " if feminine else "Este é um "), ""
        elif plural:
            before, after = "Isto é o que ", " deveriam ser"
        else:
            before, after = ("Isto é o que uma " if feminine else "Isto é o que um "), " deveria ser"
    elif pattern == "short":
        before, after = ("These are " if plural else f"This is {article(text)} "), ""
    elif plural:
        before, after = "These are what ", " are supposed to be"
    else:
        before, after = f"This is what {article(text)} ", " is supposed to be"
    return Realised(before + text + after, (len(before), len(before) + len(text)), tuple(flags))


def _portuguese(
    sentence: str, span: Span, replacement: str, plural: bool, morphology: agreement.Morphology, head: str | None
) -> Realised | None:
    """The replacement and the words around it agreeing with its head; None when the dictionary does not know the head."""
    start, end = span
    old = agreement.old_head(sentence[start:end], morphology)
    either = old.gender if old else None
    phrase = agreement.agree_phrase(replacement, morphology, plural=plural, either=either, head=head)
    if agreement.head_index(replacement.split(), morphology, head) is None:
        return None  # only flagged: the dictionary does not know the head
    if old is None:
        # Without the old head's gender the words around it cannot be told apart from
        # others ("a" the article or the preposition): only the replacement is made to agree.
        phrase = dataclasses.replace(phrase, gender=None)
    flags = list(phrase.flags)
    text = match_capital(sentence, start, sentence[start:end], phrase.text, flags)
    gender = phrase.gender
    if old is None or gender is None or old.gender == gender:
        return Realised(sentence[:start] + text + sentence[end:], (start, start + len(text)), tuple(flags))
    before = words_before(sentence, start, agreement.WORDS_BEFORE)
    after = words_after(sentence, end, agreement.WORDS_AFTER)
    new_before = agreement.agree_before([sentence[a:b] for a, b in before], old, gender, morphology)
    new_after = agreement.agree_after([sentence[a:b] for a, b in after], old, gender, morphology)
    pieces = [*zip(before, new_before, strict=False), ((start, end), text), *zip(after, new_after, strict=False)]
    out, last, new_span = [], 0, span
    for (a, b), word in sorted(pieces):
        out.append(sentence[last:a])
        if (a, b) == span:
            offset = sum(map(len, out))
            new_span = (offset, offset + len(word))
        out.append(same_case(sentence[a:b], word) if (a, b) != span else word)
        last = b
    out.append(sentence[last:])
    return Realised("".join(out), new_span, tuple(flags))


# --- capitals and number -------------------------------------------------------------------


# --- English --------------------------------------------------------------------------------


# --- Portuguese -----------------------------------------------------------------------------
