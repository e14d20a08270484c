"""Counting target words and n-grams in a corpus, chunk by chunk, and adding up chunks (pure).

Only targets are counted (the modifiers, heads and texts of compounds, and any extra words),
so memory stays constant whatever the corpus size. Every target goes through the same
tokeniser as the corpus (:func:`building.counts.corpus.readers.tokenize`): a target of one token is a
word, a longer one an n-gram, counted under its tokens joined by one space ("Alta-costura"
is counted as ``alta costura``).

Counting a chunk and adding the counts of all chunks gives exactly the counts of one pass
over the file, because chunks start and end on unit boundaries and n-grams never cross one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import compress, count, islice
from pathlib import Path

from building.counts.corpus.readers import Block, CorpusSource, chunk_ranges, token_blocks, tokenize


@dataclass(frozen=True)
class Targets:
    """What to count: single words, and n-grams (n >= 2) as tuples of tokens."""

    words: frozenset[str] = frozenset()
    ngrams: frozenset[tuple[str, ...]] = frozenset()

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Targets:
        """Words and compounds as written ("eager beaver", "alta-costura"); blanks are ignored."""
        words, ngrams = set(), set()
        for text in texts:
            tokens = tuple(tokenize(text))
            if len(tokens) == 1:
                words.add(tokens[0])
            elif tokens:
                ngrams.add(tokens)
        return cls(frozenset(words), frozenset(ngrams))

    def __len__(self) -> int:
        return len(self.words) + len(self.ngrams)

    def keys(self) -> list[str]:
        """The count keys of every target, sorted."""
        return sorted([*self.words, *(" ".join(gram) for gram in self.ngrams)])


@dataclass
class Counts:
    """Tokens read and counts of the targets seen (a target never seen is absent); mergeable."""

    tokens: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"tokens": self.tokens, "counts": dict(self.counts)}

    @classmethod
    def from_dict(cls, data: dict) -> Counts:
        return cls(int(data.get("tokens", 0)), {key: int(value) for key, value in data.get("counts", {}).items()})


def merge(counts_list: Iterable[Counts]) -> Counts:
    """The sum of the counts of several chunks."""
    tokens, total = 0, Counter()
    for counts in counts_list:
        tokens += counts.tokens
        total.update(counts.counts)
    return Counts(tokens, dict(total))


def count_blocks(blocks: Iterable[Block], targets: Targets) -> Counts:
    """Count the targets in consecutive blocks of one stream (n-grams may run from a block into the next).

    Words go through ``filter`` and ``Counter`` at C speed. For n-grams one C-level pass finds the
    positions where a token pair starts some target (a bigram, or the first two tokens of a longer
    one); only those rare positions are looked at in Python.
    """
    words = targets.words
    by_length: dict[int, set[tuple[str, ...]]] = {}
    for gram in targets.ngrams:
        by_length.setdefault(len(gram), set()).add(gram)
    lengths = sorted(by_length.items())
    starts = {gram[:2] for gram in targets.ngrams}
    keep = max(by_length, default=1) - 1  # tokens carried over so that an n-gram may span two blocks
    word_counts: Counter = Counter()
    gram_counts: Counter = Counter()
    tokens = 0
    tail: list[str] = []
    for block in blocks:
        tokens += block.size
        if words:
            word_counts.update(filter(words.__contains__, block.tokens))
        if not starts:
            continue
        sequence = tail + block.tokens if tail else block.tokens
        carried = len(tail)
        pairs = zip(sequence, islice(sequence, 1, None), strict=False)
        for i in compress(count(), map(starts.__contains__, pairs)):
            for n, grams in lengths:
                # An n-gram lying wholly in the carried tokens was counted with the previous block.
                if i + n > carried:
                    gram = tuple(sequence[i : i + n])
                    if gram in grams:
                        gram_counts[gram] += 1
        tail = sequence[-keep:]
    counts = dict(word_counts)
    counts.update((" ".join(gram), n) for gram, n in gram_counts.items())
    return Counts(tokens, counts)


def count_chunk(
    corpus: str | Path | CorpusSource, fmt: str, targets: Targets, start: int = 0, end: int | None = None
) -> Counts:
    """Count the targets in bytes ``start`` to ``end`` of a corpus file (the whole file by default)."""
    return count_blocks(token_blocks(corpus, fmt, start, end), targets)


def count_corpus(corpus: str | Path | CorpusSource, fmt: str, targets: Targets, chunks: int = 1) -> Counts:
    """Count a whole file here, chunk after chunk (what the Celery workers do in parallel)."""
    return merge(count_chunk(corpus, fmt, targets, start, end) for start, end in chunk_ranges(corpus, fmt, chunks))
