"""HuggingFace encoders and decoders through load_backend: identity, batching, truncation, dtype."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch

from probing.embedding import EmbedConfig, TextSpan, load_backend
from probing.run.engine import MemoryCache, embed_all
from tests.float32 import assert_vectors_close

WORDS = "the bank by river an a eager beaver met he is hard worker police car build dams".split()


def sentences(count: int = 40, seed: int = 1) -> list[TextSpan]:
    """Texts of 1 to 20 words, each with a span over its last word."""
    rng = random.Random(seed)
    items = []
    for _ in range(count):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 20))) + "."
        last = text[:-1].rsplit(" ", 1)[-1]
        items.append(TextSpan(text, (len(text) - 1 - len(last), len(text) - 1)))
    return items


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_llama"])
def test_vectors_do_not_depend_on_the_batch_size(model, request):
    backend = load_backend("transformer", str(request.getfixturevalue(model)))
    items = sentences()
    runs = [embed_all(backend, items, EmbedConfig(batch_size=size))[0] for size in (1, 7, 32)]
    for other in runs[1:]:
        for item in items:
            assert_vectors_close(other[item].sentence, runs[0][item].sentence)
            assert_vectors_close(other[item].span, runs[0][item].span)


def test_a_decoder_gets_a_pad_token_and_right_padding(tiny_llama):
    backend = load_backend("transformer", str(tiny_llama))
    assert backend.tokenizer.pad_token is not None
    assert backend.tokenizer.padding_side == "right"


def test_identity_follows_the_weights(tiny_bert, make_tiny_bert, tmp_path):
    same = load_backend("transformer", str(tiny_bert)).identity()
    assert same == load_backend("transformer", str(tiny_bert)).identity()
    assert same["kind"] == "transformer" and same["name"] == "tiny-bert" and same["dim"] == 32
    other = load_backend("transformer", str(make_tiny_bert(tmp_path / "tiny-bert", seed=1))).identity()
    assert other["name"] == same["name"]
    assert other["weights_sha256"] != same["weights_sha256"]


def test_identity_uses_a_revision_when_there_is_one(tiny_bert, tmp_path):
    pinned = load_backend("transformer", str(tiny_bert), {"revision": "abc123", "name": "tiny"}).identity()
    assert pinned == {"kind": "transformer", "name": "tiny", "revision": "abc123", "dim": 32}
    config = json.loads((tiny_bert / "config.json").read_text())
    copy = tmp_path / "hub-copy"
    copy.mkdir()
    for file in tiny_bert.iterdir():
        (copy / file.name).write_bytes(file.read_bytes())
    (copy / "config.json").write_text(json.dumps({**config, "_commit_hash": "f00d"}))
    assert load_backend("transformer", str(copy)).identity()["revision"] == "f00d"


def test_a_span_cut_off_by_max_length_has_no_vector_and_is_counted(tiny_bert):
    backend = load_backend("transformer", str(tiny_bert))
    text = "he is a hard worker by the river bank."
    early, late = TextSpan(text, (8, 19)), TextSpan(text, (33, 37))
    vectors, stats = embed_all(backend, [early, late], EmbedConfig(max_length=8))
    assert vectors[early].span is not None and vectors[early].tokens == 8
    assert vectors[late].span is None and vectors[late].span_truncated
    assert stats.spans_truncated == 1
    assert embed_all(backend, [late], EmbedConfig())[1].spans_truncated == 0


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_runs_on_cpu_and_returns_float32(tiny_bert, dtype):
    backend = load_backend("transformer", str(tiny_bert))
    item = TextSpan("the bank by the bank", (16, 20))
    full = backend.embed_batch([item], EmbedConfig())[0]
    half = backend.embed_batch([item], EmbedConfig(dtype=dtype))[0]
    assert half.sentence.dtype == np.float32 and half.span.dtype == np.float32
    np.testing.assert_allclose(half.span, full.span, atol=0.1)
    again = backend.embed_batch([item], EmbedConfig())[0]  # back to float32: the weights are reloaded
    np.testing.assert_array_equal(again.span, full.span)


def test_cache_hits_and_invalidation(tiny_bert):
    backend = load_backend("transformer", str(tiny_bert))
    items = sentences(10)
    cache = MemoryCache()
    first, stats = embed_all(backend, items, EmbedConfig(), cache=cache)
    assert (stats.cached, stats.embedded) == (0, 10)
    again, stats = embed_all(backend, items, EmbedConfig(batch_size=3), cache=cache)
    assert (stats.cached, stats.embedded) == (10, 0)
    np.testing.assert_array_equal(again[items[0]].span, first[items[0]].span)
    changed, stats = embed_all(backend, items, EmbedConfig(layers=(-1,)), cache=cache)
    assert (stats.cached, stats.embedded) == (0, 10)
    assert not np.allclose(changed[items[0]].span, first[items[0]].span)


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_llama"])
def test_the_fast_encoder_gives_what_the_tokenizer_call_gives(model, request):
    from probing.embedding.pooling import FastEncoder

    backend = load_backend("transformer", str(request.getfixturevalue(model)))
    texts = [item.text for item in sentences(12)] + ["", "he is a hard worker."]
    encoder = FastEncoder(backend.tokenizer)
    lengths = [len(ids) for ids in backend.tokenizer(texts)["input_ids"]]
    assert min(lengths) <= 8 < max(lengths)  # some texts are cut at 8 tokens, some are not
    # Encoded in the batch, then again from the encodings ``lengths`` kept (re-encoded where cut).
    for kept in (False, True):
        if kept:
            assert encoder.lengths(texts) == lengths
        for max_length in (8, 512):
            expected = backend.tokenizer(
                texts,
                padding=True,
                truncation=True,
                max_length=max_length,
                return_offsets_mapping=True,
                return_special_tokens_mask=True,
                return_tensors="pt",
            )
            got = encoder.batch(texts, max_length)
            assert set(got) == set(expected)
            for key in got:
                assert torch.equal(got[key], expected[key]), (key, max_length, kept)
