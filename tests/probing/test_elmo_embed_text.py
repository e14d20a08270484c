"""embed_text on the fixture ELMo prints bilm-tf's own numbers; a layer sweep gives its three layers from one pass."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from probing.actions import register_model
from probing.embedding import EmbedConfig, TextSpan, load_backend
from tests.float32 import assert_vectors_close
from tests.probing.elmo_reference import ZERO_STATE, expected_top_layer, sentences, word_spans

pytestmark = pytest.mark.django_db


def embed_text(*args: str) -> dict:
    out = StringIO()
    call_command("embed_text", *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.parametrize("layers", ["all", "2"])
def test_embed_text_prints_the_top_layer_bilm_tf_computed(elmo_loadable, layers):
    register_model("elmo-tiny", "elmo", str(elmo_loadable / "lm_weights.hdf5"))
    texts, expected = sentences(elmo_loadable), expected_top_layer(elmo_loadable)
    for k, i in ZERO_STATE:
        text, tokens = texts[k][i], expected[k][i]
        start, end = word_spans(text)[3]

        printed = embed_text("--model", "elmo-tiny", "--text", text, "--span", f"{start}:{end}", "--layers", layers)

        assert printed["tokens"] == ["<S>", *text.split(), "</S>"] and printed["span_tokens"] == [text.split()[3]]
        assert printed["combined_layers"] == [0, 1, 2]
        top = printed["layers"]["2"]
        assert_vectors_close(top["sentence"], tokens.mean(axis=0))  # the mean of its tokens, as bilm-tf computed
        assert_vectors_close(top["span"], tokens[3])  # a one-token span is that token
        if layers == "all":
            each = np.array([printed["layers"][str(layer)]["span"] for layer in (0, 1, 2)])
            np.testing.assert_allclose(printed["layers"]["combined"]["span"], each.mean(axis=0), atol=1e-6)
            np.testing.assert_allclose(each[0, :16], each[0, 16:])  # the token layer, twice


def test_a_sweep_gives_each_layer_as_a_run_of_that_layer_alone_would(fixture_elmo):
    elmo = load_backend("elmo", str(fixture_elmo / "lm_weights.hdf5"))
    text = sentences(fixture_elmo)[2][0]
    items = [TextSpan(text), TextSpan(text, word_spans(text)[1])]

    swept = elmo.embed_batch(items, EmbedConfig(layers=(0, 1, 2), sweep="all"))

    assert elmo.layer_count() == 3
    for row, layer in enumerate((0, 1, 2)):
        alone = elmo.embed_batch(items, EmbedConfig(layers=(layer,)))
        for got, want in zip(swept, alone, strict=True):
            np.testing.assert_allclose(got.layer_sentences[row], want.sentence, atol=1e-6)
            if want.span is not None:
                np.testing.assert_allclose(got.layer_spans[row], want.span, atol=1e-6)
    np.testing.assert_allclose(swept[0].sentence, swept[0].layer_sentences.mean(axis=0), atol=1e-6)
