import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.actions import claim_next_item, enter_campaign, submit_rating
from annotation.models import Annotator, Campaign
from annotation.protocol import Answers

pytestmark = pytest.mark.django_db


def report(*args) -> dict:
    out = StringIO()
    call_command("agreement_report", *args, "--format", "json", stdout=out)
    return json.loads(out.getvalue())


def test_the_demo_report_has_every_question_level_and_procedure():
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", stdout=StringIO())
    data = report("--campaign", "demo-token", "--resamples", "200")
    assert data["ratings"] == 207 and data["simulated_included"]
    keys = {(r["question"], r["level"], r["procedure"]) for r in data["rows"]}
    assert len(keys) == 3 * 2 * 3
    full = next(r for r in data["rows"] if r["procedure"] == "full" and r["question"] == "compound_score")
    assert full["low"] <= full["alpha"] <= full["high"] and full["n_items"] == 69
    assert 0.3 < full["alpha"] < 0.95  # simulated annotators agree, one of them at random


def test_identical_raters_give_alpha_one():
    call_command("create_demo_campaigns", stdout=StringIO())
    campaign = Campaign.objects.get(slug="demo-type")
    for name in ("ana", "bo", "cy"):
        annotator = enter_campaign(campaign, platform=Annotator.Platform.GENERIC, external_id=name)
        while assignment := claim_next_item(annotator):
            score = int(assignment.item.compound.type_score or 0) % 6
            submit_rating(annotator, str(assignment.token), Answers(score, score, score))
    data = report("--campaign", str(campaign.pk), "--levels", "interval", "--resamples", "50")
    assert {r["alpha"] for r in data["rows"] if r["procedure"] == "full"} == {1.0}


def test_a_campaign_without_ratings_or_with_a_bad_level_is_refused():
    call_command("create_demo_campaigns", stdout=StringIO())
    with pytest.raises(CommandError, match="has no ratings yet"):
        call_command("agreement_report", "--campaign", "demo-type")
    with pytest.raises(CommandError, match="unknown level"):
        call_command("agreement_report", "--campaign", "demo-type", "--levels", "ratio")
    with pytest.raises(CommandError, match="no campaign 'nope'"):
        call_command("agreement_report", "--campaign", "nope")
