"""probing/likelihood/shared_pass.py: the scoring pass's vectors are the `transformer` backend's, cut and uncut."""

from __future__ import annotations

import numpy as np
import pytest

from probing.embedding.base import EmbedConfig, TextSpan
from probing.embedding.transformer import TransformerBackend
from probing.likelihood.loading import open_language_model
from probing.likelihood.shared_pass import fits
from tests.probing.likelihood.conftest import CORPUS


def span(text: str, compound: str) -> TextSpan:
    start = text.index(compound)
    return TextSpan(text, (start, start + len(compound)))


# Each text with its compound as the span, and one without a span (sentence vectors only).
ITEMS = [
    span(CORPUS[0], "night owl"),
    span(CORPUS[1], "research lab"),
    span(CORPUS[1], "grey matter"),  # a second span of the same text
    span(CORPUS[2], "eager beaver"),
    TextSpan(CORPUS[3], None),
]


def both(folder, config: EmbedConfig, items=ITEMS):
    """(the shared pass's vectors and scores, the transformer backend's vectors, the plain scores) of ``items``."""
    lm = open_language_model("causal_lm", str(folder))
    texts = list(dict.fromkeys([item.text for item in items] + CORPUS[4:]))
    scores, vectors = lm.score_and_embed(texts, items, config, batch_size=3)
    expected = TransformerBackend(str(folder), {}).embed_batch(list(items), config)
    plain = open_language_model("causal_lm", str(folder)).score(texts, batch_size=3)
    return scores, vectors, expected, plain


def assert_same_vectors(vectors, expected, items=ITEMS):
    for item, want in zip(items, expected, strict=True):
        got = vectors[item]
        np.testing.assert_allclose(got.sentence, want.sentence, atol=1e-5)
        if want.span is None:
            assert got.span is None
        else:
            np.testing.assert_allclose(got.span, want.span, atol=1e-5)
        assert got.span_truncated == want.span_truncated


@pytest.mark.parametrize("folder", ["tiny_llama", "tiny_gpt2"])
def test_the_scoring_pass_gives_the_transformer_backends_vectors_and_unchanged_scores(request, folder):
    path = request.getfixturevalue(folder)
    scores, vectors, expected, plain = both(path, EmbedConfig(layers=(-1, -2)))

    assert_same_vectors(vectors, expected)
    flat = [value for score in scores for value in score.logprobs]
    assert flat == pytest.approx([value for score in plain for value in score.logprobs], abs=1e-6, nan_ok=True)
    assert [score.names for score in scores] == [score.names for score in plain]
    assert len(vectors) == len(ITEMS)


def test_a_layer_sweep_gives_every_layer_as_the_transformer_backend_does(tiny_llama):
    _, vectors, expected, _ = both(tiny_llama, EmbedConfig(sweep="all"))

    for item, want in zip(ITEMS, expected, strict=True):
        assert vectors[item].layer_sentences.shape == want.layer_sentences.shape == (4, 32)
        np.testing.assert_allclose(vectors[item].layer_sentences, want.layer_sentences, atol=1e-5)
        if want.layer_spans is not None:
            np.testing.assert_allclose(vectors[item].layer_spans, want.layer_spans, atol=1e-5)


def test_texts_longer_than_max_length_are_pooled_as_the_cut_text(tiny_llama):
    # Cut at 6 tokens: the first sentence's span is past the cut (no span vector), the others' sentences shorter.
    _, vectors, expected, _ = both(tiny_llama, EmbedConfig(max_length=6))

    assert_same_vectors(vectors, expected)
    assert vectors[ITEMS[0]].span_truncated and vectors[ITEMS[0]].span is None


def test_a_cut_that_would_drop_a_special_token_at_the_end_is_left_for_its_own_pass():
    # LLaMA's <s> comes first: a cut keeps it. A tokenizer that ends each text with </s> would lose it.
    starts = {"ids": [1, 5, 6, 7], "special": [1, 0, 0, 0]}
    ends = {"ids": [5, 6, 7, 2], "special": [0, 0, 0, 1]}
    assert fits(starts, 4) and fits(starts, 2) and fits(ends, 4)
    assert not fits(ends, 2)


def test_only_a_causal_lm_scores_and_embeds_in_one_pass(tiny_bert):
    lm = open_language_model("masked_lm", str(tiny_bert))
    with pytest.raises(ValueError, match="only a causal LM"):
        lm.score_and_embed(CORPUS[:1], [TextSpan(CORPUS[0], None)], EmbedConfig())
