"""Worked examples in a campaign's instructions (pure: no Django).

A campaign shows its own examples, or else the defaults below; either way never an example
about a compound the campaign asks about, since the example's answers would be that item's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from annotation.protocol import question_pieces


@dataclass(frozen=True)
class Example:
    """A sentence with a compound, the expected answers with a reason for each, and paraphrases."""

    compound: str
    sentence: str
    head_score: int
    modifier_score: int
    compound_score: int
    head_note: str = ""
    modifier_note: str = ""
    compound_note: str = ""
    paraphrases: tuple[str, ...] = ()


DEFAULT_EXAMPLES = (
    Example(
        "eager beaver",
        "Our new intern is a real eager beaver, arriving an hour early every day.",
        0,
        4,
        1,
        "the intern is not an animal at all.",
        "the intern really is eager.",
        "the phrase as a whole is figurative.",
        ("keen worker", "enthusiastic person"),
    ),
    Example(
        "coffee cup",
        "She rinsed her coffee cup and put it back on the shelf.",
        5,
        5,
        5,
        "it is a cup.",
        "it is meant for coffee.",
        "completely literal.",
        ("cup for coffee", "mug"),
    ),
    Example(
        "brain drain",
        "The city suffers from a brain drain as graduates move abroad.",
        1,
        3,
        2,
        "nothing flows down a pipe, but something is lost.",
        "it means clever people rather than brains.",
        "partly literal.",
        ("emigration of skilled people",),
    ),
)


def normalised(text: str) -> str:
    return " ".join(text.casefold().split())


def gives_away(compound: str, item_compounds: Iterable[str]) -> bool:
    """True when an example about ``compound`` would answer one of the campaign's items."""
    return normalised(compound) in {normalised(c) for c in item_compounds}


def campaign_examples(own: Sequence[Example], item_compounds: Iterable[str]) -> list[Example]:
    """The campaign's own examples (else the defaults), less any about a compound the campaign asks about."""
    asked = {normalised(c) for c in item_compounds}
    return [example for example in (own or DEFAULT_EXAMPLES) if normalised(example.compound) not in asked]


def split_paraphrases(text: str) -> tuple[str, ...]:
    return tuple(p for p in (" ".join(part.split()) for part in text.split(";")) if p)


def sentence_parts(sentence: str, compound: str) -> tuple[str, str, str]:
    """The sentence before, at and after the first occurrence of the compound (any case); all before when absent."""
    at = sentence.casefold().find(compound.casefold())
    if not compound or at < 0:
        return sentence, "", ""
    return sentence[:at], sentence[at : at + len(compound)], sentence[at + len(compound) :]


def presented(example: Example, language: str) -> dict:
    """What the instructions show of ``example``: the sentence in parts and one row per question."""
    scores = {"head_score": example.head_score, "modifier_score": example.modifier_score}
    scores["compound_score"] = example.compound_score
    notes = {"head_score": example.head_note, "modifier_score": example.modifier_note}
    notes["compound_score"] = example.compound_note
    rows = [
        piece | {"score": scores[piece["name"]], "note": notes[piece["name"]]}
        for piece in question_pieces(example.compound, language)
    ]
    before, nc, after = sentence_parts(example.sentence, example.compound)
    return {"before": before, "nc": nc, "after": after, "rows": rows, "paraphrases": list(example.paraphrases)}
