"""Builders for probing tests: a tiny random BERT on disk, a small published release, a registered model.

Nothing is downloaded: the BERT comes from the shared builder (tests/tiny_models.py) with a vocabulary of the
test sentences' words, and synonyms placed near the words they replace.
"""

from __future__ import annotations

from pathlib import Path

from datasets import vocabulary
from probing.models import EmbeddingModel
from releases.actions import create_release
from releases.models import Release
from tests.datasets.factories import make_compound, make_sentence, make_variant
from tests.tiny_models import save_tiny_bert, words_of

# compound, gold synonym, class, type score, token score
COMPOUNDS = [
    ("eager beaver", "hard worker", vocabulary.IDIOMATIC, 0.5, 0.8),
    ("guinea pig", "test subject", vocabulary.IDIOMATIC, 0.4, None),
    ("front man", "lead singer", vocabulary.PARTLY, 2.5, 2.2),
    ("olive oil", "cooking oil", vocabulary.COMPOSITIONAL, 4.8, 4.6),
    ("brick wall", "stone barrier", vocabulary.COMPOSITIONAL, 4.5, 4.4),
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
        sentences.append(make_sentence(compound, NEUTRAL.format(text), kind=vocabulary.NEUTRAL_SHORT, slot=1))
        modifier, head = text.split()
        for sentence in sentences:
            approved = {"status": vocabulary.APPROVED}
            make_variant(sentence, synonym, kind=vocabulary.SYNONYM_NC, **approved)
            make_variant(sentence, head, kind=vocabulary.HEAD_ONLY, **approved)
            make_variant(sentence, modifier, kind=vocabulary.MODIFIER_ONLY, **approved)
            for rank, words in enumerate(WORDS_SYN, start=1):
                make_variant(sentence, words, kind=vocabulary.SYNONYM_BOTH, rank=rank, **approved)
            for rank, words in enumerate(RANDOM, start=1):
                make_variant(sentence, words, kind=vocabulary.RANDOM_FREQ, rank=rank, **approved)


def publish(version: str = "1.0.0") -> Release:
    return create_release(version, languages=["en"], publish=True)


def likelihood_corpus(compounds: list[tuple] = COMPOUNDS) -> list[str]:
    """What a fixture language model is trained on so that it reads every text a likelihood run of
    ``make_probe_data`` scores: the texts, and each sentence with the items' question and an answer."""
    from probing.likelihood.items import TEMPLATES

    questions = [
        TEMPLATES["en"].format(sentence=pattern.format(text), compound=text) + f" {synonym}."
        for text, synonym, *_ in compounds
        for pattern in [*SENTENCES, NEUTRAL]
    ]
    return [*texts(compounds), *questions]


def texts(compounds: list[tuple] = COMPOUNDS) -> list[str]:
    """Every text ``make_probe_data`` writes: the sentences and each of their variants."""
    out = []
    for text, synonym, *_ in compounds:
        modifier, head = text.split()
        for pattern in [*SENTENCES, NEUTRAL]:
            out += [pattern.format(words) for words in [text, synonym, head, modifier, *WORDS_SYN, *RANDOM]]
    return out


def tiny_bert(folder: Path) -> Path:
    """A random 4-layer BERT over the words of ``texts()``, saved in ``folder``.

    Each word of a gold synonym gets an input embedding near the compound word it stands for, as a trained
    model would place a synonym: sim(original, synonym) is then higher than sim(original, random compound).
    """
    near = {}
    for text, synonym, *_ in COMPOUNDS:
        near |= {w: p for w, p in zip(synonym.split(), text.split(), strict=True) if w != p}
    return save_tiny_bert(folder, words_of(texts()), texts=texts(), seed=7, near=near)


def register_tiny_bert(folder: Path, name: str = "tiny-bert", **fields) -> EmbeddingModel:
    defaults = {"kind": EmbeddingModel.Kind.TRANSFORMER, "source": str(tiny_bert(folder)), "config": {"batch_size": 8}}
    return EmbeddingModel.objects.create(name=name, **(defaults | fields))
