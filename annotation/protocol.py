"""The rating protocol's answers and their validation (pure: no Django import).

Reddy et al. (2011): how literally the head contributes, how literally the modifier
contributes, how literal the whole compound is, each 0-5, and up to three paraphrases.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

QUESTIONS = ("head_score", "modifier_score", "compound_score")
# Each question's short name: the part of the compound it asks about (report tables, release columns).
QUESTION_PARTS = {"head_score": "head", "modifier_score": "modifier", "compound_score": "compound"}
# Each question in words, completing "How literal is …" (tables that show a question name show these).
QUESTION_WORDS = {"head_score": "the head", "modifier_score": "the modifier", "compound_score": "the whole compound"}
MAX_PARAPHRASES = 3
MAX_PARAPHRASE_LENGTH = 300


@dataclass(frozen=True)
class Answers:
    head_score: int
    modifier_score: int
    compound_score: int
    paraphrases: list[str] = field(default_factory=list)


def validate_answers(data: Mapping[str, object]) -> tuple[Answers | None, dict[str, str]]:
    """Answers from submitted form or JSON data, or the errors per field (never both)."""
    errors: dict[str, str] = {}
    scores: dict[str, int] = {}
    for name in QUESTIONS:
        raw = data.get(name)
        text = str(raw).strip() if raw is not None else ""
        if text == "":
            errors[name] = "Please choose a value from 0 to 5."
            continue
        try:
            value = int(text)
        except ValueError:
            errors[name] = f"{text!r} is not a whole number from 0 to 5."
            continue
        if not 0 <= value <= 5:
            errors[name] = f"{value} is outside the scale: choose 0 to 5."
            continue
        scores[name] = value
    paraphrases: list[str] = []
    raw_list = data.get("paraphrases")
    if raw_list is None:
        raw_list = [data.get(f"paraphrase_{i}") for i in range(1, MAX_PARAPHRASES + 1)]
    if isinstance(raw_list, str):
        raw_list = [raw_list]
    if not isinstance(raw_list, (list, tuple)):
        errors["paraphrases"] = "Paraphrases must be a list of up to three texts."
        raw_list = []
    given = [" ".join(str(p).split()) for p in raw_list if p is not None and str(p).strip()]
    if len(given) > MAX_PARAPHRASES:
        errors["paraphrases"] = f"Give at most {MAX_PARAPHRASES} paraphrases."
    for text in given:
        if len(text) > MAX_PARAPHRASE_LENGTH:
            errors["paraphrases"] = f"A paraphrase may have at most {MAX_PARAPHRASE_LENGTH} characters."
        elif text.casefold() not in {p.casefold() for p in paraphrases}:
            paraphrases.append(text)
    if errors:
        return None, errors
    return Answers(paraphrases=paraphrases[:MAX_PARAPHRASES], **scores), {}


def gold_correct(answer: int, gold: int | None, tolerance: int) -> bool:
    """An ordinal gold answer counts as right within ``tolerance`` (no gold: always right)."""
    return gold is None or abs(answer - gold) <= tolerance


def practice_needed(total: int, pass_mark: float) -> int:
    """Practice items a worker must get right to go on: the pass mark's share of ``total``, rounded up."""
    # Rounded first, so that 0.8 x 5 (4.000000000000001 in floating point) asks for 4, not 5.
    return math.ceil(round(total * pass_mark, 9))


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def question_pieces(nc: str, language: str, head: str = "", modifier: str = "") -> list[dict]:
    """The three questions about compound ``nc`` as {name, before, nc, after}, in the order of ``QUESTIONS``.

    Head and modifier default to the last word and the words before it.
    """
    words = nc.split()
    head = head or (words[-1] if words else nc)
    modifier = modifier or (" ".join(words[:-1]) or nc)
    if language.split("-")[0] == "en":
        texts = {
            "head_score": (f"How literally is {article(nc)} ", f" {article(head)} {head}?"),
            "modifier_score": (f"How literal is the use of “{modifier}” in ", "?"),
        }
    else:
        texts = {
            "head_score": ("How literally is ", f" a {head}?"),
            "modifier_score": ("How literally is ", f" {modifier}?"),
        }
    texts["compound_score"] = ("How literal is the whole compound ", "?")
    return [{"name": name, "before": texts[name][0], "nc": nc, "after": texts[name][1]} for name in QUESTIONS]
