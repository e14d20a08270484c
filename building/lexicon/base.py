"""What the variant generator asks of a lexicon, whatever its source (pure: no Django import).

WordNet (English), MyThes (Portuguese thesauri from Debian) and OpenWordNet-PT all answer
the same three questions: a word's single-word synonyms for a part of speech, most common
sense first; how much the word itself is used in that part of speech (to choose between
"eager" the adjective and "eager" the tidal bore); and which two-word entries can serve as
random compounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

NOUN, ADJECTIVE = "n", "a"
PARTS_OF_SPEECH = (NOUN, ADJECTIVE)


class LexiconUnavailable(RuntimeError):
    """The lexicon's files are not on this machine."""


class LexiconFormatError(ValueError):
    """A lexicon file that cannot be read; the message names the file (and line, when known)."""


@dataclass(frozen=True)
class Synonym:
    """A single-word synonym of a noun (or adjective modifier), with its sense rank and count."""

    lemma: str
    sense_rank: int  # 1 = the word's most common sense
    count: int  # tagged-corpus frequency of this lemma in that sense (cntlist); 0 when the lexicon has none


class Lexicon(Protocol):
    name: str

    def synonyms(self, word: str, pos: str) -> list[Synonym]:
        """Single-word synonyms of ``word`` as ``pos`` ("n" or "a"), best sense first, never the word itself."""
        ...

    def usage(self, word: str, pos: str) -> int:
        """How much the lexicon uses ``word`` as ``pos`` (tagged count, or number of senses); 0 when never."""
        ...

    def two_word_entries(self) -> list[str]:
        """Entries of exactly two words ("police car"), usable as random compounds; sorted, no duplicates."""
        ...


def check_pos(pos: str) -> None:
    if pos not in PARTS_OF_SPEECH:
        raise ValueError(f"part of speech must be 'n' (noun) or 'a' (adjective), not {pos!r}")


def preferred_pos(lexicon: Lexicon, word: str, choices: tuple[str, ...] = PARTS_OF_SPEECH) -> str:
    """The part of speech in which ``lexicon`` uses ``word`` most; ties go to the earlier choice."""
    return max(choices, key=lambda pos: (lexicon.usage(word, pos), -choices.index(pos)))
