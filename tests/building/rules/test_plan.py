"""The plan of a compound's minimal pairs (pure: no database)."""

from __future__ import annotations

from building.rules.plan import compound_plan
from datasets import vocabulary


def plan_with_random(slots: list[int]):
    return compound_plan(
        compound="eager beaver",
        modifier="eager",
        head="beaver",
        nc_syn=[("hard worker", {"source": "crowd"})],
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


def test_nc_syn_candidates_are_ranked_in_order_and_a_models_first_is_noted():
    def made(nc_syn):
        return compound_plan(
            compound="eager beaver", modifier="eager", head="beaver", nc_syn=nc_syn, words_syn=[],
            modifier_syn=[], head_syn=[], modifier_alone=[], head_alone=[], generic={}, random_by_slot={},
            unmatched=[],
        )  # fmt: skip

    crowd_first = made([("hard worker", {"source": "crowd"}), ("workaholic", {"source": "model"})])
    assert [(r.rank, r.text) for r in crowd_first.shared if r.kind == vocabulary.SYNONYM_NC] == [
        (1, "hard worker"),
        (2, "workaholic"),
    ]
    gold_notes = lambda nc_syn: [n for n in made(nc_syn).notes if "gold synonym" in n]  # noqa: E731
    assert gold_notes([("hard worker", {"source": "crowd"}), ("workaholic", {"source": "model"})]) == []
    assert gold_notes([("workaholic", {"source": "model"})]) == [
        "no gold synonym yet: NC_Syn from a model's proposals, for a curator to check (derive or pick one)"
    ]
    assert gold_notes([]) == ["no gold synonym yet: NC_Syn left out (derive or pick one)"]
