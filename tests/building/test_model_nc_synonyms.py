"""A model's synonyms of the whole compound become NC_Syn candidates: after the crowd's gold synonym, marked as the
model's, never approved, never a rejected or offensive word; the review page says where each came from."""

from __future__ import annotations

import pytest
from django.urls import reverse

from building.models import ProposedSynonym
from building.variants.generation import generate_variants
from building.variants.proposals import ModelAnswer, record_proposals
from datasets import vocabulary
from datasets.models import Collection, Compound, Sentence, Variant
from tests.building.review_factories import make_curator

pytestmark = pytest.mark.django_db

FRONT_MAN = "John Paul II was an effective front man for the catholic church."


@pytest.fixture(autouse=True)
def lexical_resources(debian_wordnet, settings, tmp_path_factory):
    settings.WORDNET_DIR = debian_wordnet
    settings.NLTK_DATA_DIR = tmp_path_factory.getbasetemp() / "nltk_data"


def front_man(gold: str = "") -> Compound:
    compound = Compound.objects.create(
        collection=Collection.named("test"), language="en", text="front man", modifier="front", head="man",
        gold_synonym=gold, gold_synonym_source=vocabulary.GOLD_FROM_PARAPHRASES if gold else "",
    )  # fmt: skip
    Sentence.objects.create(compound=compound, slot=1, text=FRONT_MAN, span_start=30, span_end=39)
    return compound


def propose(compound: Compound, *nc: str, model_name: str = "served-chat") -> None:
    record_proposals(
        compound,
        ModelAnswer(
            model_name=model_name, model_identity={"kind": "openai_chat"}, template_name="synonyms-en",
            template_version=1, template_text="{}", settings={}, valid=True,
            words={"nc": list(nc), "head": [], "modifier": []},
        ),
    )  # fmt: skip


def nc_syn(compound: Compound) -> list[Variant]:
    return list(
        Variant.objects.filter(
            sentence__compound=compound, sentence__kind=vocabulary.NATURALISTIC, kind=vocabulary.SYNONYM_NC
        )
        .filter(isolated=False)
        .order_by("rank")
    )


def test_the_crowds_gold_synonym_stays_first_and_the_models_proposals_follow_marked_as_the_models():
    compound = front_man(gold="representative")
    propose(compound, "spokesman", "The Representatives", "figurehead")
    generate_variants([compound])
    found = nc_syn(compound)
    assert [(x.rank, x.replacement, x.details["source"]) for x in found] == [
        (1, "representative", "crowd"),
        (2, "spokesman", "model"),
        (3, "figurehead", "model"),
    ]
    assert found[1].text == "John Paul II was an effective spokesman for the catholic church."
    assert {key: found[1].details[key] for key in ("model", "template", "template_version")} == {
        "model": "served-chat",
        "template": "synonyms-en",
        "template_version": 1,
    }
    # The model's "The Representatives" is the gold synonym: it supports it rather than repeating it.
    assert [other["text"] for other in found[0].details["supported_by"]] == ["The Representatives"]
    assert {x.status for x in found} == {vocabulary.GENERATED}
    isolated = Variant.objects.filter(sentence__compound=compound, kind=vocabulary.SYNONYM_NC, isolated=True)
    assert sorted(isolated.values_list("rank", "text")) == [(1, "representative"), (2, "spokesman"), (3, "figurehead")]


def test_without_a_gold_synonym_a_models_proposal_gives_nc_syn_marked_as_the_models_and_not_approved():
    compound = front_man()
    propose(compound, "spokesman")
    summary = generate_variants([compound])
    (syn,) = nc_syn(compound)
    assert (syn.rank, syn.replacement, syn.details["source"], syn.details["model"]) == (
        1,
        "spokesman",
        "model",
        "served-chat",
    )
    assert syn.status == vocabulary.GENERATED and not syn.is_decided
    assert "no gold synonym yet: NC_Syn from a model's proposals" in " ".join(summary.notes["front man (en)"])


def test_a_rejected_proposal_is_never_used_and_its_pending_variant_goes():
    compound = front_man(gold="representative")
    propose(compound, "spokesman", "figurehead")
    generate_variants([compound])
    ProposedSynonym.objects.filter(word="spokesman").update(status=ProposedSynonym.Status.REJECTED)
    generate_variants([compound])
    assert [x.replacement for x in nc_syn(compound)] == ["representative", "figurehead"]
    assert not Variant.objects.filter(sentence__compound=compound, text__contains="spokesman").exists()


def test_an_offensive_proposal_is_never_used_even_one_recorded_before_the_list_had_it():
    compound = front_man()
    propose(compound, "bastard", "spokesman")
    request = compound.synonym_requests.get()
    assert [entry["word"] for entry in request.filtered] == ["bastard"]
    # A row the filter never saw (recorded before the word was listed) is still refused when generating.
    ProposedSynonym.objects.create(request=request, compound=compound, side="nc", word="shit", rank=1)
    generate_variants([compound])
    assert [x.replacement for x in nc_syn(compound)] == ["spokesman"]


def test_the_review_page_shows_whether_an_nc_syn_came_from_the_crowd_or_a_model(client):
    compound = front_man(gold="representative")
    propose(compound, "spokesman", "representatives")
    propose(compound, "Spokesman", model_name="other-chat")
    generate_variants([compound])
    client.force_login(make_curator())
    page = client.get(reverse("review_compound", args=[compound.pk]), {"kind": vocabulary.SYNONYM_NC}).content.decode()
    assert "NC_Syn from the crowd: the gold synonym; also proposed by served-chat (synonyms-en v1)</p>" in page
    assert (
        "NC_Syn from a model: served-chat (synonyms-en v1, its #1), for a curator to check; "
        "also proposed by other-chat (synonyms-en v1)</p>" in page
    )
    assert 'class="tag source-model"' in page and 'class="tag source-crowd"' in page
