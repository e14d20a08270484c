"""The NC span maps to subword tokens through character offsets, never by searching token ids."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import AutoModel, AutoTokenizer

from probing.embedding import EmbedConfig, TextSpan, load_backend
from probing.embedding.base import tokens_in_span
from tests.float32 import assert_vectors_close

BANKS = "the bank by the bank"


def test_it_picks_the_occurrence_inside_the_span_not_the_first_with_the_same_id():
    offsets = [(0, 0), (0, 3), (4, 8), (9, 11), (12, 15), (16, 20), (0, 0)]
    assert tokens_in_span(offsets, (16, 20), BANKS) == [5]
    assert tokens_in_span(offsets, (4, 8), BANKS) == [2]


def test_it_takes_every_subword_of_an_inflected_form():
    text = "an eager beaver met eager beavers"
    offsets = [(0, 0), (0, 2), (3, 8), (9, 15), (16, 19), (20, 25), (26, 32), (32, 33), (0, 0)]
    assert tokens_in_span(offsets, (26, 33), text) == [6, 7]
    assert tokens_in_span(offsets, (20, 33), text) == [5, 6, 7]


def test_it_leaves_out_adjacent_punctuation():
    text = "(eager beavers), he said."
    offsets = [(0, 0), (0, 1), (1, 6), (7, 13), (13, 14), (14, 15), (15, 16), (17, 19), (20, 24), (24, 25), (0, 0)]
    assert tokens_in_span(offsets, (1, 14), text) == [2, 3, 4]


def test_it_ignores_the_space_a_metaspace_token_carries():
    # LLaMA-style tokens include the space before the word: "▁bank" is (15, 20) for "bank" at (16, 20).
    offsets = [(0, 0), (0, 3), (3, 8), (8, 10), (10, 11), (11, 15), (15, 20)]
    assert tokens_in_span(offsets, (16, 20), BANKS) == [6]
    assert tokens_in_span(offsets, (12, 16), BANKS) == [5]  # a span ending in a space does not take "▁bank"


def layer_mean_of(folder, text: str, layers=(-4, -3, -2, -1)) -> tuple[torch.Tensor, list[str]]:
    """Hidden states of one text run alone, averaged over layers, and its tokens."""
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    encoded = tokenizer(text, return_tensors="pt")
    inputs = {"input_ids": encoded["input_ids"], "attention_mask": encoded["attention_mask"]}
    with torch.no_grad():
        states = model(**inputs, output_hidden_states=True).hidden_states
    mean = torch.stack([states[layer][0] for layer in layers]).mean(dim=0)
    return mean, tokenizer.convert_ids_to_tokens(encoded["input_ids"][0])


BERT_CASES = [
    (BANKS, (16, 20), [5], ["bank"]),
    ("an eager beaver met eager beavers", (26, 33), [6, 7], ["beaver", "##s"]),
    ("(eager beavers), he said.", (1, 14), [2, 3, 4], ["eager", "beaver", "##s"]),
    ("he is a hard worker.", (8, 19), [4, 5], ["hard", "worker"]),
]
LLAMA_CASES = [
    (BANKS, (16, 20), [6], ["▁bank"]),
    ("an eager beaver met eager beavers", (26, 33), [8], ["▁beavers"]),
    ("(eager beavers), he said.", (1, 14), [3, 4], ["▁eager", "▁beavers"]),
    ("he is a hard worker.", (8, 19), [5, 6, 7, 9, 10, 11, 12, 13], ["h", "ar", "d", "w", "o", "r", "k", "er"]),
]


@pytest.mark.parametrize("model", ["tiny_bert", "tiny_llama"])
def test_span_vector_is_the_mean_of_exactly_the_span_tokens(model, request):
    folder = request.getfixturevalue(model)
    cases = BERT_CASES if model == "tiny_bert" else LLAMA_CASES
    backend = load_backend("transformer", str(folder))
    items = [TextSpan(text, span) for text, span, _, _ in cases]
    vectors = backend.embed_batch(items, EmbedConfig())  # one padded batch of texts of different lengths
    for (text, _, positions, tokens), got in zip(cases, vectors, strict=True):
        hidden, all_tokens = layer_mean_of(folder, text)
        assert [all_tokens[p] for p in positions] == tokens
        expected = hidden[positions].mean(dim=0).numpy()
        assert_vectors_close(got.span, expected)  # a padded batch vs the text alone
        assert got.span.dtype == np.float32


def test_the_second_bank_is_not_the_first_bank(tiny_bert):
    backend = load_backend("transformer", str(tiny_bert))
    first, second = backend.embed_batch([TextSpan(BANKS, (4, 8)), TextSpan(BANKS, (16, 20))], EmbedConfig())
    assert not np.allclose(first.span, second.span, atol=1e-4)
    np.testing.assert_array_equal(first.sentence, second.sentence)  # one pass for both spans


@pytest.mark.parametrize(("model", "specials"), [("tiny_bert", [0, -1]), ("tiny_llama", [0])])
def test_special_tokens_enter_the_sentence_mean_only_when_configured(model, specials, request):
    folder = request.getfixturevalue(model)
    backend = load_backend("transformer", str(folder))
    text = "he is a hard worker."
    hidden, tokens = layer_mean_of(folder, text)
    ordinary = [i for i in range(len(tokens)) if i not in {s % len(tokens) for s in specials}]
    without = backend.embed_batch([TextSpan(text)], EmbedConfig())[0]
    with_specials = backend.embed_batch([TextSpan(text)], EmbedConfig(include_special_tokens=True))[0]
    assert_vectors_close(without.sentence, hidden[ordinary].mean(dim=0).numpy())
    assert_vectors_close(with_specials.sentence, hidden.mean(dim=0).numpy())
    assert without.span is None


def test_layers_choose_the_hidden_states(tiny_bert):
    backend = load_backend("transformer", str(tiny_bert))
    item = TextSpan(BANKS, (16, 20))
    hidden, _ = layer_mean_of(tiny_bert, BANKS, layers=(0, 2))
    got = backend.embed_batch([item], EmbedConfig(layers=(0, 2)))[0]
    assert_vectors_close(got.span, hidden[5].numpy())
    with pytest.raises(ValueError, match="layer 9 does not exist"):
        backend.embed_batch([item], EmbedConfig(layers=(9,)))
