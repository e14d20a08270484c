"""The float32 comparison passes what batching changes and fails on what a bug changes."""

from __future__ import annotations

import numpy as np
import pytest

from probing.embedding import EmbedConfig, TextSpan, bundled_minilm_path, load_backend
from tests.float32 import assert_vectors_close, float32_close

SENTENCE = "He is an eager beaver."
BEAVER = TextSpan(SENTENCE, (9, 21))
SHIFTED = TextSpan(SENTENCE, (6, 15))  # "an eager": one token to the left
WORKER = TextSpan("He is a hard worker, they say.", (8, 19))


@pytest.fixture(scope="module")
def minilm():
    return load_backend("sentence_transformers", str(bundled_minilm_path()))


def test_the_difference_a_batch_of_two_makes_passes(minilm):
    alone = minilm.embed_batch([BEAVER], EmbedConfig())[0]
    paired = minilm.embed_batch([WORKER, BEAVER], EmbedConfig())[1]  # padded to the longer text
    assert_vectors_close(paired.span, alone.span)
    assert_vectors_close(paired.sentence, alone.sentence)


def test_the_difference_the_failing_ci_run_saw_passes():
    rng = np.random.default_rng(0)
    vector = rng.normal(scale=0.05, size=384).astype(np.float32)
    noisy = vector.copy()
    noisy[[17, 203]] += np.float32(1.19e-6)  # 2 of 384 elements, as in the failing run
    assert_vectors_close(noisy, vector)
    with pytest.raises(AssertionError):  # the old tolerance failed it
        np.testing.assert_allclose(noisy, vector, atol=1e-6, rtol=0)


def test_a_span_shifted_by_one_token_fails(minilm):
    right, shifted = minilm.embed_batch([BEAVER, SHIFTED], EmbedConfig())
    with pytest.raises(AssertionError):
        assert_vectors_close(shifted.span, right.span)


def test_another_text_fails(minilm):
    beaver, worker = minilm.embed_batch([BEAVER, WORKER], EmbedConfig())
    with pytest.raises(AssertionError):
        assert_vectors_close(worker.sentence, beaver.sentence)


def test_a_measure_from_such_vectors_is_compared_at_the_same_tolerance():
    assert 0.8123461 == float32_close(0.8123456)
    assert 0.8124 != float32_close(0.8123456)
    assert float32_close(None) is None and 0.1 != float32_close(None)
