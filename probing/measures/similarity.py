"""Cosines of many pairs at once (pure: no Django): the vectors of a run as matrices, and array operations.

A ``VectorTable`` holds the distinct items' vectors as rows: the configured combination at sentence
and NC level and, for a layer sweep, each swept layer. A missing vector (no span, a span cut off by
max_length) is a row of NaN, so it stays missing through every operation. ``cosines`` computes, in
float64, exactly ``probing.measures.metrics.cosine`` for each row pair (NaN where that gives None).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from probing.embedding.base import TextSpan, Vectors
from probing.vocabulary import SENTENCE

CHUNK_ROWS = 4096  # at most this many rows converted to float64 at a time: bounded memory for wide models
# ... and at most this many bytes of them: chunks that stay in the CPU's cache (and in the allocator's
# reused memory) are faster than larger ones.
CHUNK_BYTES = 2 * 2**20


def chunk_rows(matrix: np.ndarray) -> int:
    """Rows per chunk for ``matrix``: CHUNK_BYTES of float64 rows, between 1 and CHUNK_ROWS."""
    width = int(np.prod(matrix.shape[1:])) if matrix.ndim > 1 else 1
    return max(1, min(CHUNK_ROWS, CHUNK_BYTES // (8 * max(width, 1))))


@dataclass
class VectorTable:
    """Vectors of distinct items as (items, dim) float32 matrices; with a sweep, (items, layers, dim) ones too."""

    items: list[TextSpan]
    index: dict[TextSpan, int]
    sentence: np.ndarray
    span: np.ndarray
    layer_sentence: np.ndarray | None = None
    layer_span: np.ndarray | None = None
    # standardised(level, mean, std) last computed: {level: (mean, std, matrix)}, one entry at most.
    _standardised: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_vectors(cls, vectors: Mapping[TextSpan, Vectors], items: Iterable[TextSpan] | None = None) -> VectorTable:
        """The table of ``items`` (default: every key of ``vectors``); an item without vectors gets NaN rows."""
        items = list(dict.fromkeys(vectors if items is None else items))
        found = [vectors.get(item) for item in items]
        rows = [row for row, f in enumerate(found) if f is not None]
        present = [found[row] for row in rows]
        dim = int(np.asarray(present[0].sentence).shape[-1]) if present else 0
        sentence = np.full((len(items), dim), np.nan, dtype=np.float32)
        span = np.full((len(items), dim), np.nan, dtype=np.float32)
        layered = next((v.layer_sentences for v in present if v.layer_sentences is not None), None)
        layers = None if layered is None else layered.shape[0]
        layer_sentence = None if layers is None else np.full((len(items), layers, dim), np.nan, dtype=np.float32)
        layer_span = None if layers is None else np.full((len(items), layers, dim), np.nan, dtype=np.float32)
        _fill(sentence, rows, [found[row].sentence for row in rows])
        span_rows = [row for row in rows if found[row].span is not None]
        _fill(span, span_rows, [found[row].span for row in span_rows])
        for row in rows if layers is not None else ():
            if found[row].layer_sentences is not None:
                layer_sentence[row] = found[row].layer_sentences
                if found[row].layer_spans is not None:
                    layer_span[row] = found[row].layer_spans
        index = {item: row for row, item in enumerate(items)}
        return cls(items, index, sentence, span, layer_sentence, layer_span)

    @classmethod
    def from_chunks(cls, items: Iterable[TextSpan], chunks: Iterable[Mapping[TextSpan, Vectors]]) -> VectorTable:
        """``from_vectors(union of chunks, items)`` for the combination (no sweep layers), filled a chunk at a time.

        Only one chunk's vectors are held beside the table: a run's finish reads hundreds of
        megabytes of vectors, and building the table from all of them at once held them twice.
        """
        items = list(dict.fromkeys(items))
        index = {item: row for row, item in enumerate(items)}
        table = None
        for chunk in chunks:
            if table is None and chunk:
                dim = int(np.asarray(next(iter(chunk.values())).sentence).shape[-1])
                empty = np.full((len(items), dim), np.nan, dtype=np.float32)
                table = cls(items, index, empty, empty.copy())
            if chunk:
                table.fill(chunk)
        return table if table is not None else cls(items, index, *(np.zeros((len(items), 0), np.float32),) * 2)

    def fill(self, vectors: Mapping[TextSpan, Vectors]) -> None:
        """Put the combination vectors of some of the table's items in their rows (sentence and NC level)."""
        rows = [self.index[item] for item in vectors]
        found = list(vectors.values())
        _fill(self.sentence, rows, [v.sentence for v in found])
        with_span = [(row, v.span) for row, v in zip(rows, found, strict=True) if v.span is not None]
        _fill(self.span, [row for row, _ in with_span], [span for _, span in with_span])
        self._standardised.clear()

    @property
    def layer_total(self) -> int:
        return 0 if self.layer_sentence is None else self.layer_sentence.shape[1]

    def level(self, level: str, layer: int | None = None) -> np.ndarray:
        """(items, dim): the combination at ``level``, or swept layer number ``layer`` (its row in the sweep)."""
        if layer is None:
            return self.sentence if level == SENTENCE else self.span
        matrix = self.layer_sentence if level == SENTENCE else self.layer_span
        return matrix[:, layer]

    def standardised(self, level: str, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
        """``standardised(self.level(level), mean, std)``, kept while the same level, mean and std are asked again.

        A run's report standardises the NC level twice in a row (minimal pairs, then nc_out): one
        matrix. Only the last one asked is kept: each is a float64 copy of a level (hundreds of
        megabytes for a large release), and a report is done with a level once it moves on.
        """
        kept = self._standardised.get(level)
        if kept is None or kept[0] is not mean or kept[1] is not std:
            self._standardised.clear()  # the previous matrix goes before the next is made
            kept = (mean, std, standardised(self.level(level), mean, std))
            self._standardised[level] = kept
        return kept[2]

    def rows(self, items: Sequence[TextSpan]) -> np.ndarray:
        return np.fromiter((self.index[item] for item in items), dtype=np.int64, count=len(items))


def _fill(matrix: np.ndarray, rows: list[int], vectors: list) -> None:
    """``matrix[rows] = vectors`` with one copy, not a row at a time (tens of thousands of items).

    ValueError unless every vector is one row of the matrix's width: they are copied end to end.
    """
    dim = matrix.shape[1]
    if not vectors:
        return
    if set(map(np.ndim, vectors)) != {1} or set(map(len, vectors)) != {dim}:
        raise ValueError(f"vectors of other shapes than ({dim},) in one table: one model's vectors only")
    if len(rows) == len(matrix) and np.array_equal(rows, np.arange(len(matrix))):  # every row, in order
        np.concatenate(vectors, out=matrix.reshape(-1))
    else:
        matrix[rows] = np.concatenate(vectors).reshape(len(rows), dim)


def norms(matrix: np.ndarray) -> np.ndarray:
    """The Euclidean norm of each row, in float64 (NaN for a row with NaN), converting a chunk at a time."""
    out, step = np.empty(len(matrix)), chunk_rows(matrix)
    for start in range(0, len(matrix), step):
        x = np.asarray(matrix[start : start + step], dtype=np.float64)
        out[start : start + step] = np.einsum("ij,ij->i", x, x)  # no squared copy, as norm() makes
    return np.sqrt(out, out=out)


def _divide(dots: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``dots / denominator``, NaN where the denominator is zero or not finite (a missing or zero vector)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        value = dots / denominator
    value[~np.isfinite(denominator) | (denominator == 0)] = np.nan
    return value


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cosine of two (n, dim) matrices in float64; NaN where a vector is missing, zero or not finite."""
    out, step = np.full(len(a), np.nan), chunk_rows(a)
    for start in range(0, len(a), step):
        x = np.asarray(a[start : start + step], dtype=np.float64)
        y = np.asarray(b[start : start + step], dtype=np.float64)
        out[start : start + step] = _divide(np.einsum("ij,ij->i", x, y), norms(x) * norms(y))
    return out


def row_cosines(matrix: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``cosines(matrix[a], matrix[b])``, the same numbers, for rows that recur (an original in many pairs).

    Each row's norm is computed once, and the rows are gathered a chunk at a time: no copy of
    every pair's two vectors is made at once.
    """
    row_norms = norms(matrix)
    out, step = np.full(len(a), np.nan), chunk_rows(matrix)
    for start in range(0, len(a), step):
        rows_a, rows_b = a[start : start + step], b[start : start + step]
        x = np.asarray(np.take(matrix, rows_a, axis=0), dtype=np.float64)
        y = np.asarray(np.take(matrix, rows_b, axis=0), dtype=np.float64)
        out[start : start + step] = _divide(np.einsum("ij,ij->i", x, y), row_norms[rows_a] * row_norms[rows_b])
    return out


def moments(matrix: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """(n, mean, population std) per column over the rows without NaN, in float64, two passes."""
    present = ~np.isnan(matrix).any(axis=1)
    n = int(present.sum())
    if not n:
        return 0, np.zeros(matrix.shape[1]), np.ones(matrix.shape[1])

    def chunks() -> Iterator[np.ndarray]:  # views when no row is missing, else the present rows
        step = chunk_rows(matrix)
        for start in range(0, len(matrix), step):
            chunk = matrix[start : start + step]
            yield chunk if n == len(matrix) else chunk[present[start : start + step]]

    total = np.zeros(matrix.shape[1])
    for chunk in chunks():
        total += chunk.sum(axis=0, dtype=np.float64)
    mean = total / n
    squares = np.zeros(matrix.shape[1])
    for chunk in chunks():
        deviation = chunk.astype(np.float64)  # one float64 copy, squared in place
        deviation -= mean
        np.multiply(deviation, deviation, out=deviation)
        squares += deviation.sum(axis=0)
    return n, mean, np.sqrt(squares / n)


def standardised(matrix: np.ndarray, mean: np.ndarray, std: np.ndarray) -> np.ndarray:
    """(x - mean) / std per row, float64 (NaN rows stay NaN); one new matrix, worked on in place."""
    out = np.array(matrix, dtype=np.float64)
    out -= mean
    out /= std
    return out


def mean_rows(matrix: np.ndarray, groups: Sequence[np.ndarray]) -> np.ndarray:
    """Row g of the result is the mean of ``matrix``'s rows ``groups[g]`` (float64; NaN if any is missing or none is given).

    All groups at once: their rows gathered end to end and summed per group (``np.add.reduceat``).
    """
    out = np.full((len(groups), matrix.shape[1]), np.nan)
    sizes = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    filled = np.flatnonzero(sizes)
    if len(filled):
        rows = np.concatenate([groups[g] for g in filled])
        starts = np.concatenate([[0], np.cumsum(sizes[filled])[:-1]])
        gathered = np.asarray(np.take(matrix, rows, axis=0), dtype=np.float64)
        out[filled] = np.add.reduceat(gathered, starts, axis=0) / sizes[filled, None]
    return out
