"""Pools of candidate compounds for NC_Rand, and their frequencies (pure: no Django import).

By default a language's pool is the dataset's compounds plus its lexicon's two-word
entries (WordNet's noun compounds for English, the thesauri's for Portuguese); a curator
may upload a list instead: one compound per line, or a CSV with a ``compound`` column.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable
from pathlib import Path, PurePath

from building.counts.frequency import Frequencies
from building.lexicon.base import ADJECTIVE, Lexicon, preferred_pos
from building.rules.nc_rand.random_match import Accept, Candidate

_LETTERS = re.compile(r"[^\W\d_]")
# Portuguese compounds are mostly head first ("água doce", "pé de moleque").
HEAD_FIRST = {"pt"}
ADJECTIVE_NOUN, NOUN_NOUN = "adjective-noun", "noun-noun"


class PoolFileError(ValueError):
    """A pool file that cannot be used; the message names the file, the line and what is wrong."""


def words_of(text: str) -> list[str]:
    """The words of a compound: whitespace-separated, or the parts of one hyphenated word ("alta-costura")."""
    words = text.split()
    if len(words) == 1:
        words = words[0].split("-")
    return [word for word in words if word]


def split_compound(text: str, language: str = "en") -> tuple[str, str]:
    """(modifier, head): English puts the head last, Portuguese first; words between are left out."""
    words = words_of(text)
    if len(words) < 2:
        raise ValueError(f"{text!r} is not a compound of two or more words")
    first, last = words[0], words[-1]
    return (last, first) if language.split("-")[0].casefold() in HEAD_FIRST else (first, last)


def problem_with(text: str) -> str | None:
    """Why ``text`` cannot be a pool compound, or None."""
    words = words_of(text)
    if len(words) < 2:
        return "a compound needs two or more words"
    if not all(_LETTERS.search(word) for word in words):
        return "every word needs a letter"
    return None


def _decoded_lines(path: Path | str, data: bytes) -> list[str]:
    lines = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            lines.append(raw.decode("utf-8-sig" if number == 1 else "utf-8").rstrip("\r"))
        except UnicodeDecodeError:
            raise PoolFileError(f"{path}:{number}: bytes that are not UTF-8") from None
    return lines


def _is_header(line: str) -> bool:
    return "compound" in [cell.strip().casefold() for cell in next(csv.reader([line]), [])]


def read_pool_file(path: Path) -> list[str]:
    """Compounds from a UTF-8 file, one per line (``#`` comments and blank lines skipped) or a CSV."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise PoolFileError(f"{path}: cannot be read ({error.strerror})") from None
    return read_pool_data(path, data)


def read_pool_data(path: Path | str, data: bytes) -> list[str]:
    """``read_pool_file`` of a file's bytes already read (an upload, a file in the storage); ``path`` names it."""
    path = PurePath(path)
    lines = _decoded_lines(path, data)
    content = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    first = next(((number, line) for number, line in content if not line.lstrip().startswith("#")), None)
    if first is None:
        raise PoolFileError(f"{path}: no compounds in the file")
    if path.suffix.casefold() == ".csv" or _is_header(first[1]):
        return _read_csv(path, lines)
    found = []
    for number, line in content:
        text = " ".join(line.split())
        if text.startswith("#"):
            continue
        if reason := problem_with(text):
            raise PoolFileError(f"{path}:{number}: {text!r}: {reason}")
        found.append(text)
    return found


def _read_csv(path: Path, lines: list[str]) -> list[str]:
    reader = csv.DictReader(io.StringIO("\n".join(lines)))
    columns = {name.strip().casefold(): name for name in reader.fieldnames or []}
    if "compound" not in columns:
        raise PoolFileError(f"{path}:1: the CSV header has no 'compound' column (columns: {reader.fieldnames})")
    found = []
    for row in reader:
        number = reader.line_num
        text = " ".join((row.get(columns["compound"]) or "").split())
        if not text or text.startswith("#"):
            continue
        if reason := problem_with(text):
            raise PoolFileError(f"{path}:{number}: {text!r}: {reason}")
        found.append(text)
    return found


def compound_pool(*sources: Iterable[str]) -> list[str]:
    """The entries of every source in order, each text once (case aside), first spelling kept."""
    unique: dict[str, str] = {}
    for source in sources:
        for text in source:
            text = " ".join(text.split())
            if text:
                unique.setdefault(text.casefold(), text)
    return list(unique.values())


def default_pool(lexicon: Lexicon, compounds: Iterable[str]) -> list[str]:
    """The dataset's compounds, then the lexicon's two-word entries."""
    return compound_pool(compounds, lexicon.two_word_entries())


def with_frequencies(
    entries: Iterable[str], frequency: Callable[[str], float], language: str = "en"
) -> list[Candidate]:
    """Candidates with f_NC, f_modifier and f_head per million, sorted by f_avg then text.

    Entries of fewer than two words are left out. A word the frequency source does not
    know counts as 0, and its entry stays in the pool, where its low f_avg puts it.
    """
    known: dict[str, float] = {}

    def lookup(text: str) -> float:
        if text not in known:
            known[text] = frequency(text)
        return known[text]

    candidates = []
    for text in compound_pool(entries):
        if problem_with(text):
            continue
        modifier, head = split_compound(text, language)
        candidates.append(Candidate(text, (modifier, head), Frequencies(lookup(text), lookup(modifier), lookup(head))))
    return sorted(candidates, key=lambda c: (c.f_avg, c.text))


# Fewer attested candidates than this and the pool keeps its unattested ones (a tiny corpus).
MIN_ATTESTED = 200


def attested(candidates: list[Candidate], minimum: int = MIN_ATTESTED) -> tuple[list[Candidate], bool]:
    """The candidates that are real phrases of the frequency source, and whether the pool was narrowed.

    With a counted corpus, a phrase is real when it occurs in it (f_NC > 0): only the pool's
    phrases the corpus attests stay. With wordfreq, whose phrase value is an estimate, both
    words must be words it knows: a thesaurus entry made of obsolete words ("salepeira-maior")
    reads as no expert would write. When fewer than ``minimum`` remain, all are kept.
    """
    real = [c for c in candidates if min(c.frequencies.compound, c.frequencies.modifier, c.frequencies.head) > 0]
    return (real, True) if len(real) >= minimum else (list(candidates), False)


def is_hyphenated(text: str) -> bool:
    """One hyphenated word ("alta-costura"), not two words ("alta costura")."""
    return len(text.split()) == 1 and "-" in text


def modifier_kind(lexicon: Lexicon, modifier: str, choices: tuple[str, ...]) -> str | None:
    """Adjective-noun or noun-noun, by the part of speech the lexicon uses the modifier in most; None if unknown."""
    pos = preferred_pos(lexicon, modifier, choices)
    if not lexicon.usage(modifier, pos):
        return None
    return ADJECTIVE_NOUN if pos == ADJECTIVE else NOUN_NOUN


def natural_for(target: str, kind: str | None, lexicon: Lexicon, choices: tuple[str, ...]) -> Accept:
    """Which pool compounds can stand in for ``target`` naturally: hyphenated only for a hyphenated
    target, and of the target's kind (adjective-noun or noun-noun) when the lexicon knows both modifiers.
    """
    hyphenated = is_hyphenated(target)
    kinds: dict[str, str | None] = {}

    def accept(candidate: Candidate) -> bool:
        if is_hyphenated(candidate.text) != hyphenated:
            return False
        if kind is None:
            return True
        modifier = candidate.words[0]
        if modifier not in kinds:
            kinds[modifier] = modifier_kind(lexicon, modifier, choices)
        return kinds[modifier] in (kind, None)

    return accept
