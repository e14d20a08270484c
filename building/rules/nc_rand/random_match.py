"""Random compounds for the NC_Rand variants, frequency-matched or not (pure: no Django import).

He et al. (2024, NCIMP §3.1) replace a compound by another whose average frequency
f_avg = (f_NC + f_w1 + f_w2) / 3 is closest to its own. The pool is sorted by f_avg once;
each target is placed by bisection and the nearest candidates are taken outwards from
there, so 280 targets against 50,000 candidates cost milliseconds. Sentence k of a
compound can take the k-th slice of the ranking (``skip``) so that its sentences differ.
"""

from __future__ import annotations

import heapq
import random
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from building.counts.frequency import Frequencies
from datasets.formats.spans import fold

LIMIT = 5

Accept = Callable[["Candidate"], bool]


@dataclass(frozen=True)
class Candidate:
    """A compound that may stand in for another: its text, (modifier, head) and frequencies per million."""

    text: str
    words: tuple[str, str]  # (modifier, head), whatever their order in the text
    frequencies: Frequencies

    @property
    def f_avg(self) -> float:
        return self.frequencies.average


class MatchingPool:
    """Candidates indexed once for many look-ups; a repeated text (case aside) is kept once."""

    def __init__(self, candidates: Iterable[Candidate]) -> None:
        unique: dict[str, Candidate] = {}
        for candidate in candidates:
            unique.setdefault(candidate.text.casefold(), candidate)
        self.by_frequency = sorted(unique.values(), key=lambda c: (c.f_avg, c.text))
        self.keys = [candidate.f_avg for candidate in self.by_frequency]
        # Random draws must not depend on frequencies, which change with the frequency source.
        self.by_text = sorted(unique.values(), key=lambda c: c.text)
        # Folded forms are made on first need: a look-up visits only a few candidates.
        self._folded: dict[str, tuple[str, set[str]]] = {}

    def __len__(self) -> int:
        return len(self.by_frequency)

    def _allowed(self, candidate: Candidate, text: str, words: set[str]) -> bool:
        key = candidate.text.casefold()
        if key not in self._folded:
            self._folded[key] = (fold(candidate.text), {fold(word) for word in candidate.words})
        folded_text, folded_words = self._folded[key]
        return folded_text != text and not (folded_words & words)

    def _nearest(self, f_avg: float) -> Iterator[tuple[float, str, int]]:
        """(distance, text, index) of every candidate, nearest first, equal distances by text."""
        split = bisect_left(self.keys, f_avg)
        keys, pool = self.keys, self.by_frequency

        def above() -> Iterator[tuple[float, str, int]]:
            for i in range(split, len(keys)):
                yield keys[i] - f_avg, pool[i].text, i

        def below() -> Iterator[tuple[float, str, int]]:
            # Walking down, a run of equal f_avg must still come out in text order.
            end = split - 1
            while end >= 0:
                start = bisect_left(keys, keys[end], 0, end + 1)
                for i in range(start, end + 1):
                    yield f_avg - keys[i], pool[i].text, i
                end = start - 1

        return heapq.merge(below(), above())

    def frequency_matched(
        self,
        target_text: str,
        target_words: Sequence[str],
        target_f_avg: float,
        n: int = LIMIT,
        skip: int = 0,
        accept: Accept | None = None,
    ) -> list[Candidate]:
        """The candidates ranked ``skip + 1`` to ``skip + n`` by closeness of f_avg, sharing no word with the target.

        ``accept`` narrows the pool for this target (a compound of the same kind and shape).
        """
        text, words = fold(target_text), {fold(word) for word in target_words}
        found: list[Candidate] = []
        passed = 0
        for _, _, i in self._nearest(target_f_avg):
            candidate = self.by_frequency[i]
            if not self._allowed(candidate, text, words) or (accept and not accept(candidate)):
                continue
            if passed < skip:
                passed += 1
                continue
            found.append(candidate)
            if len(found) == n:
                break
        return found

    def unmatched(
        self,
        target_text: str,
        target_words: Sequence[str],
        n: int = LIMIT,
        seed: str | None = None,
        accept: Accept | None = None,
    ) -> list[Candidate]:
        """``n`` candidates drawn at random (the same ones for the same seed; default seed: the target's text)."""
        rng = random.Random(target_text if seed is None else seed)
        text, words = fold(target_text), {fold(word) for word in target_words}
        found: list[Candidate] = []
        tried: set[int] = set()
        while len(found) < n and len(tried) < len(self.by_text):
            i = rng.randrange(len(self.by_text))
            if i in tried:
                continue
            tried.add(i)
            if self._allowed(self.by_text[i], text, words) and (accept is None or accept(self.by_text[i])):
                found.append(self.by_text[i])
        return found


def as_pool(pool: MatchingPool | Iterable[Candidate]) -> MatchingPool:
    return pool if isinstance(pool, MatchingPool) else MatchingPool(pool)


def frequency_matched(
    target_text: str,
    target_words: Sequence[str],
    target_f_avg: float,
    pool: MatchingPool | Iterable[Candidate],
    n: int = LIMIT,
    skip: int = 0,
) -> list[Candidate]:
    """See :meth:`MatchingPool.frequency_matched`; build the MatchingPool once when matching many targets."""
    return as_pool(pool).frequency_matched(target_text, target_words, target_f_avg, n, skip)


def unmatched(
    target_text: str,
    target_words: Sequence[str],
    pool: MatchingPool | Iterable[Candidate],
    n: int = LIMIT,
    seed: str | None = None,
) -> list[Candidate]:
    """See :meth:`MatchingPool.unmatched`."""
    return as_pool(pool).unmatched(target_text, target_words, n, seed)
