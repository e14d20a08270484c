"""The plan of a compound's minimal pairs (pure: no database)."""

from __future__ import annotations

from building.rules.plan import compound_plan
from datasets import vocabulary


def plan_with_random(slots: list[int]):
    return compound_plan(
        compound="eager beaver",
        modifier="eager",
        head="beaver",
        gold_synonym="hard worker",
        words_syn=[],
        modifier_syn=[],
        head_syn=[],
        modifier_alone=[],
        head_alone=[],
        generic={},
        random_by_slot={slot: [(f"random {slot}-{i}", {}) for i in range(5)] for slot in slots},
        unmatched=[],
    )


def random_of(replacements) -> list[str]:
    return [r.text for r in replacements if r.kind == vocabulary.RANDOM_FREQ]


def test_neutral_sentences_take_slot_1s_random_compounds():
    made = plan_with_random([1, 2])
    assert random_of(made.for_sentence(None)) == [f"random 1-{i}" for i in range(5)]
    assert random_of(made.for_sentence(2)) == [f"random 2-{i}" for i in range(5)]


def test_neutral_sentences_get_random_compounds_without_naturalistic_sentence_1():
    made = plan_with_random([2, 3])
    assert random_of(made.for_sentence(None)) == [f"random 2-{i}" for i in range(5)]
    assert [r.kind for r in made.isolated()].count(vocabulary.RANDOM_FREQ) == 5
