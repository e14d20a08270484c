"""The ELMo backend through load_backend and the engine, checked against bilm-tf's outputs (../shared/fixtures/elmo).

The backend starts every sentence from a zero LSTM state; bilm-tf did so for sentence 0 of each
list (tests/probing/elmo_reference.py), so those three sentences are compared number for number,
whatever else shares their batch; every sentence's vectors are the same in any batch.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil

import numpy as np
import pytest
import torch

from probing.embedding import EmbedConfig, TextSpan, load_backend
from probing.embedding.elmo_files import ElmoFilesError, elmo_files
from probing.models import EmbeddingModel
from probing.run.engine import MemoryCache, cache_key, embed_all
from tests.float32 import assert_vectors_close
from tests.probing.elmo_reference import ZERO_STATE, expected_top_layer, sentences, word_spans

TOP = EmbedConfig(layers=(2,))


@pytest.fixture
def elmo(fixture_elmo):
    return load_backend("elmo", str(fixture_elmo / "lm_weights.hdf5"))


def all_texts(folder) -> list[str]:
    return [text for texts in sentences(folder) for text in texts]


def token_items(texts: list[str]) -> list[TextSpan]:
    """One item per word of every text: a one-token span is that token's vector."""
    return [TextSpan(text, span) for text in texts for span in word_spans(text)]


@pytest.mark.parametrize("batch_size", [1, 3, 30])
def test_every_token_bilm_tf_computed_from_a_zero_state_matches_it_in_any_batch(elmo, fixture_elmo, batch_size):
    texts, expected = sentences(fixture_elmo), expected_top_layer(fixture_elmo)
    items = token_items(all_texts(fixture_elmo))  # all 30 sentences, so the three share batches with the others

    vectors = dict(zip(items, elmo.embed_batch(items, EmbedConfig(layers=(2,), batch_size=batch_size)), strict=True))

    for k, i in ZERO_STATE:
        text = texts[k][i]
        got = np.stack([vectors[TextSpan(text, span)].span for span in word_spans(text)])
        assert got.shape == expected[k][i].shape == (len(text.split()), 32)
        assert_vectors_close(got, expected[k][i], err_msg=f"{k} {i} batch of {batch_size}")


def test_every_sentence_has_the_same_vectors_in_batches_of_1_3_and_30(elmo, fixture_elmo):
    items = token_items(all_texts(fixture_elmo)) + [TextSpan(text) for text in all_texts(fixture_elmo)]
    shuffled = random.Random(3).sample(items, len(items))  # the engine sorts by length; this mixes lengths
    alone = dict(zip(items, elmo.embed_batch(items, EmbedConfig(layers=(0, 1, 2), batch_size=1)), strict=True))
    for batch_size in (3, 30):
        config = EmbedConfig(layers=(0, 1, 2), batch_size=batch_size)
        batched = dict(zip(shuffled, elmo.embed_batch(shuffled, config), strict=True))
        for item in items:
            assert_vectors_close(batched[item].sentence, alone[item].sentence)
            if item.span is not None:
                assert_vectors_close(batched[item].span, alone[item].span)


def test_the_engine_pools_the_expected_token_vectors(elmo, fixture_elmo):
    """What embed_text prints: the sentence vector is the mean of its tokens, a one-token span that token."""
    texts, expected = sentences(fixture_elmo), expected_top_layer(fixture_elmo)
    for k, i in ZERO_STATE:
        text, tokens = texts[k][i], expected[k][i]
        spans = word_spans(text)
        compound = (spans[3][0], spans[4][1])  # two words, as a noun compound's span
        items = [TextSpan(text), TextSpan(text, spans[3]), TextSpan(text, compound)]

        vectors, stats = embed_all(elmo, items, TOP, MemoryCache())

        assert stats.texts == 1 and stats.batches == 1
        sentence, one, two = (vectors[item] for item in items)
        assert_vectors_close(sentence.sentence, tokens.mean(axis=0))  # ours vs bilm-tf
        assert_vectors_close(one.span, tokens[3])
        assert_vectors_close(two.span, tokens[3:5].mean(axis=0))
        assert sentence.tokens == len(tokens) + 2 and sentence.oov == 0


def test_the_default_averages_the_three_layers_and_each_layer_can_be_asked_for(elmo, fixture_elmo):
    assert EmbeddingModel(kind="elmo").embed_config().layers == (0, 1, 2)
    assert EmbeddingModel(kind="elmo", config={"layers": [1]}).embed_config().layers == (1,)
    text = sentences(fixture_elmo)[0][0]
    item = TextSpan(text, word_spans(text)[2])
    each = [elmo.embed_batch([item], EmbedConfig(layers=(layer,)))[0] for layer in (0, 1, 2)]
    default = elmo.embed_batch([item], EmbeddingModel(kind="elmo").embed_config())[0]

    np.testing.assert_allclose(default.span, np.mean([v.span for v in each], axis=0), atol=1e-6)
    np.testing.assert_allclose(default.sentence, np.mean([v.sentence for v in each], axis=0), atol=1e-6)
    np.testing.assert_allclose(each[0].span[:16], each[0].span[16:])  # the token layer, twice
    np.testing.assert_allclose(elmo.embed_batch([item], EmbedConfig(layers=(-1,)))[0].span, each[2].span)
    assert not np.allclose(each[1].span, each[2].span)
    with pytest.raises(ValueError, match="layer 3 does not exist"):
        elmo.embed_batch([item], EmbedConfig(layers=(3,)))


def test_boundary_tokens_count_only_when_special_tokens_are_asked_for(elmo, fixture_elmo):
    text = sentences(fixture_elmo)[1][0]
    tokens = expected_top_layer(fixture_elmo)[1][0]
    without = elmo.embed_batch([TextSpan(text)], TOP)[0]
    with_them = elmo.embed_batch([TextSpan(text)], EmbedConfig(layers=(2,), include_special_tokens=True))[0]
    assert_vectors_close(without.sentence, tokens.mean(axis=0))
    assert np.abs(with_them.sentence - without.sentence).max() > 1e-3


def test_max_length_counts_the_boundary_tokens_and_a_span_beyond_it_has_no_vector(elmo):
    text = "the eager beaver built a dam"
    spans = word_spans(text)
    config = EmbedConfig(layers=(2,), max_length=5)  # three words and the two boundary tokens
    inside, beyond = elmo.embed_batch([TextSpan(text, spans[1]), TextSpan(text, spans[4])], config)
    assert inside.tokens == 5 and inside.span is not None and not inside.span_truncated
    assert beyond.span is None and beyond.span_truncated
    short = elmo.embed_batch([TextSpan("the eager beaver", (4, 9))], TOP)[0]
    assert_vectors_close(inside.span, short.span)  # the words cut off are never read


def test_any_text_reads_even_empty_or_without_a_span_match(elmo):
    empty, odd = elmo.embed_batch([TextSpan(""), TextSpan("ça   marche\t—  très 🙂 bien")], TOP)
    assert empty.tokens == 2 and np.isfinite(empty.sentence).all()  # the boundary tokens stand in
    assert odd.tokens == 8 and odd.sentence.shape == (32,) and np.isfinite(odd.sentence).all()


def test_the_identity_is_the_weights_sha256_and_the_architecture(elmo, fixture_elmo, tmp_path):
    identity = elmo.identity()
    weights = fixture_elmo / "lm_weights.hdf5"
    assert identity["kind"] == "elmo" and identity["dim"] == 32
    assert identity["weights_sha256"] == hashlib.sha256(weights.read_bytes()).hexdigest()
    assert identity["elmo_options"]["lstm"]["cell_clip"] == 3.0
    # The same weights under other options are another model: other vectors, other cache keys.
    copy = tmp_path / "clipped"
    copy.mkdir()
    shutil.copy(weights, copy / "lm_weights.hdf5")
    options = json.loads((fixture_elmo / "options.json").read_text())
    options["lstm"]["proj_clip"] = 0.1
    (copy / "options.json").write_text(json.dumps(options))
    clipped = load_backend("elmo", str(copy / "lm_weights.hdf5"))
    assert clipped.identity()["weights_sha256"] == identity["weights_sha256"]
    item = TextSpan("the eager beaver")
    assert cache_key(clipped.identity(), TOP, item) != cache_key(identity, TOP, item)
    assert not np.allclose(clipped.embed_batch([item], TOP)[0].sentence, elmo.embed_batch([item], TOP)[0].sentence)


def test_the_files_are_found_in_a_folder_beside_the_weights_or_given_as_two_paths(fixture_elmo, tmp_path):
    published = tmp_path / "published"
    published.mkdir()
    shutil.copy(fixture_elmo / "lm_weights.hdf5", published / "elmo_small_weights.hdf5")
    shutil.copy(fixture_elmo / "options.json", published / "elmo_small_options.json")
    (published / "README.json").write_text("{}")

    assert elmo_files(str(published)).options.name == "elmo_small_options.json"
    assert elmo_files(str(published / "elmo_small_weights.hdf5")).options.name == "elmo_small_options.json"
    assert elmo_files(str(fixture_elmo)).weights.name == "lm_weights.hdf5"  # the one named *weights*
    apart = tmp_path / "apart"
    apart.mkdir()
    shutil.copy(fixture_elmo / "lm_weights.hdf5", apart / "model.hdf5")
    (apart / "a.json").write_text("{}")
    (apart / "b.json").write_text("{}")
    with pytest.raises(ElmoFilesError, match="which options file goes with model.hdf5"):
        elmo_files(str(apart))
    two_paths = {"options_file": str(fixture_elmo / "options.json")}
    assert elmo_files(str(apart / "model.hdf5"), two_paths["options_file"]).options == fixture_elmo / "options.json"
    backend = load_backend("elmo", str(apart / "model.hdf5"), two_paths)
    assert backend.identity()["weights_sha256"] == load_backend("elmo", str(fixture_elmo)).identity()["weights_sha256"]


def test_bfloat16_gives_nearly_the_float32_vectors(elmo):
    item = TextSpan("the eager beaver built a dam", (4, 16))
    full = elmo.embed_batch([item], TOP)[0]
    half = elmo.embed_batch([item], EmbedConfig(layers=(2,), dtype="bfloat16"))[0]
    assert half.span.dtype == np.float32
    np.testing.assert_allclose(half.span, full.span, atol=0.1)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine")
def test_a_gpu_gives_the_cpu_vectors(elmo, fixture_elmo):
    items = token_items(all_texts(fixture_elmo)[:6])
    cpu = elmo.embed_batch(items, TOP)
    gpu = elmo.embed_batch(items, EmbedConfig(layers=(2,), device="cuda"))
    for a, b in zip(cpu, gpu, strict=True):
        assert_vectors_close(a.span, b.span)
