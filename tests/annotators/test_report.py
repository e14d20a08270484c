"""The campaign report's machine section: a model whose answers are known, on the page, in JSON and in the command."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Avg
from django.urls import reverse

from annotation.models import Item, MachineAnnotator, MachineAnswer, Rating
from annotators.prompts import TEMPLATES

pytestmark = pytest.mark.django_db


@pytest.fixture
def echo_model(demo_campaign):
    """A machine annotator that answers each item with the people's rounded mean (one item left invalid)."""
    template = TEMPLATES["reddy-en"]
    machine = MachineAnnotator.objects.create(
        campaign=demo_campaign, key="k" * 64, label="echo · reddy-en v1 · t=0 · sample 1", model_name="echo",
        model_kind="openai_chat", model_identity={"kind": "openai_chat", "name": "echo"}, template_name=template.name,
        template_version=template.version, template_text=template.text, settings={"temperature": 0.0, "seed": 0}, sample=1,
    )  # fmt: skip
    items = list(Item.objects.filter(campaign=demo_campaign, role=Item.Role.REGULAR).order_by("pk"))
    means = {
        row["item"]: row
        for row in Rating.objects.filter(item__in=items)
        .values("item")
        .annotate(c=Avg("compound_score"), h=Avg("head_score"), m=Avg("modifier_score"))
    }
    for item in items[1:]:
        row = means[item.pk]
        MachineAnswer.objects.create(
            annotator=machine, item=item, valid=True, compound_score=round(row["c"]), head_score=round(row["h"]),
            modifier_score=round(row["m"]), paraphrases=["a made-up paraphrase"], raw_text="{}",
        )  # fmt: skip
    MachineAnswer.objects.create(
        annotator=machine, item=items[0], valid=False, raw_text="It is quite literal, I'd say four.", error="no JSON object in the answer"
    )  # fmt: skip
    return machine, len(items)


def test_the_report_compares_the_model_with_the_people_and_counts_its_invalid_answers(
    curator_client, echo_model, demo_campaign
):
    machine, items = echo_model
    out = StringIO()
    call_command("campaign_report", "--campaign", demo_campaign.slug, "--format", "json", stdout=out)
    [entry] = json.loads(out.getvalue())["machine_annotators"]
    assert entry["origin"] == "machine" and entry["identity"] == {"kind": "openai_chat", "name": "echo"}
    assert entry["template"]["name"] == "reddy-en" and entry["template"]["text"] == TEMPLATES["reddy-en"].text
    assert entry["answers"]["answered"] == items and entry["answers"]["invalid"] == 1
    assert entry["answers"]["invalid_examples"][0]["raw_text"] == "It is quite literal, I'd say four."
    scores = entry["comparison"]["scores"]["compound"]
    # The people's own means, rounded: nearly perfect agreement, never worse than half a point.
    assert scores["spearman_item"]["rho"] > 0.9 and scores["spearman_item"]["n"] == items - 1
    assert scores["mae_item"] <= 0.5 and entry["comparison"]["items_compared"] == items - 1
    alpha = entry["comparison"]["alpha"]["compound"]
    assert alpha["with_machine"] > alpha["humans"]  # a consensus rater raises agreement
    assert entry["comparison"]["reliability"]["compound"]["percentile"] == 100.0
    page = curator_client.get(reverse("curator:report", args=[demo_campaign.slug])).content.decode()
    assert 'id="machine-annotators"' in page and f'id="machine-{machine.pk}"' in page
    assert "<b>1 invalid</b>" in page and "I&#x27;d say four" in page and "echo · reddy-en v1" in page
    assert 'aria-label="echo · reddy-en v1 · t=0 · sample 1: compound scores"' in page


def test_a_report_without_machine_annotators_says_how_to_add_one(curator_client, demo_campaign):
    page = curator_client.get(reverse("curator:report", args=[demo_campaign.slug])).content.decode()
    assert "No model has answered this campaign" in page and "annotate_with_model" in page
