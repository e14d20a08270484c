"""The embedding cache in the database: the engine's VectorCache over ``CachedVectors`` rows.

Keys come from ``probing.engine.cache_key`` (text, span, model identity and every config value
that changes a vector), so a row is never reused for a different model, revision or config, and
any worker on any machine shares what the others embedded.
"""

from __future__ import annotations

import numpy as np

from probing.embedding.base import Vectors
from probing.models import CachedVectors

CHUNK = 500  # keys per query: well under any database's parameter limit


def encode(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype="<f4").tobytes()


def decode(data: bytes | memoryview) -> np.ndarray:
    return np.frombuffer(bytes(data), dtype="<f4").astype(np.float32)


class DatabaseVectorCache:
    """VectorCache on ``CachedVectors``; ``model`` is the identity hash the rows are filed under."""

    def __init__(self, model: str) -> None:
        self.model = model

    def get_many(self, keys: list[str]) -> dict[str, Vectors]:
        found: dict[str, Vectors] = {}
        keys = list(dict.fromkeys(keys))
        for start in range(0, len(keys), CHUNK):
            rows = CachedVectors.objects.filter(key__in=keys[start : start + CHUNK]).values_list(
                "key", "sentence", "span", "tokens", "oov", "span_truncated"
            )
            for key, sentence, span, tokens, oov, truncated in rows:
                found[key] = Vectors(
                    sentence=decode(sentence),
                    span=None if span is None else decode(span),
                    tokens=tokens,
                    oov=oov,
                    span_truncated=truncated,
                )
        return found

    def put_many(self, items: dict[str, Vectors]) -> None:
        rows = [
            CachedVectors(
                key=key,
                model=self.model,
                sentence=encode(vectors.sentence),
                span=None if vectors.span is None else encode(vectors.span),
                dim=int(np.asarray(vectors.sentence).shape[-1]),
                tokens=int(vectors.tokens),
                oov=int(vectors.oov),
                span_truncated=bool(getattr(vectors, "span_truncated", False)),
            )
            for key, vectors in items.items()
        ]
        # Two workers may embed the same text at once: the first row wins, the second is dropped.
        CachedVectors.objects.bulk_create(rows, batch_size=CHUNK, ignore_conflicts=True)
