"""Embed many texts once each: deduplicate, look up the cache, batch by token length, store what is new.

Items are deduplicated by (text, span), and every span of a text comes from the same forward pass:
batches are cut over unique texts (config.batch_size of them), sorted by token length so that padding
stays short. Each batch is written to the cache as soon as it is done, so a killed run resumes.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from probing.embedding.base import Backend, EmbedConfig, TextSpan, Vectors


class VectorCache(Protocol):
    def get_many(self, keys: list[str]) -> dict[str, Vectors]: ...

    def put_many(self, items: dict[str, Vectors]) -> None: ...


class MemoryCache:
    """A dict-backed VectorCache (one process; tests and benchmarks)."""

    def __init__(self) -> None:
        self.vectors: dict[str, Vectors] = {}

    def get_many(self, keys: list[str]) -> dict[str, Vectors]:
        return {key: self.vectors[key] for key in keys if key in self.vectors}

    def put_many(self, items: dict[str, Vectors]) -> None:
        self.vectors.update(items)

    def __len__(self) -> int:
        return len(self.vectors)


def cache_key(identity: dict, config: EmbedConfig, item: TextSpan) -> str:
    """sha256 hex of the model identity, the config values that change a vector, the text and the span."""
    payload = {
        "identity": identity,
        "config": config.vector_key(),
        "text": item.text,
        "span": list(item.span) if item.span is not None else None,
    }
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass
class EngineStats:
    """What one embed_all call did."""

    requested: int  # items given, duplicates included
    unique: int  # distinct (text, span) items
    cached: int  # unique items found in the cache
    embedded: int  # unique items computed now
    batches: int  # forward passes (backend calls)
    seconds: float
    oov: int  # out-of-vocabulary words over the distinct texts (static backends)
    texts: int = 0  # distinct texts run through the model
    spans_truncated: int = 0  # span vectors lost to max_length truncation

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def embed_all(
    backend: Backend,
    items: Iterable[TextSpan],
    config: EmbedConfig,
    cache: VectorCache | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[TextSpan, Vectors], EngineStats]:
    """Vectors for every distinct item; on_progress(done, total) counts the items to embed."""
    started = time.perf_counter()
    items = list(items)
    unique = list(dict.fromkeys(items))
    identity = backend.identity()
    keys = {item: cache_key(identity, config, item) for item in unique}
    results: dict[TextSpan, Vectors] = {}
    if cache is not None and unique:
        found = cache.get_many(list(keys.values()))
        results = {item: found[key] for item, key in keys.items() if key in found}
    cached = len(results)

    by_text: dict[str, list[TextSpan]] = {}
    for item in unique:
        if item not in results:
            by_text.setdefault(item.text, []).append(item)
    texts = list(by_text)
    lengths = backend.token_lengths(texts) if texts else []
    order = sorted(range(len(texts)), key=lambda i: (lengths[i], texts[i]))
    total = sum(len(spans) for spans in by_text.values())
    done = batches = 0
    if on_progress is not None:
        on_progress(0, total)
    for start in range(0, len(order), config.batch_size):
        batch = [item for i in order[start : start + config.batch_size] for item in by_text[texts[i]]]
        fresh = dict(zip(batch, backend.embed_batch(batch, config), strict=True))
        results.update(fresh)
        if cache is not None:
            cache.put_many({keys[item]: vectors for item, vectors in fresh.items()})
        batches += 1
        done += len(batch)
        if on_progress is not None:
            on_progress(done, total)

    ordered = {item: results[item] for item in unique}
    stats = EngineStats(
        requested=len(items),
        unique=len(unique),
        cached=cached,
        embedded=total,
        batches=batches,
        seconds=time.perf_counter() - started,
        oov=sum({item.text: vectors.oov for item, vectors in ordered.items()}.values()),  # once per text
        texts=len(texts),
        spans_truncated=sum(1 for vectors in ordered.values() if vectors.span_truncated),
    )
    return ordered, stats
