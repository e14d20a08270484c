"""A release says, per language, where its scores come from (issue 28): simulated annotators called so in the title
line and the card's first paragraph, workers left out with why (a campaign that contributed nothing), and the
dataset a language's reference scores were imported with."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from annotation.models import Annotator
from releases.actions import create_release
from tests.annotation.test_curator import make_campaign, rate_next
from tests.annotation.test_payments import prolific

pytestmark = pytest.mark.django_db


def card(release) -> str:
    return bytes(release.files.get(path="README.md").content).decode()


def test_a_release_of_the_simulated_demo_campaign_says_so_everywhere():
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", stdout=StringIO())
    release = create_release("1.0.0", ["en", "pt"], collections=["demo"], campaigns=["demo-token"])
    text = card(release)
    assert text.splitlines()[0].startswith("# ") and text.splitlines()[0].endswith("(includes simulated ratings)")
    assert text.splitlines()[4].startswith("This release includes SIMULATED ratings")
    assert "SIMULATED annotators (demo data, not people)" in text
    # Portuguese had no campaign: its scores are the demo's own, and the card does not pretend otherwise.
    assert (
        "Portuguese (pt): reference scores imported with the workbench demo (written by the team) "
        "(no campaign of this release rated it)." in text
    )
    assert release.scores["simulated"] is True
    assert release.scores["languages"][1]["in_words"].startswith("Portuguese (pt): reference scores imported")


def test_a_campaign_whose_workers_were_all_left_out_contributed_nothing(curator_client):
    campaign = make_campaign(n=2, items=3)
    for pid in ("5f0000000000000000000001", "5f0000000000000000000002"):
        worker = prolific(campaign, pid, f"s-{pid[-1]}")
        for _ in range(3):
            rate_next(worker, seconds=0.5)  # speeders: the default policy leaves them out
    assert not Annotator.objects.filter(campaign=campaign, simulated=True).exists()
    release = create_release("1.0.0", ["en"], collections=["demo"], campaigns=[campaign.slug])
    text = card(release)
    assert f"campaign `{campaign.slug}` (token level) contributed nothing: every worker was left out" in text
    assert "speeder (median 0.5 s per item < 3 s)" in text
    # A release names no one: the workers' Prolific ids stay in the workbench; the card numbers them.
    assert "annotator 1: flagged: speeder" in text and "annotator 2: flagged: speeder" in text
    published = b"".join(bytes(content) for content in release.files.values_list("content", flat=True))
    assert b"5f000000000000000000000" not in published
    assert "its scores are the reference scores imported with the workbench demo" in text
    assert "SIMULATED" not in text and release.scores["simulated"] is False
    page = curator_client.get(reverse("release", args=["1.0.0"])).content.decode()
    assert "contributed nothing: every worker was left out" in page and 'id="simulated-flag"' not in page


def test_the_release_page_shows_the_simulated_flag_and_each_languages_source(curator_client):
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", stdout=StringIO())
    create_release("1.0.0", ["en", "pt"], collections=["demo"], campaigns=["demo-token"])
    page = curator_client.get(reverse("release", args=["1.0.0"])).content.decode()
    assert 'id="simulated-flag">includes simulated ratings</span>' in page
    assert 'id="simulated-note">This release includes SIMULATED ratings' in page
    assert "English (en): campaign `demo-token` (token level)" in page and "Portuguese (pt): reference scores" in page


def test_a_release_records_how_a_campaigns_ratings_were_collected():
    campaign = make_campaign(n=2, items=3)
    campaign.consent_text = "I agree to take part."
    campaign.pay_per_rating = "0.12"
    campaign.save()
    for pid in ("5f0000000000000000000001", "5f0000000000000000000002"):
        worker = prolific(campaign, pid, f"s-{pid[-1]}")
        for _ in range(3):
            rate_next(worker, seconds=20)
    Annotator.objects.filter(campaign=campaign).update(consented_at=timezone.now())
    release = create_release("1.0.0", ["en"], collections=["demo"], campaigns=[campaign.slug])
    (source,) = release.scores["languages"][0]["campaigns"]
    assert (source["people"], source["platforms"], source["pay_per_rating"]) == (2, ["prolific"], "0.12")
    assert (source["consent"], source["allocation"], source["ratings_per_item"]) == (True, "fixed", 2)
    assert "through Prolific; paid 0.12 per rating" in card(release)
    Annotator.objects.filter(campaign=campaign).update(consented_at=None)
    again = create_release("1.0.1", ["en"], collections=["demo"], campaigns=[campaign.slug])
    assert again.scores["languages"][0]["campaigns"][0]["consent"] is False
