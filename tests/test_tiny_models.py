"""The fixture models are what they claim: they read every fixture text, and their synonyms sit near their compounds."""

from __future__ import annotations

import numpy as np
import pytest
from transformers import AutoModel

from tests.probing.embedding.conftest import BERT_WORDS, TEXTS, tiny_bert_at
from tests.probing.probe_factories import COMPOUNDS, RANDOM, texts, tiny_bert
from tests.tiny_models import FixtureModelError, save_tiny_bert, save_tiny_llama, unknown_words


@pytest.fixture(scope="module")
def probe_bert(tmp_path_factory):
    return tiny_bert(tmp_path_factory.mktemp("models") / "probe-bert")


def test_the_probe_model_reads_every_text_of_the_probe_data(probe_bert):
    # 5 compounds x 3 sentences x (original, synonym, head, modifier, 2 WordsSyn, 5 random)
    assert len(texts()) == 5 * 3 * 11
    assert unknown_words(probe_bert, texts()) == {}


def test_the_embedding_models_read_every_text_of_the_embedding_tests(tmp_path):
    assert unknown_words(tiny_bert_at(tmp_path / "bert"), TEXTS) == {}
    assert unknown_words(save_tiny_llama(tmp_path / "llama", TEXTS), TEXTS) == {}


def test_a_model_that_cannot_read_its_texts_is_refused(tmp_path):
    with pytest.raises(FixtureModelError, match=r"'the otter': \['otter'\]"):
        save_tiny_bert(tmp_path / "bert", BERT_WORDS, texts=["the bank", "the otter"])
    assert unknown_words(tmp_path / "bert", ["the bank", "the otter"]) == {"the otter": ["otter"]}


def test_a_synonym_sits_near_its_compound_and_a_random_word_does_not(probe_bert):
    from transformers import AutoTokenizer

    table = AutoModel.from_pretrained(probe_bert).get_input_embeddings().weight.detach().numpy()
    vocabulary = AutoTokenizer.from_pretrained(probe_bert).get_vocab()

    def cosine(a: str, b: str) -> float:
        x, y = table[vocabulary[a]], table[vocabulary[b]]
        return float(x @ y / np.linalg.norm(x) / np.linalg.norm(y))

    for compound, synonym, *_ in COMPOUNDS:
        for word, partner in zip(synonym.split(), compound.split(), strict=True):
            if word != partner:
                assert cosine(word, partner) > 0.9, (word, partner)
                assert all(cosine(r, partner) < 0.7 for random in RANDOM for r in random.split()), partner
