"""Layer sweeps: one forward pass gives every layer's pooled vectors, equal to a run of that layer alone."""

from __future__ import annotations

import numpy as np
import pytest

from probing.embedding import EmbedConfig, TextSpan, bundled_minilm_path, load_backend
from probing.embedding.base import merge_config
from probing.run.engine import cache_key, embed_all
from tests.float32 import assert_vectors_close

ITEMS = [
    TextSpan("an eager beaver met eager beavers", (3, 15)),
    TextSpan("he is a hard worker.", (8, 19)),
    TextSpan("the river bank is steep and the beavers build dams", None),
]


def test_each_swept_layer_equals_that_layer_run_alone(tiny_bert):
    backend = load_backend("transformer", str(tiny_bert))
    assert backend.layer_count() == 5  # the embedding layer and four transformer layers
    swept, stats = embed_all(backend, ITEMS, EmbedConfig(sweep="all", batch_size=2))
    assert stats.texts == 3  # one pass per text, whatever the number of layers
    for layer in range(5):
        alone = embed_all(backend, ITEMS, EmbedConfig(layers=(layer,), batch_size=2))[0]
        for item in ITEMS:
            np.testing.assert_allclose(swept[item].layer_sentences[layer], alone[item].sentence, atol=1e-6)
            if item.span is None:
                assert swept[item].layer_spans is None
            else:
                np.testing.assert_allclose(swept[item].layer_spans[layer], alone[item].span, atol=1e-6)
    # The layers differ from each other, and the configured combination is still the run's main vector.
    beaver = swept[ITEMS[0]]
    assert not np.allclose(beaver.layer_spans[1], beaver.layer_spans[4], atol=1e-3)
    plain = embed_all(backend, ITEMS, EmbedConfig(batch_size=2))[0]
    np.testing.assert_allclose(beaver.span, plain[ITEMS[0]].span, atol=1e-6)
    np.testing.assert_allclose(beaver.span, beaver.layer_spans[1:].mean(axis=0), atol=1e-6)


def test_a_listed_sweep_keeps_its_order_and_counts_from_the_end_too(tiny_bert):
    backend = load_backend("transformer", str(tiny_bert))
    vectors = embed_all(backend, ITEMS[:1], EmbedConfig(sweep=[-1, 0]))[0][ITEMS[0]]
    every = embed_all(backend, ITEMS[:1], EmbedConfig(sweep="all"))[0][ITEMS[0]]
    assert vectors.layer_sentences.shape == (2, 32)
    np.testing.assert_allclose(vectors.layer_sentences, every.layer_sentences[[4, 0]], atol=1e-6)
    with pytest.raises(ValueError, match="layer 7 does not exist"):
        embed_all(backend, ITEMS, EmbedConfig(sweep=[7]))


def test_the_pipeline_of_a_sentence_transformer_stays_the_combination():
    backend = load_backend("sentence_transformers", str(bundled_minilm_path()))
    assert backend.layer_count() == 7
    swept = embed_all(backend, ITEMS[:2], EmbedConfig(sweep="all"))[0]
    plain = embed_all(backend, ITEMS[:2], EmbedConfig())[0]
    for item in ITEMS[:2]:
        assert_vectors_close(swept[item].sentence, plain[item].sentence)  # hidden states vs the pipeline
        # The pipeline's token vectors are its transformer's last hidden state: the same span vector.
        assert_vectors_close(swept[item].layer_spans[-1], plain[item].span)
        # Its sentence vector is normalised mean pooling with special tokens; layer 6 alone is not normalised.
        assert abs(np.linalg.norm(swept[item].sentence) - 1) < 1e-5
        assert abs(np.linalg.norm(swept[item].layer_sentences[-1]) - 1) > 0.1


def test_static_vectors_have_no_layers_to_sweep(tmp_path):
    path = tmp_path / "vectors.txt"
    path.write_text("2 3\neager 1 0 0\nbeaver 0 1 0\n")
    backend = load_backend("static_vectors", str(path))
    with pytest.raises(ValueError, match="static_vectors model has no layers to sweep"):
        embed_all(backend, [TextSpan("eager beaver")], EmbedConfig(sweep="all"))


def test_a_sweep_is_part_of_the_cache_key_and_the_config_but_absent_otherwise():
    identity = {"kind": "transformer", "name": "m", "dim": 32, "revision": "r"}
    item = ITEMS[0]
    plain, swept = EmbedConfig(), EmbedConfig(sweep="all")
    assert "sweep" not in plain.vector_key() and "sweep" not in plain.as_dict()
    assert swept.vector_key()["sweep"] == "all" and swept.as_dict()["sweep_storage"] == "float32"
    keys = {
        cache_key(identity, config, item)
        for config in (plain, swept, EmbedConfig(sweep="all", sweep_storage="float16"))
    }
    assert len(keys) == 3
    assert EmbedConfig.from_dict(EmbedConfig(sweep=[0, 2]).as_dict()) == EmbedConfig(sweep=(0, 2))
    assert EmbedConfig.from_dict({"layers": "all"}) == EmbedConfig(sweep="all")
    for bad in ({"sweep": "last"}, {"sweep": []}, {"sweep": [True]}, {"sweep_storage": "int8"}):
        with pytest.raises(ValueError):
            EmbedConfig.from_dict(bad)


def test_layers_all_keeps_the_combination_of_the_settings_below_it():
    merged = merge_config({"layers": [0, 1, 2]}, {"batch_size": 8}, {"layers": "all"})
    assert merged == {"layers": [0, 1, 2], "batch_size": 8, "sweep": "all"}
    assert merge_config({"layers": [0, 1, 2]}, {"layers": [-1]}) == {"layers": [-1]}
