"""Builders for probing tests: a tiny random BERT on disk, a small published release, a registered model.

Nothing is downloaded: the BERT is built from a config with a vocabulary of the test sentences' words.
"""

from __future__ import annotations

import re
from pathlib import Path

from datasets import vocabulary as v
from datasets.release_models import Release
from datasets.releases.actions import create_release
from probing.models import EmbeddingModel
from tests.web.factories import make_compound, make_sentence, make_variant

# compound, gold synonym, class, type score, token score
COMPOUNDS = [
    ("eager beaver", "hard worker", v.IDIOMATIC, 0.5, 0.8),
    ("guinea pig", "test subject", v.IDIOMATIC, 0.4, None),
    ("front man", "representative", v.PARTLY, 2.5, 2.2),
    ("olive oil", "cooking oil", v.COMPOSITIONAL, 4.8, 4.6),
    ("brick wall", "stone barrier", v.COMPOSITIONAL, 4.5, 4.4),
]
SENTENCES = [
    "Yesterday the {} arrived at the meeting with a plan.",
    "Everyone talked about the {} near the old house.",
]
NEUTRAL = "This is a {}."
WORDS_SYN = ["keen rodent", "zealous animal"]
RANDOM = ["red car", "blue sky", "tall tree", "cold water", "small dog"]


def make_probe_data(compounds: list[tuple] = COMPOUNDS) -> None:
    """Compounds with two naturalistic sentences and a neutral one, each with approved variants of every probe."""
    for text, synonym, cls, type_score, token_score in compounds:
        compound = make_compound(
            text, gold_synonym=synonym, compositionality_class=cls, type_score=type_score, token_score=token_score
        )
        sentences = [make_sentence(compound, pattern.format(text)) for pattern in SENTENCES]
        sentences.append(make_sentence(compound, NEUTRAL.format(text), kind=v.NEUTRAL_SHORT, slot=1))
        modifier, head = text.split()
        for sentence in sentences:
            approved = {"status": v.APPROVED}
            make_variant(sentence, synonym, kind=v.SYNONYM_NC, **approved)
            make_variant(sentence, head, kind=v.HEAD_ONLY, **approved)
            make_variant(sentence, modifier, kind=v.MODIFIER_ONLY, **approved)
            for rank, words in enumerate(WORDS_SYN, start=1):
                make_variant(sentence, words, kind=v.SYNONYM_BOTH, rank=rank, **approved)
            for rank, words in enumerate(RANDOM, start=1):
                make_variant(sentence, words, kind=v.RANDOM_FREQ, rank=rank, **approved)


def publish(version: str = "1.0.0") -> Release:
    return create_release(version, languages=["en"], publish=True)


def vocabulary() -> list[str]:
    texts = [*SENTENCES, NEUTRAL, *WORDS_SYN, *RANDOM, *(" ".join(c[:2]) for c in COMPOUNDS)]
    return sorted({w for t in texts for w in re.findall(r"\w+|[^\w\s]", t.lower())})


def tiny_bert(folder: Path) -> Path:
    """A random 4-layer BERT (hidden size 32) and a fast tokenizer over the test words, saved in ``folder``."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *vocabulary()]
    (folder / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True)
    torch.manual_seed(7)
    config = BertConfig(
        vocab_size=len(words),
        hidden_size=32,
        num_hidden_layers=4,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    BertModel(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def register_tiny_bert(folder: Path, name: str = "tiny-bert", **fields) -> EmbeddingModel:
    defaults = {"kind": EmbeddingModel.TRANSFORMER, "source": str(tiny_bert(folder)), "config": {"batch_size": 8}}
    return EmbeddingModel.objects.create(name=name, **(defaults | fields))
