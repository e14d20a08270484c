"""Static vectors: gensim files in word2vec text, word2vec binary and GloVe form; input embeddings."""

from __future__ import annotations

import numpy as np
import pytest
from gensim.models import KeyedVectors

from probing.embedding import EmbedConfig, TextSpan, load_backend
from probing.embedding.static import guess_format, words
from probing.run.engine import embed_all

VOCABULARY = {
    "eager": [1.0, 0.0, 0.0],
    "beaver": [0.0, 1.0, 0.0],
    "hard": [0.0, 0.0, 1.0],
    "worker": [1.0, 1.0, 0.0],
    "He": [2.0, 2.0, 2.0],
}


@pytest.fixture(scope="module")
def vector_files(tmp_path_factory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("vectors")
    keyed = KeyedVectors(vector_size=3)
    keyed.add_vectors(list(VOCABULARY), np.array(list(VOCABULARY.values()), dtype=np.float32))
    keyed.save_word2vec_format(str(folder / "w2v.txt"), binary=False)
    keyed.save_word2vec_format(str(folder / "w2v.bin"), binary=True)
    glove = folder / "glove.6B.3d.txt"
    glove.write_text("".join(f"{w} {' '.join(str(x) for x in v)}\n" for w, v in VOCABULARY.items()), encoding="utf-8")
    return {"word2vec": folder / "w2v.txt", "word2vec_binary": folder / "w2v.bin", "glove": glove}


@pytest.mark.parametrize("kind", ["word2vec", "word2vec_binary", "glove"])
def test_vectors_average_known_words_and_count_the_rest(vector_files, kind):
    assert guess_format(vector_files[kind]) == kind
    backend = load_backend("static_vectors", str(vector_files[kind]))
    item = TextSpan("He is an eager beaver.", (9, 21))
    (got,) = backend.embed_batch([item], EmbedConfig())
    assert got.tokens == 5 and got.oov == 2  # "is" and "an"
    np.testing.assert_allclose(got.sentence, [1.0, 1.0, 2 / 3])
    np.testing.assert_allclose(got.span, [0.5, 0.5, 0.0])
    assert got.sentence.dtype == np.float32


def test_lower_casing_is_an_option_and_part_of_the_identity(vector_files):
    plain = load_backend("static_vectors", str(vector_files["glove"]))
    lower = load_backend("static_vectors", str(vector_files["glove"]), {"lowercase": True})
    item = TextSpan("EAGER Beaver")
    assert plain.embed_batch([item], EmbedConfig())[0].oov == 2
    assert lower.embed_batch([item], EmbedConfig())[0].oov == 0
    assert plain.identity() != lower.identity()


def test_all_unknown_words_give_a_zero_vector_and_the_engine_reports_them(vector_files):
    backend = load_backend("static_vectors", str(vector_files["word2vec"]))
    unknown, known = TextSpan("zebra crossing", (0, 14)), TextSpan("eager worker")
    vectors, stats = embed_all(backend, [unknown, known, unknown], EmbedConfig())
    assert vectors[unknown].oov == vectors[unknown].tokens == 2
    assert not vectors[unknown].sentence.any() and not vectors[unknown].span.any()
    assert stats.oov == 2 and stats.unique == 2


def test_words_are_word_characters():
    assert words("(eager-beavers), l'eau") == [("eager", 1, 6), ("beavers", 7, 14), ("l", 17, 18), ("eau", 19, 22)]


def test_input_embeddings_average_subword_rows(tiny_bert):
    from transformers import AutoModel

    table = AutoModel.from_pretrained(tiny_bert).get_input_embeddings().weight.detach().numpy()
    backend = load_backend("input_embeddings", str(tiny_bert))
    vocab = backend.tokenizer.get_vocab()
    item = TextSpan("eager beavers zebra", (0, 13))
    (got,) = backend.embed_batch([item], EmbedConfig())
    eager = table[vocab["eager"]]
    beavers = (table[vocab["beaver"]] + table[vocab["##s"]]) / 2
    assert got.oov == 1 and got.tokens == 3
    np.testing.assert_allclose(got.span, (eager + beavers) / 2, atol=1e-6)
    np.testing.assert_allclose(got.sentence, (eager + beavers) / 2, atol=1e-6)
    assert backend.identity()["kind"] == "input_embeddings" and backend.identity()["dim"] == 32
