"""embed_all: every distinct text once, length-sorted batches, a content-keyed cache and progress."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from probing.embedding.base import EmbedConfig, TextSpan, Vectors
from probing.run.engine import EngineStats, MemoryCache, cache_key, embed_all

IDENTITY = {"kind": "fake", "name": "counting", "revision": "1", "dim": 3}


class CountingBackend:
    """Vectors from the text and span; records every batch it is given."""

    kind = "fake"
    supports_span = True

    def __init__(self) -> None:
        self.batches: list[list[TextSpan]] = []

    def identity(self) -> dict:
        return IDENTITY

    def token_lengths(self, texts: list[str]) -> list[int]:
        return [len(text.split()) for text in texts]

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        self.batches.append(list(items))
        return [
            Vectors(
                sentence=np.array([len(item.text), 0, 1], dtype=np.float32),
                span=None if item.span is None else np.array(item.span + (0,), dtype=np.float32),
                tokens=len(item.text.split()),
                oov=item.text.count("?"),
            )
            for item in items
        ]

    def texts_seen(self) -> list[str]:
        return [text for batch in self.batches for text in dict.fromkeys(item.text for item in batch)]


ORIGINAL = TextSpan("he is an eager beaver", (9, 21))
SYNONYM = TextSpan("he is a hard worker", (8, 19))
RANDOM = TextSpan("he is a police car", (8, 18))


def test_each_distinct_text_is_embedded_once_with_all_its_spans():
    backend = CountingBackend()
    head_only = TextSpan(ORIGINAL.text, (15, 21))
    items = [ORIGINAL, SYNONYM, ORIGINAL, RANDOM, ORIGINAL, head_only, SYNONYM]
    vectors, stats = embed_all(backend, items, EmbedConfig(batch_size=2))
    assert sorted(backend.texts_seen()) == sorted({item.text for item in items})
    assert {ORIGINAL, head_only} <= set(next(b for b in backend.batches if ORIGINAL in b))
    assert set(vectors) == {ORIGINAL, SYNONYM, RANDOM, head_only}
    assert (stats.requested, stats.unique, stats.texts, stats.embedded, stats.batches) == (7, 4, 3, 4, 2)
    np.testing.assert_array_equal(vectors[head_only].span, [15, 21, 0])


def test_batches_hold_texts_of_similar_length():
    backend = CountingBackend()
    items = [TextSpan(" ".join(["w"] * n) + f" {n}") for n in (9, 1, 5, 3, 7, 2, 8, 4)]
    embed_all(backend, items, EmbedConfig(batch_size=3))
    lengths = [[len(item.text.split()) for item in batch] for batch in backend.batches]
    assert lengths == [[2, 3, 4], [5, 6, 8], [9, 10]]


def test_a_second_run_with_the_same_cache_embeds_nothing():
    backend, cache = CountingBackend(), MemoryCache()
    first, stats = embed_all(backend, [ORIGINAL, SYNONYM], EmbedConfig(), cache=cache)
    assert stats.cached == 0 and len(cache) == 2
    again, stats = embed_all(backend, [SYNONYM, ORIGINAL], EmbedConfig(batch_size=1, device="cuda:1"), cache=cache)
    assert (stats.cached, stats.embedded, stats.batches) == (2, 0, 0)
    assert len(backend.batches) == 1
    np.testing.assert_array_equal(again[ORIGINAL].span, first[ORIGINAL].span)


def test_a_new_release_only_embeds_the_texts_it_adds():
    backend, cache = CountingBackend(), MemoryCache()
    embed_all(backend, [ORIGINAL, SYNONYM], EmbedConfig(), cache=cache)
    _, stats = embed_all(backend, [ORIGINAL, SYNONYM, RANDOM], EmbedConfig(), cache=cache)
    assert (stats.cached, stats.embedded) == (2, 1)
    assert backend.batches[-1] == [RANDOM]


def test_progress_counts_the_items_to_embed():
    calls = []
    cache = MemoryCache()
    embed_all(CountingBackend(), [ORIGINAL], EmbedConfig(), cache=cache)
    items = [ORIGINAL, SYNONYM, RANDOM, TextSpan("a b"), TextSpan("a b c d e")]
    embed_all(CountingBackend(), items, EmbedConfig(batch_size=2), cache=cache, on_progress=lambda *a: calls.append(a))
    assert calls == [(0, 4), (2, 4), (4, 4)]


def test_out_of_vocabulary_words_are_counted_once_per_text():
    items = [TextSpan("what? why?", (0, 5)), TextSpan("what? why?", (6, 10)), TextSpan("ok")]
    _, stats = embed_all(CountingBackend(), items, EmbedConfig())
    assert stats.oov == 2
    assert isinstance(stats, EngineStats) and stats.as_dict()["oov"] == 2


def test_nothing_to_embed():
    vectors, stats = embed_all(CountingBackend(), [], EmbedConfig(), cache=MemoryCache())
    assert vectors == {} and (stats.requested, stats.batches) == (0, 0)


KEY = cache_key(IDENTITY, EmbedConfig(), ORIGINAL)


@pytest.mark.parametrize(
    "change",
    [
        {"layers": (-1,)},
        {"layers": (-1, -2, -3, -4)},
        {"include_special_tokens": True},
        {"dtype": "bfloat16"},
        {"max_length": 128},
    ],
)
def test_the_cache_key_changes_with_every_config_value_that_changes_a_vector(change):
    assert cache_key(IDENTITY, dataclasses.replace(EmbedConfig(), **change), ORIGINAL) != KEY


@pytest.mark.parametrize("change", [{"batch_size": 1}, {"device": "cuda:0"}])
def test_the_cache_key_ignores_speed_settings(change):
    assert cache_key(IDENTITY, dataclasses.replace(EmbedConfig(), **change), ORIGINAL) == KEY


def test_the_cache_key_changes_with_the_model_the_text_and_the_span():
    assert cache_key({**IDENTITY, "revision": "2"}, EmbedConfig(), ORIGINAL) != KEY
    assert cache_key(IDENTITY, EmbedConfig(), TextSpan(ORIGINAL.text)) != KEY
    assert cache_key(IDENTITY, EmbedConfig(), TextSpan(ORIGINAL.text, (15, 21))) != KEY
    assert cache_key(IDENTITY, EmbedConfig(), TextSpan(ORIGINAL.text + " ", (9, 21))) != KEY
    assert cache_key(dict(reversed(list(IDENTITY.items()))), EmbedConfig(), ORIGINAL) == KEY
    assert len(KEY) == 64 and int(KEY, 16) >= 0


def test_cache_keys_remembered_by_the_process_stay_those_of_their_model_and_config(monkeypatch):
    from probing.run import engine

    monkeypatch.setattr(engine, "_known_keys", {})
    monkeypatch.setattr(engine, "KEYS_KEPT", 3)
    items = [ORIGINAL, TextSpan(ORIGINAL.text), TextSpan("Another text.", (0, 7)), TextSpan("A fourth.", None)]
    other_config = dataclasses.replace(EmbedConfig(), layers=(-1,))
    for _ in range(2):  # computed, then remembered: the same keys
        assert [engine.CacheKeys(IDENTITY, EmbedConfig())(i) for i in items] == [
            cache_key(IDENTITY, EmbedConfig(), i) for i in items
        ]
        assert [engine.CacheKeys(IDENTITY, other_config)(i) for i in items] == [
            cache_key(IDENTITY, other_config, i) for i in items
        ]
    assert engine.CacheKeys(IDENTITY, EmbedConfig())(ORIGINAL) == KEY
    assert sum(map(len, engine._known_keys.values())) <= 3  # bounded
