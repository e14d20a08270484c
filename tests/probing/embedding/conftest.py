"""Tiny random models saved to disk (no download): a BERT with a WordPiece vocabulary and a LLaMA with BPE.

Built once per session by the shared builder (tests/tiny_models.py); both load through load_backend like
any local model folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tiny_models import save_tiny_bert, save_tiny_llama

# "##s" lets "beavers" read as beaver + ##s, so the span tests see a word cut into subwords.
BERT_WORDS = (
    "the bank by river an a eager beaver ##s met he is hard worker police car build dams said steep "
    ". , ( ) ! ' and of in"
).split()
# Every text the embedding tests give the models; the builder checks each reads without the unknown token.
TEXTS = [
    "the bank by the bank",
    "an eager beaver met eager beavers",
    "(eager beavers), he said.",
    "he is a hard worker.",
    "he is a police car.",
    "the river bank is steep and the beavers build dams",
]


def tiny_bert_at(folder: Path, seed: int = 0, layers: int = 4) -> Path:
    return save_tiny_bert(folder, BERT_WORDS, texts=TEXTS, seed=seed, layers=layers)


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    return tiny_bert_at(tmp_path_factory.mktemp("models") / "tiny-bert")


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    return save_tiny_llama(tmp_path_factory.mktemp("models") / "tiny-llama", TEXTS)


@pytest.fixture(scope="session")
def make_tiny_bert():
    """tiny_bert_at(folder, seed=..., layers=...) for tests that need a second model."""
    return tiny_bert_at
