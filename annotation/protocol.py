"""The rating protocol's answers and their validation (pure: no Django import).

Reddy et al. (2011): how literally the head contributes, how literally the modifier
contributes, how literal the whole compound is, each 0-5, and up to three paraphrases.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

QUESTIONS = ("head_score", "modifier_score", "compound_score")
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
