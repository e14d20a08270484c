"""Tiny language models with their heads, built once per test session from configs (tests/tiny_models.py)."""

from __future__ import annotations

import pytest

from tests.tiny_models import save_tiny_bert, save_tiny_gpt2, save_tiny_llama, words_of

CORPUS = [
    "My sister is a night owl and reads until three.",
    "The research lab hired a grey matter expert.",
    "An eager beaver finished the report early.",
    "A smart person, a late sleeper, a busy worker.",
    "Here, night owl means: a late sleeper.",
    "Here, night owl means: a nocturnal bird.",
    "Here, night owl means: a silver screen.",
    "unbelievably overcomplicated",
]


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory):
    return save_tiny_llama(tmp_path_factory.mktemp("llama"), CORPUS, causal_lm=True)


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory):
    return save_tiny_gpt2(tmp_path_factory.mktemp("gpt2"), CORPUS)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    # Whole words and a few word pieces, so that some words are read as several tokens (the within-word rule).
    words = [w for w in words_of(CORPUS) if w not in {"unbelievably", "overcomplicated"}]
    pieces = ["un", "##believ", "##ably", "over", "##compl", "##icated"]
    return save_tiny_bert(tmp_path_factory.mktemp("bert"), [*words, *pieces], texts=CORPUS, masked_lm=True)
