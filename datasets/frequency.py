"""Word frequencies per million words from ``wordfreq`` (pure: no Django import).

wordfreq has no counts for multi-word expressions: its value for "eager beaver" is an
independence estimate built from the words' frequencies, not a corpus count. Callers
must say so wherever the compound frequency is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from wordfreq import word_frequency

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


def per_million(text: str, language: str) -> float:
    return word_frequency(text, language.split("-")[0]) * 1e6


def compound_frequencies(text: str, modifier: str, head: str, language: str) -> Frequencies:
    return Frequencies(per_million(text, language), per_million(modifier, language), per_million(head, language))
