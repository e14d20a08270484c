"""Frequencies per million words of a compound and its two words (pure: no Django import).

Two sources:

- ``wordfreq``, the default, needs nothing but the package. It has no counts for multi-word
  expressions: its value for "eager beaver" is an independence estimate built from the
  words' frequencies, not a corpus count. Callers must say so wherever the compound
  frequency is shown (``SOURCE`` does). No PMI is computed from it: PMI compares the
  compound's frequency with what independence predicts, and wordfreq's compound value *is*
  an independence-style combination of the words' frequencies, so its PMI would measure
  wordfreq's formula, not the words' association.
- a corpus the user counted (``building.counts.corpus``): real counts of the compound and its words,
  hence frequencies, PMI and PPMI (:func:`corpus_measures`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from building.counts import association
from building.counts.corpus.readers import normalise

SOURCE = "wordfreq (compound: independence estimate, not a corpus count)"


@dataclass(frozen=True)
class Frequencies:
    compound: float
    modifier: float
    head: float

    @property
    def average(self) -> float:
        """f_avg = (f_NC + f_w1 + f_w2) / 3, the NC_Rand matching key."""
        return (self.compound + self.modifier + self.head) / 3


@lru_cache(maxsize=1)
def _word_frequency():
    """wordfreq's lookup, imported on the first count: importing wordfreq loads its tokenisers, and most
    processes never count."""
    from wordfreq import word_frequency

    return word_frequency


def per_million(text: str, language: str) -> float:
    return _word_frequency()(text, language.split("-")[0]) * 1e6


def compound_frequencies(text: str, modifier: str, head: str, language: str) -> Frequencies:
    return Frequencies(per_million(text, language), per_million(modifier, language), per_million(head, language))


@dataclass(frozen=True)
class CorpusMeasures:
    """A compound's counts in a corpus, as frequencies per million tokens and association."""

    compound: float | None
    modifier: float | None
    head: float | None
    pmi: float | None
    ppmi: float | None


def corpus_source(name: str, tokens: int) -> str:
    """What ``Compound.frequency_source`` says for frequencies counted in a corpus."""
    suffix = f" ({tokens:,} tokens)"
    return f"corpus {name[: 190 - len(suffix)]}{suffix}"


def corpus_measures(counts: Mapping[str, int], tokens: int, text: str, modifier: str, head: str) -> CorpusMeasures:
    """Frequencies, PMI and PPMI of a compound from a corpus's counts (keyed as :func:`normalise` makes them)."""
    c_xy, c_x, c_y = (counts.get(normalise(part), 0) if part.strip() else 0 for part in (text, modifier, head))
    return CorpusMeasures(
        compound=association.per_million(c_xy, tokens),
        modifier=association.per_million(c_x, tokens) if modifier.strip() else None,
        head=association.per_million(c_y, tokens) if head.strip() else None,
        pmi=association.pmi(c_xy, c_x, c_y, tokens),
        ppmi=association.ppmi(c_xy, c_x, c_y, tokens),
    )
