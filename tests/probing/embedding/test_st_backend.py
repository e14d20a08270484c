"""The bundled all-MiniLM-L6-v2 through the sentence-transformers pipeline, on real pairs."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from probing.embedding import EmbedConfig, TextSpan, bundled_minilm_path, load_backend
from probing.run.engine import embed_all
from tests.float32 import assert_vectors_close

BEAVER = TextSpan("He is an eager beaver.", (9, 21))
WORKER = TextSpan("He is a hard worker.", (8, 19))
POLICE = TextSpan("He is a police car.", (8, 18))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module")
def minilm():
    return load_backend("sentence_transformers", str(bundled_minilm_path()))


def test_a_paraphrase_is_closer_than_an_unrelated_compound(minilm):
    vectors, _ = embed_all(minilm, [BEAVER, WORKER, POLICE], EmbedConfig())
    beaver, worker, police = (vectors[item] for item in (BEAVER, WORKER, POLICE))
    assert cosine(beaver.sentence, worker.sentence) > cosine(beaver.sentence, police.sentence)
    assert cosine(beaver.span, worker.span) > cosine(beaver.span, police.span)


def test_the_sentence_vector_is_the_pipelines_own(minilm):
    texts = [BEAVER, WORKER, POLICE, TextSpan("Eager beavers build dams along the river bank every spring.")]
    vectors = minilm.embed_batch(texts, EmbedConfig())
    expected = minilm.model.encode([item.text for item in texts])
    for got, want in zip(vectors, expected, strict=True):
        assert_vectors_close(got.sentence, want)  # our forward vs the pipeline's encode
        assert got.sentence.dtype == np.float32
        assert abs(np.linalg.norm(got.sentence) - 1) < 1e-5  # the Normalize module ran


def test_the_span_vector_is_the_mean_of_the_pipelines_token_embeddings(minilm):
    features = minilm.model.preprocess([BEAVER.text])
    with torch.no_grad():
        tokens = minilm.model.forward(features)["token_embeddings"][0]
    pieces = minilm.tokenizer.convert_ids_to_tokens(features["input_ids"][0])
    assert pieces[4:6] == ["eager", "beaver"]
    got = minilm.embed_batch([BEAVER], EmbedConfig())[0]
    assert_vectors_close(got.span, tokens[4:6].mean(dim=0).numpy())


def test_identity_names_the_bundled_model_and_hashes_its_files(minilm):
    identity = minilm.identity()
    assert identity["name"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert identity["dim"] == 384 and len(identity["weights_sha256"]) == 64


def test_offsets_from_a_tokenization_unlike_the_pipelines_are_refused(monkeypatch):
    # A backend of its own: the check runs until the pipeline's preprocessing has been seen to match.
    minilm = load_backend("sentence_transformers", str(bundled_minilm_path()))
    preprocess = minilm.model.preprocess
    monkeypatch.setattr(minilm.model, "preprocess", lambda texts, **options: preprocess(texts, max_length=4))
    with pytest.raises(RuntimeError, match="ids differ"):
        minilm.embed_batch([BEAVER], EmbedConfig())


def test_once_the_pipeline_is_seen_to_match_its_preprocessing_is_not_run_again(monkeypatch):
    minilm = load_backend("sentence_transformers", str(bundled_minilm_path()))
    first = minilm.embed_batch([BEAVER], EmbedConfig())[0]
    calls = []
    preprocess = minilm.model.preprocess
    monkeypatch.setattr(
        minilm.model, "preprocess", lambda texts, **options: calls.append(texts) or preprocess(texts, **options)
    )
    again = minilm.embed_batch([BEAVER, WORKER], EmbedConfig())
    assert calls == []
    assert_vectors_close(again[0].sentence, first.sentence)  # a batch of two vs one
    assert_vectors_close(again[0].span, first.span)
