"""The embedding cache in the database: the engine's VectorCache over ``CachedVectors`` rows.

Keys come from ``probing.run.engine.cache_key`` (text, span, model identity and every config value
that changes a vector), so a row is never reused for a different model, revision or config, and
any worker on any machine shares what the others embedded. Rows are only ever inserted (the first
of two workers embedding the same text wins), never updated.

Reads and writes are in bulk: one query per ``CHUNK`` keys. On PostgreSQL both go through binary
``COPY`` (``probing.run.pgcopy``): the vectors travel as raw bytes instead of hex text, four to six times
less work than an INSERT or SELECT of the same rows, and rows of one layout are read as arrays
(``pgcopy.decode_blocks``: each vector a view of the bytes read); the table is unlogged (migration 0006), as a
cache whose rows can be computed again needs no write-ahead log.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator

import numpy as np
from django.db import connection

from probing.embedding.base import TextSpan, Vectors
from probing.models import CachedVectors
from probing.run import new_rows, pgcopy

CHUNK = 2000  # keys per query: well under any database's parameter limit
LAYER_DTYPES = {"float32": "<f4", "float16": "<f2"}
COLUMNS = ("key", "sentence", "span", "tokens", "oov", "span_truncated")
LAYER_COLUMNS = ("layers", "layer_count", "layer_dtype")


def encode(vector: np.ndarray, dtype: str = "<f4") -> bytes:
    return np.asarray(vector, dtype=dtype).tobytes()


def decode(data: bytes | memoryview, dtype: str = "<f4") -> np.ndarray:
    """float32 values of ``data``: a read-only view of its bytes when they are float32 already, no copy
    (tens of thousands of vectors per read; nothing writes into a cached vector)."""
    values = np.frombuffer(data, dtype=dtype)
    return values if values.dtype == np.float32 else values.astype(np.float32)


def encode_layers(vectors: Vectors, dtype: str) -> bytes | None:
    """The swept layers' sentence rows, then their span rows when there are any, as one array's bytes."""
    if vectors.layer_sentences is None:
        return None
    parts = [vectors.layer_sentences] if vectors.layer_spans is None else [vectors.layer_sentences, vectors.layer_spans]
    return np.concatenate(parts).astype(LAYER_DTYPES[dtype]).tobytes()


def decode_layers(data, count: int, dtype: str, dim: int) -> tuple[np.ndarray, np.ndarray | None]:
    rows = decode(data, LAYER_DTYPES[dtype or "float32"]).reshape(-1, count, dim)
    return rows[0], (rows[1] if len(rows) > 1 else None)


def stored_bytes(vectors: Vectors, layer_dtype: str = "float32") -> int:
    """The bytes of vectors one cache row holds (what a run's cache size adds up)."""
    size = 4 * np.size(vectors.sentence) + (0 if vectors.span is None else 4 * np.size(vectors.span))
    if vectors.layer_sentences is not None:
        itemsize = np.dtype(LAYER_DTYPES[layer_dtype]).itemsize
        size += itemsize * vectors.layer_sentences.size
        size += 0 if vectors.layer_spans is None else itemsize * vectors.layer_spans.size
    return int(size)


def cache_bytes(items: Iterable[TextSpan], dim: int, hidden_states: int = 0, layer_dtype: str = "float32") -> int:
    """The bytes of vectors a run's cache holds for ``items``, as ``stored_bytes`` counts them, before embedding any.

    One row per distinct text and span: the combination's sentence vector and, for an item with a
    span, its span vector (float32, ``dim`` values each), and for a sweep of ``hidden_states``
    layers the same again per layer in ``layer_dtype``. How big a sweep of a model would be.
    """
    vectors = sum(1 if item.span is None else 2 for item in set(items))
    return vectors * dim * (4 + hidden_states * np.dtype(LAYER_DTYPES[layer_dtype]).itemsize)


class RunMemo:
    """The combination vectors a run's shards read or wrote in this process, for its finish to use again.

    A run's vectors are read from the database once by the shards and once more when it finishes
    (standardisation needs them all); in the process that ran shards of the run, the second read
    comes from here. Bounded by ``limit`` bytes (the oldest go first); ``forget(run)`` when done.
    """

    def __init__(self, limit: int = 256 * 2**20) -> None:
        self.limit = limit
        self.size = 0
        self.vectors: OrderedDict[tuple[int, str], tuple[Vectors, int]] = OrderedDict()  # with its bytes
        self.keys: dict[int, list[str]] = {}  # each run's keys, for forget (evicted ones included)

    def get(self, run: int, keys: list[str]) -> dict[str, Vectors]:
        vectors = self.vectors
        return {key: vectors[(run, key)][0] for key in keys if (run, key) in vectors}

    def add(self, run: int, items: dict[str, Vectors]) -> None:
        added = self.keys.setdefault(run, [])
        for key, vectors in items.items():
            if (run, key) in self.vectors:
                continue
            if vectors.layer_sentences is not None:  # the combination only: a sweep's layers stay out
                vectors = Vectors(vectors.sentence, vectors.span, vectors.tokens, vectors.oov, vectors.span_truncated)
            size = stored_bytes(vectors)
            self.vectors[(run, key)] = (vectors, size)
            self.size += size
            added.append(key)
        while self.size > self.limit and self.vectors:
            self.size -= self.vectors.popitem(last=False)[1][1]

    def forget(self, run: int) -> None:
        for key in self.keys.pop(run, ()):
            kept = self.vectors.pop((run, key), None)
            if kept is not None:
                self.size -= kept[1]


run_memo = RunMemo()


class DatabaseVectorCache:
    """VectorCache on ``CachedVectors``; ``model`` is the identity hash the rows are filed under.

    ``layers=False`` reads the configured combination only (a sweep's per-layer bytes stay in the
    database); ``layer_dtype`` is how new rows store a sweep's layers. With ``run``, what is read
    or written is remembered for that run (``run_memo``), and a combination-only read looks there first.
    """

    def __init__(self, model: str, layers: bool = True, layer_dtype: str = "float32", run: int | None = None) -> None:
        self.model = model
        self.layers = layers
        self.layer_dtype = layer_dtype
        self.run = run

    def get_many(self, keys: list[str]) -> dict[str, Vectors]:
        keys = list(dict.fromkeys(keys))
        remembered = run_memo.get(self.run, keys) if self.run is not None and not self.layers else {}
        found = self._read([key for key in keys if key not in remembered])
        if self.run is not None:
            run_memo.add(self.run, found)
        return remembered | found

    def _read(self, keys: list[str]) -> dict[str, Vectors]:
        found: dict[str, Vectors] = {}
        columns = COLUMNS + (LAYER_COLUMNS if self.layers else ())
        for start in range(0, len(keys), CHUNK):
            chunk = keys[start : start + CHUNK]
            if connection.vendor == "postgresql":
                table = CachedVectors._meta.db_table
                nullable = ("span", "layers") if self.layers else ("span",)
                for block in pgcopy.select(table, columns, "key", chunk, nulls_apart=nullable):
                    found.update(self._block(block))
            else:
                for row in CachedVectors.objects.filter(key__in=chunk).values_list(*columns):
                    found[row[0]] = self._vectors(row)
        return found

    def _block(self, block: pgcopy.Block) -> Iterator[tuple[str, Vectors]]:
        """The Vectors of a block of rows read by binary COPY: vectors are views of the bytes read."""
        keys, sentence, span, tokens, oov, truncated, *layered = block.columns
        sentence = sentence.view("<f4")
        span = None if span is None else span.view("<f4")
        tokens, oov, truncated = tokens.tolist(), oov.tolist(), truncated.tolist()
        layers, counts, dtypes = layered if layered and layered[0] is not None else (None, None, None)
        for i, key in enumerate(keys):
            vectors = Vectors(sentence[i], None if span is None else span[i], tokens[i], oov[i], truncated[i])
            if layers is not None:
                vectors.layer_sentences, vectors.layer_spans = decode_layers(
                    layers[i], int(counts[i]), dtypes[i], sentence.shape[1]
                )
            yield key, vectors

    def _vectors(self, row: tuple) -> Vectors:
        """The Vectors of one row as another database gives it (bytes, numbers)."""
        _, sentence, span, tokens, oov, truncated, *layered = row
        vectors = Vectors(
            sentence=decode(sentence),
            span=None if span is None else decode(span),
            tokens=tokens,
            oov=oov,
            span_truncated=truncated,
        )
        if layered and layered[0] is not None:
            data, count, dtype = layered
            vectors.layer_sentences, vectors.layer_spans = decode_layers(data, count, dtype, vectors.sentence.size)
        return vectors

    def put_many(self, items: dict[str, Vectors]) -> None:
        if not items:
            return
        if self.run is not None:
            run_memo.add(self.run, items)
        # Two workers may embed the same text at once: the first row wins, the second is dropped.
        new_rows.insert_new(CachedVectors, ROW_FIELDS, [self._row(key, vectors) for key, vectors in items.items()])

    def _row(self, key: str, vectors: Vectors) -> tuple:
        layers = encode_layers(vectors, self.layer_dtype)
        return (
            key,
            self.model,
            encode(vectors.sentence),
            None if vectors.span is None else encode(vectors.span),
            int(np.asarray(vectors.sentence).shape[-1]),
            int(vectors.tokens),
            int(vectors.oov),
            bool(getattr(vectors, "span_truncated", False)),
            layers,
            0 if layers is None else int(vectors.layer_sentences.shape[0]),
            "" if layers is None else self.layer_dtype,
        )


ROW_FIELDS = ("key", "model", "sentence", "span", "dim", "tokens", "oov", "span_truncated", *LAYER_COLUMNS)
