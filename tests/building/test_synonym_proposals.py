"""A model's synonym proposals kept as candidates: filtered like every candidate, never approved, read by side."""

from __future__ import annotations

import pytest

from building.models import ProposedSynonym, SynonymRequest
from building.variants.proposals import ModelAnswer, proposals_for, record_proposals
from tests.datasets.factories import make_compound

pytestmark = pytest.mark.django_db


def answer(words: dict | None = None, model_name: str = "served-chat", **fields) -> ModelAnswer:
    defaults = {
        "model_name": model_name,
        "model_identity": {"kind": "openai_chat", "name": "tiny-chat"},
        "template_name": "synonyms-en",
        "template_version": 1,
        "template_text": "{}",
        "settings": {"temperature": 0.0},
        "valid": words is not None,
        "words": words or {},
        "response_key": "a" * 64,
    }
    return ModelAnswer(**(defaults | fields))


def test_proposals_are_kept_by_side_and_rank_and_never_approved():
    compound = make_compound("eager beaver")
    words = {"nc": ["enthusiast", "keen person"], "head": ["rodent"], "modifier": ["keen", "avid"]}
    request = record_proposals(compound, answer(words))
    assert request.valid and request.response_key == "a" * 64 and request.filtered == []
    rows = ProposedSynonym.objects.filter(compound=compound)
    assert {(r.side, r.word, r.rank) for r in rows} == {
        ("nc", "enthusiast", 1),
        ("nc", "keen person", 2),
        ("head", "rodent", 1),
        ("modifier", "keen", 1),
        ("modifier", "avid", 2),
    }
    assert {r.status for r in rows} == {"proposed"} and {r.source for r in rows} == {"model"}
    assert proposals_for(compound.pk) == {"nc": ["enthusiast", "keen person"], "head": ["rodent"], "modifier": ["keen", "avid"]}  # fmt: skip


def test_offensive_words_the_replaced_word_and_multi_word_head_synonyms_are_left_out_with_the_reason():
    compound = make_compound("eager beaver")
    words = {"nc": ["bastard", "eager beaver", "enthusiast"], "head": ["shit", "busy animal", "Beaver", "rodent"], "modifier": []}  # fmt: skip
    request = record_proposals(compound, answer(words))
    assert proposals_for(compound.pk) == {"nc": ["enthusiast"], "head": ["rodent"], "modifier": []}
    assert {(f["word"], f["reason"]) for f in request.filtered} == {
        ("bastard", "offensive"),
        ("shit", "offensive"),
        ("eager beaver", "the word it replaces"),
        ("Beaver", "the word it replaces"),
        ("busy animal", "not one word"),
    }


def test_an_invalid_answer_is_recorded_with_its_reason_and_proposes_nothing():
    compound = make_compound("eager beaver")
    record_proposals(compound, answer(None, error="no JSON object in the answer", raw_text="Sure!", attempts=3))
    request = SynonymRequest.objects.get()
    assert not request.valid and request.error == "no JSON object in the answer" and request.attempts == 3
    assert request.raw_text == "Sure!" and not ProposedSynonym.objects.exists()
    assert proposals_for(compound.pk) == {"nc": [], "head": [], "modifier": []}


def test_a_new_answer_replaces_pending_proposals_and_keeps_a_curators_decisions():
    compound = make_compound("eager beaver")
    record_proposals(compound, answer({"nc": ["enthusiast", "zealot"], "head": [], "modifier": []}))
    ProposedSynonym.objects.filter(word="zealot").update(status=ProposedSynonym.Status.REJECTED)
    record_proposals(compound, answer({"nc": ["zealot", "go-getter"], "head": [], "modifier": []}))
    assert SynonymRequest.objects.count() == 1
    assert dict(ProposedSynonym.objects.values_list("word", "status")) == {
        "zealot": "rejected",
        "go-getter": "proposed",
    }
    assert proposals_for(compound.pk)["nc"] == ["go-getter"]  # a rejected word is never a candidate again


def test_several_models_proposals_are_merged_by_rank_without_repeats():
    compound = make_compound("eager beaver")
    record_proposals(compound, answer({"nc": ["enthusiast", "zealot"], "head": [], "modifier": []}, "first"))
    record_proposals(compound, answer({"nc": ["Enthusiast", "go-getter"], "head": [], "modifier": []}, "second"))
    assert proposals_for(compound.pk)["nc"] == ["enthusiast", "zealot", "go-getter"]


def test_a_model_s_proposals_enter_the_ranking_marked_as_the_model_s(db):
    from building.variants.planning import model_proposals, synonym_query
    from building.variants.resources import GenerationOptions, load_resources

    compound = make_compound("eager beaver")
    SynonymRequest.objects.create(
        compound=compound, model_name="m", template_name="synonyms-en", template_version=1, template_text="",
        valid=True,
    )  # fmt: skip
    request = SynonymRequest.objects.get()
    for side, word, status in (("head", "rodent", "proposed"), ("modifier", "keen", "proposed"),
                               ("modifier", "avid", "rejected"), ("nc", "enthusiast", "proposed")):  # fmt: skip
        ProposedSynonym.objects.create(request=request, compound=compound, side=side, word=word, rank=1, status=status)
    assert [(p.side, p.word, p.source) for p in model_proposals(compound)] == [
        ("modifier", "keen", "model"),
        ("head", "rodent", "model"),
    ]
    query = synonym_query(compound, load_resources("en", GenerationOptions(context_model="none")))
    assert {(p.word, p.source) for p in query.proposals} >= {("keen", "model"), ("rodent", "model")}
