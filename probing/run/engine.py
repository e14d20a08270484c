"""Embed many texts once each: deduplicate, look up the cache, batch by token length, store what is new.

Items are deduplicated by (text, span), and every span of a text comes from the same forward pass:
batches are cut over unique texts (config.batch_size of them), sorted by token length so that padding
stays short. New vectors are written to the cache every ``SAVE_EVERY`` items (in one bulk write),
so a killed run resumes having lost at most that many.
With a layer sweep (``config.sweep``) the same pass gives every swept layer's vectors too.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from json.encoder import encode_basestring  # json.dumps of a str, ensure_ascii=False
from typing import Protocol

import numpy as np

from probing.embedding.base import Backend, EmbedConfig, TextSpan, Vectors, check_sweep

SAVE_EVERY = 1024  # vectors written to the cache at once: a killed run loses at most this many


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


KEYS_KEPT = 200_000  # items whose keys a process remembers (a full public release is about 25,000)
_known_keys: dict[str, dict[TextSpan, str]] = {}  # per identity and config (the head's JSON)


class CacheKeys:
    """``cache_key`` for many items of one identity and config: the shared part is encoded and hashed once.

    A worker computes the keys of a run's items in its shards and again when the run finishes, and
    a new release of the same texts asks for them once more: the process remembers up to
    ``KEYS_KEPT`` of them (sha256 of the same bytes is the same key).
    """

    def __init__(self, identity: dict, config: EmbedConfig) -> None:
        # The canonical JSON of cache_key's payload, keys sorted: config, identity, span, text.
        dump = _canonical
        head = '{"config":' + dump(config.vector_key()) + ',"identity":' + dump(identity) + ',"span":'
        self._head = hashlib.sha256(head.encode("utf-8"))
        if head not in _known_keys and sum(map(len, _known_keys.values())) >= KEYS_KEPT:
            _known_keys.clear()
        self._known = _known_keys.setdefault(head, {})

    def __call__(self, item: TextSpan) -> str:
        key = self._known.get(item)
        if key is None:
            span = "null" if item.span is None else f"[{item.span[0]},{item.span[1]}]"
            digest = self._head.copy()
            digest.update((span + ',"text":' + encode_basestring(item.text) + "}").encode("utf-8"))
            key = digest.hexdigest()
            if len(self._known) < KEYS_KEPT:
                self._known[item] = key
        return key


def as_stored(layers: np.ndarray | None) -> np.ndarray | None:
    """Layer vectors rounded to float16, as a sweep with ``sweep_storage="float16"`` caches them (float32 again)."""
    return None if layers is None else layers.astype(np.float16).astype(np.float32)


def round_as_stored(fresh: Iterable[Vectors], config: EmbedConfig) -> None:
    """Fresh vectors' layers as the cache will give them back (float16 sweeps): the same numbers from any shard."""
    if config.sweep is not None and config.sweep_storage == "float16":
        for vectors in fresh:
            vectors.layer_sentences = as_stored(vectors.layer_sentences)
            vectors.layer_spans = as_stored(vectors.layer_spans)


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


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
    borrowed: int = 0  # items read from the cache that another shard of the run embedded

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def embed_all(
    backend: Backend,
    items: Iterable[TextSpan],
    config: EmbedConfig,
    cache: VectorCache | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[TextSpan, Vectors], EngineStats]:
    """Vectors for every distinct item; on_progress(done, total) counts the items to embed.

    ValueError before any work when ``config.sweep`` asks for layers the backend does not have.
    """
    started = time.perf_counter()
    check_sweep(backend, config)
    items = list(items)
    unique = list(dict.fromkeys(items))
    key_of = CacheKeys(backend.identity(), config)
    keys = {item: key_of(item) for item in unique}
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
    unsaved: dict[str, Vectors] = {}
    if on_progress is not None:
        on_progress(0, total)
    for start in range(0, len(order), config.batch_size):
        batch = [item for i in order[start : start + config.batch_size] for item in by_text[texts[i]]]
        fresh = dict(zip(batch, backend.embed_batch(batch, config), strict=True))
        round_as_stored(fresh.values(), config)
        results.update(fresh)
        unsaved.update((keys[item], vectors) for item, vectors in fresh.items())
        batches += 1
        done += len(batch)
        if cache is not None and (len(unsaved) >= SAVE_EVERY or done >= total):
            cache.put_many(unsaved)
            unsaved = {}
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
