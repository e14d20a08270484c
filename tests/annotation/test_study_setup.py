"""Curators set a study up in the curator pages: practice and attention items with gold answers and feedback,
worked examples, quality thresholds, the language from a list, the completion code, items one by one."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.actions import claim_next_item, enter_campaign
from annotation.models import Annotator, Campaign, Item, QualityPolicy, WorkedExample
from annotation.setup_actions import add_items
from datasets import vocabulary
from datasets.models import Sentence
from tests.annotation.test_curator import answer_check, form_data, load_demo, make_campaign, make_user
from tests.annotation.test_views import enter, rate, url

pytestmark = pytest.mark.django_db
NIGHT_OWL = {"gold_head": "0", "gold_modifier": "4", "gold_compound": "1"}


@pytest.fixture
def curator_client(client):
    client.force_login(make_user("curator"))
    return client


@pytest.fixture
def client_factory():
    """A fresh browser for a crowd worker, beside the curator's."""
    return Client


def demo_sentence(text: str, slot: int = 1) -> Sentence:
    return Sentence.objects.get(
        compound__collection__slug="demo",
        compound__text=text,
        compound__language="en",
        kind=vocabulary.NATURALISTIC,
        slot=slot,
    )


def add_check(client, campaign: Campaign, sentence: Sentence, role: str = "training", **fields):
    data = {"role": role, "target": sentence.pk, **NIGHT_OWL, "feedback": ""} | fields
    return client.post(reverse("curator:check_add", args=[campaign.slug]), data)


def test_a_practice_item_made_in_the_curator_pages_is_what_a_worker_practises_on(curator_client, client_factory):
    campaign = make_campaign(n=2, items=2)
    owl = demo_sentence("night owl")
    response = add_check(curator_client, campaign, owl, feedback="A night owl is a person who stays up late.")
    assert response.status_code == 302 and response["Location"] == reverse("curator:checks", args=[campaign.slug])
    item = campaign.items.get(role=Item.Role.TRAINING)
    assert (item.sentence_id, item.gold_head, item.gold_modifier, item.gold_compound) == (owl.pk, 0, 4, 1)
    page = curator_client.get(reverse("curator:checks", args=[campaign.slug])).content.decode()
    assert "night owl" in page and "A night owl is a person who stays up late." in page

    worker = client_factory()
    enter(worker, campaign)
    rating_page = worker.get(url("rate", campaign))
    assert rating_page.context["assignment"].item == item
    assert owl.text.split("[")[0].strip()[:20] in rating_page.content.decode()
    token, answered = rate(worker, campaign, {"head_score": "0", "modifier_score": "4", "compound_score": "1"})
    assert answered.url == url("feedback", campaign, token=token)
    assert "A night owl is a person who stays up late." in worker.get(answered.url).content.decode()
    assert Annotator.objects.get(campaign=campaign).ratings.get().item == item


def test_an_attention_check_has_gold_but_no_feedback_and_its_gold_can_be_changed(curator_client):
    campaign = make_campaign(n=2, items=2)
    response = add_check(curator_client, campaign, demo_sentence("swimming pool"), role="attention", feedback="ignored")
    assert response.status_code == 302
    item = campaign.items.get(role=Item.Role.ATTENTION)
    assert item.feedback == ""
    edit = reverse("curator:check_edit", args=[campaign.slug, item.pk])
    assert curator_client.get(edit).status_code == 200
    assert curator_client.post(edit, {"gold_head": "", "gold_modifier": "", "gold_compound": "5"}).status_code == 302
    item.refresh_from_db()
    assert (item.gold_head, item.gold_modifier, item.gold_compound) == (None, None, 5)


def test_a_check_item_needs_an_expected_answer(curator_client):
    campaign = make_campaign(n=2, items=2)
    response = add_check(
        curator_client, campaign, demo_sentence("night owl"), gold_head="", gold_modifier="", gold_compound=""
    )
    assert response.status_code == 400
    assert "Give at least one expected answer" in response.content.decode()
    assert not campaign.items.exclude(role=Item.Role.REGULAR).exists()


def test_an_unrated_regular_item_may_become_a_check_item_but_not_one_already_handed_out(curator_client):
    campaign = make_campaign(n=2, items=2)
    first, second = campaign.items.order_by("order_key")
    assert add_check(curator_client, campaign, second.sentence).status_code == 302
    second.refresh_from_db()
    assert second.role == Item.Role.TRAINING and campaign.items.count() == 2

    annotator = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="ana")
    assert claim_next_item(annotator).item == first
    response = add_check(curator_client, campaign, first.sentence)
    assert response.status_code == 400
    assert "was already given to workers" in response.content.decode()
    first.refresh_from_db()
    assert first.role == Item.Role.REGULAR


def test_an_answered_check_item_stays(curator_client):
    campaign = make_campaign(n=2, items=2)
    add_check(curator_client, campaign, demo_sentence("night owl"))
    add_check(curator_client, campaign, demo_sentence("swimming pool"), role="attention")
    practice, attention = campaign.items.get(role=Item.Role.TRAINING), campaign.items.get(role=Item.Role.ATTENTION)
    answer_check(enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="ana"), practice)

    curator_client.post(reverse("curator:check_remove", args=[campaign.slug, practice.pk]))
    curator_client.post(reverse("curator:check_remove", args=[campaign.slug, attention.pk]))
    assert list(campaign.items.exclude(role=Item.Role.REGULAR)) == [practice]


def test_worked_examples_are_the_campaigns_own_and_never_about_its_items(curator_client, client_factory):
    campaign = make_campaign(n=2, items=2)
    rated = campaign.items.select_related("compound").first().compound.text
    add = reverse("curator:example_add", args=[campaign.slug])
    example = {
        "compound": "rat race",
        "sentence": "He left the rat race to grow vegetables.",
        "head_score": "0",
        "head_note": "there are no rats",
        "modifier_score": "1",
        "modifier_note": "",
        "compound_score": "1",
        "compound_note": "a figurative race",
        "paraphrases": "competitive working life; daily grind",
    }
    assert curator_client.post(add, example).status_code == 302
    refused = curator_client.post(add, example | {"compound": rated, "sentence": f"The {rated} was new."})
    assert refused.status_code == 400
    assert "is rated in this campaign: the example would give its answers away" in refused.content.decode()
    missing = curator_client.post(add, example | {"sentence": "No compound in this one."})
    assert "The sentence must contain the compound" in missing.content.decode()
    assert list(WorkedExample.objects.values_list("compound", flat=True)) == ["rat race"]

    worker = client_factory()
    instructions = enter(worker, campaign).content.decode()
    assert '<mark class="nc">rat race</mark>' in instructions and "there are no rats" in instructions
    assert "competitive working life · daily grind" in instructions
    assert "eager beaver" not in instructions  # the campaign's own examples replace the standard ones


def test_the_standard_examples_leave_out_the_campaigns_own_compounds(client_factory):
    campaign = make_campaign(n=2, items=0)
    add_items(campaign, [demo_sentence("coffee cup")])
    instructions = enter(client_factory(), campaign).content.decode()
    assert "eager beaver" in instructions and "brain drain" in instructions
    assert "She rinsed her" not in instructions and '<mark class="nc">coffee cup</mark>' not in instructions


def test_the_quality_thresholds_are_set_in_the_curator_pages(curator_client):
    campaign = make_campaign(n=2, items=2)
    page = reverse("curator:quality", args=[campaign.slug])
    assert curator_client.get(page).status_code == 200
    data = {"min_median_seconds": "5", "max_same_answer_share": "", "max_attention_failures": "0", "min_rho": "0.3"}
    response = curator_client.post(page, data | {"min_items": "12"})
    assert response.status_code == 302
    policy = QualityPolicy.objects.get(campaign=campaign)
    assert (policy.min_median_seconds, policy.max_same_answer_share, policy.max_attention_failures) == (5, None, 0)
    assert (policy.min_rho, policy.min_items) == (0.3, 12)
    dashboard = curator_client.get(reverse("curator:dashboard", args=[campaign.slug])).content.decode()
    assert "speeder below 5.0 s median per item" in dashboard and "straight-lining at (off)" in dashboard


def test_the_language_is_chosen_from_a_list_and_the_completion_code_is_set(curator_client):
    collection = load_demo()
    form = curator_client.get(reverse("curator:create")).content.decode()
    assert '<select name="language"' in form and '<option value="en">English (en)</option>' in form
    refused = curator_client.post(reverse("curator:create"), form_data(collection, language="english"))
    assert refused.status_code == 200 and "language" in refused.context["form"].errors

    curator_client.post(reverse("curator:create"), form_data(collection, completion_code=" MY-CODE "))
    campaign = Campaign.objects.get(slug="idioms-token")
    assert campaign.completion_code == "MY-CODE"
    curator_client.post(
        reverse("curator:edit", args=[campaign.slug]), form_data(collection, slug=campaign.slug, completion_code="")
    )
    campaign.refresh_from_db()
    assert campaign.completion_code == "MY-CODE"


def test_items_are_chosen_one_by_one(curator_client):
    collection = load_demo()
    response = curator_client.post(reverse("curator:create"), form_data(collection, item_class="pick"))
    campaign = Campaign.objects.get(slug="idioms-token")
    assert response["Location"] == reverse("curator:items_pick", args=[campaign.slug])
    assert not campaign.items.exists()
    owl, beaver = demo_sentence("night owl"), demo_sentence("eager beaver", slot=2)
    picker = reverse("curator:items_pick", args=[campaign.slug])
    everything = curator_client.get(picker).content.decode()
    assert f'value="{owl.pk}"' in everything and f'value="{beaver.pk}"' in everything
    searched = curator_client.get(picker, {"q": "NIGHT owl"}).content.decode()
    assert f'value="{owl.pk}"' in searched and f'value="{beaver.pk}"' not in searched
    idiomatic = curator_client.get(picker, {"item_class": "compositional"}).content.decode()
    assert f'value="{beaver.pk}"' not in idiomatic  # eager beaver is idiomatic

    curator_client.post(reverse("curator:items_pick", args=[campaign.slug]), {"targets": [owl.pk, beaver.pk]})
    assert set(campaign.items.values_list("sentence_id", flat=True)) == {owl.pk, beaver.pk}
    assert set(campaign.items.values_list("role", flat=True)) == {Item.Role.REGULAR}
