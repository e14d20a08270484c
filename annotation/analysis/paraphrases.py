"""Paraphrase normalisation, counting per sentence slot, and the type/token classification of Garcia et al. (2021)."""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from functools import lru_cache
from typing import Literal

Level = Literal["type", "token"]
Counts = dict[Hashable, dict[str, dict[int | None, int]]]

KEPT_INSIDE = {"-", "'"}
# Typographic variants that annotators type for the same hyphen or apostrophe.
EQUIVALENTS = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2010": "-", "\u2011": "-"})
SPACES = re.compile(r"\s+")


def _is_punctuation(char: str) -> bool:
    """Unicode punctuation (categories P*), which is what gets stripped."""
    return unicodedata.category(char).startswith("P")


@lru_cache(maxsize=1 << 16)
def normalise(text: str) -> str:
    """Casefold, drop punctuation (keeping inner hyphens and apostrophes) and collapse spaces; accents are kept.

    Memoised: a report normalises the same people's paraphrases for every classification and every machine
    annotator it compares, and paraphrases repeat (half of 5,000 were duplicates in the benchmark)."""
    # NFC first and last so that a decomposed "a" + combining accent counts the same as the precomposed letter.
    text = unicodedata.normalize("NFC", text).translate(EQUIVALENTS).casefold()
    chars = list(text)
    out = []
    for i, char in enumerate(chars):
        if not _is_punctuation(char) or char in KEPT_INSIDE:
            out.append(char)
        elif char == "." and 0 < i < len(chars) - 1 and chars[i - 1].isalnum() and chars[i + 1].isalnum():
            # Abbreviations: "d.j." and "dj" are the same proposal.
            continue
        else:
            out.append(" ")
    words = []
    for word in SPACES.split("".join(out)):
        word = word.strip("".join(KEPT_INSIDE))
        if word:
            words.append(word)
    return unicodedata.normalize("NFC", " ".join(words))


def counts(paraphrases: Iterable[tuple[Hashable, int | None, str]]) -> Counts:
    """Per compound, per normalised paraphrase: how often it was proposed for each sentence slot (None: type level)."""
    result: Counts = defaultdict(lambda: defaultdict(lambda: defaultdict(int)))
    for compound, slot, text in paraphrases:
        key = normalise(text)
        if key:
            result[compound][key][slot] += 1
    return {c: {t: dict(slots) for t, slots in texts.items()} for c, texts in result.items()}


def classify(per_slot_frequency: Mapping[int | None, int], n_sentences: int = 3) -> Level | None:
    """Type if proposed for all sentences, or for two with frequency >= 3; token if for one with frequency >= 2."""
    # Proposals without a sentence (slot None) come from type-level rating and do not count towards the rule.
    frequencies = [f for slot, f in per_slot_frequency.items() if slot is not None and f > 0]
    n_slots, total = len(frequencies), sum(frequencies)
    if n_slots >= n_sentences:
        return "type"
    if n_slots >= 2 and total >= 3:
        return "type"
    if n_slots == 1 and total >= 2:
        return "token"
    return None


def classify_counts(all_counts: Counts, n_sentences: int = 3) -> list[dict]:
    """Rows {compound, paraphrase, level, frequency, slots} for every paraphrase the rule classifies."""
    rows = []
    for compound, texts in all_counts.items():
        for text, per_slot in texts.items():
            level = classify(per_slot, n_sentences)
            if level is not None:
                slots = sorted(s for s, f in per_slot.items() if s is not None and f > 0)
                frequency = sum(f for s, f in per_slot.items() if s is not None)
                rows.append(
                    {"compound": compound, "paraphrase": text, "level": level, "frequency": frequency, "slots": slots}
                )
    return rows


def gold_synonym(type_level: Mapping[str, int]) -> str | None:
    """The most frequent type-level paraphrase, ties broken alphabetically; None when there is none."""
    if not type_level:
        return None
    return min(type_level.items(), key=lambda kv: (-kv[1], kv[0]))[0]
