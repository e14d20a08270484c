"""A tiny chat LLaMA for machine annotators: its vocabulary holds the Reddy et al. (2011) answers' JSON.

The weights are random (``tests/tiny_models.py`` trains only the tokenizer), so what the model answers is
arbitrary but fixed; what matters is that its byte-pair vocabulary was trained on the prompts and answers
an annotator exchanges, in English and Portuguese, so that each digit is ONE token (a constrained server
chooses a rating from the digits' logits) and JSON's braces, quotes and keys read without ``<unk>``.
``ANSWER_SCHEMA`` is the answer schema a machine annotator sends as its ``response_format``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tests.tiny_models import FixtureModelError, save_tiny_llama

ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "head": {"type": "integer", "minimum": 0, "maximum": 5},
        "modifier": {"type": "integer", "minimum": 0, "maximum": 5},
        "compound": {"type": "integer", "minimum": 0, "maximum": 5},
        "paraphrases": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
    },
    "required": ["head", "modifier", "compound", "paraphrases"],
    "additionalProperties": False,
}
DIGITS = "0123456789"
VOCAB_SIZE = 600
# Rotary positions need no table, but the config's default of 64 is shorter than an instruction prompt.
POSITIONS = 2048

INSTRUCTIONS = [
    "You are an annotator of noun compounds. Answer with JSON only.",
    "Rate how literal the head word is, 0 to 5.",
    "Rate how literal the modifier word is, 0 to 5.",
    "Rate how literal the whole compound is, 0 to 5.",
    "How literal is the use of the head in this compound? 0 means not at all, 5 means fully literal.",
    "Give up to three short paraphrases of the compound as used in the sentence.",
    "Sentence: My sister is a night owl and reads until three. Compound: night owl",
    "Sentence: The research lab hired a grey matter expert. Compound: research lab",
    "Você anota compostos nominais. Responda apenas com JSON.",
    "Avalie quão literal é a palavra núcleo, de 0 a 5.",
    "Avalie quão literal é o modificador, de 0 a 5.",
    "Avalie quão literal é o composto inteiro, de 0 a 5.",
    "Dê até três paráfrases curtas do composto na frase.",
    "Frase: Ele tem olho gordo para o carro do vizinho. Composto: olho gordo",
    "Scores from 0 to 9: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9.",
]
ANSWERS = [
    (3, 5, 4, ["a lab for research"]),
    (0, 1, 2, ["a late sleeper", "a nocturnal person"]),
    (5, 4, 3, ["a nocturnal bird"]),
    (2, 0, 1, ["intelligence", "brains", "a smart person"]),
    (4, 3, 5, ["a busy worker"]),
    (1, 2, 0, ["inveja", "mau olhado"]),
    (5, 5, 5, ["um laboratório de pesquisa"]),
    (0, 0, 0, ["uma pessoa noturna"]),
]


def answer_text(head: int, modifier: int, compound: int, paraphrases: list[str]) -> str:
    """An answer as a machine annotator writes it: JSON in the schema's property order."""
    fields = {"head": head, "modifier": modifier, "compound": compound, "paraphrases": paraphrases}
    return json.dumps(fields, ensure_ascii=False)


def annotator_corpus(extra: Iterable[str] = ()) -> list[str]:
    """The instructions, chat prompts ("role: content" lines) and JSON answers the tiny chat model reads, and ``extra``."""
    answers = [answer_text(*answer) for answer in ANSWERS]
    chats = [
        f"system: {INSTRUCTIONS[i % 2 * 8]}\nuser: {INSTRUCTIONS[1 + i % 7]}\nassistant:{answer}"
        for i, answer in enumerate(answers)
    ]
    # Every digit in every slot, so that each " d" is frequent enough to be merged into one token.
    ratings = [answer_text(d % 6, (d + 2) % 6, (d + 4) % 6, ["x"]) for d in range(6)]
    return [*INSTRUCTIONS, *answers, *chats, *ratings, *extra]


def tiny_chat_llama(folder: Path, extra_texts: Iterable[str] = ()) -> Path:
    """A tiny LLaMA with its language-model head whose vocabulary reads ``annotator_corpus(extra_texts)``, saved in ``folder``.

    Refuses (``FixtureModelError``) a vocabulary in which a digit after a space is not one token.
    """
    from transformers import AutoTokenizer

    corpus = annotator_corpus(list(extra_texts))
    save_tiny_llama(folder, corpus, causal_lm=True, vocab_size=VOCAB_SIZE, shape={"max_position_embeddings": POSITIONS})
    tokenizer = AutoTokenizer.from_pretrained(folder)
    split = {d: tokenizer.tokenize(f" {d}") for d in DIGITS if len(tokenizer.tokenize(f" {d}")) != 1}
    if split:
        raise FixtureModelError(f"{folder.name} reads digits as several tokens: {split}")
    return folder
