"""The dashboard's status buttons in words, "Back to draft" only before anyone entered, and the hours that had ratings."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotation.actions import enter_campaign
from annotation.models import Annotator, Campaign, Rating
from annotation.setup_actions import SetupError, change_status
from tests.annotation.test_curator import make_campaign, make_user, rate_next

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator_client(client):
    client.force_login(make_user("curator"))
    return client


def buttons(html: str) -> list[str]:
    return re.findall(r'<button type="submit" title="[^"]*" aria-describedby="status-help">([^<]+)</button>', html)


def test_back_to_draft_is_offered_and_confirmed_only_before_anyone_entered(curator_client):
    campaign = make_campaign()
    dashboard = reverse("curator:dashboard", args=[campaign.slug])
    url = reverse("curator:status", args=[campaign.slug])

    html = curator_client.get(dashboard).content.decode()
    assert buttons(html) == ["Pause", "Close", "Back to draft"]
    assert "<b>Back to draft</b>: Only before anyone has entered" in html
    asked = curator_client.post(url, {"action": "draft"}).content.decode()
    assert "Nobody has entered yet, so nothing is lost" in asked
    assert Campaign.objects.get(pk=campaign.pk).status == Campaign.Status.OPEN
    curator_client.post(url, {"action": "draft", "confirm": "yes"})
    assert Campaign.objects.get(pk=campaign.pk).status == Campaign.Status.DRAFT
    assert buttons(curator_client.get(dashboard).content.decode()) == ["Open to workers", "Pause", "Close"]


def test_a_campaign_people_worked_on_is_not_returned_to_draft(curator_client):
    campaign = make_campaign()
    rate_next(enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="ana"))
    dashboard = reverse("curator:dashboard", args=[campaign.slug])

    assert buttons(curator_client.get(dashboard).content.decode()) == ["Pause", "Close"]
    response = curator_client.post(
        reverse("curator:status", args=[campaign.slug]), {"action": "draft", "confirm": "yes"}, follow=True
    )
    assert "1 annotator entered Demo: a campaign people have worked on is paused or closed" in response.content.decode()
    assert Campaign.objects.get(pk=campaign.pk).status == Campaign.Status.OPEN
    with pytest.raises(SetupError, match="not returned to draft"):
        change_status(campaign, Campaign.Status.DRAFT)


def test_the_hours_with_ratings_are_listed_and_the_quiet_ones_counted(curator_client):
    campaign = make_campaign(n=3)
    for worker in ("ana", "bo"):
        rate_next(enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id=worker))
    first = Rating.objects.filter(item__campaign=campaign).order_by("pk").first()
    Rating.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(hours=5))

    html = curator_client.get(reverse("curator:dashboard", args=[campaign.slug])).content.decode()

    table = html[html.index('<table id="ratings-per-hour">') : html.index("</table>", html.index("ratings-per-hour"))]
    assert table.count("<tr><td>") == 2 and ">0</td>" not in table
    assert "22 of the last 24 hours had no ratings and are not listed." in html


def test_a_campaign_without_recent_ratings_says_so(curator_client):
    campaign = make_campaign()
    html = curator_client.get(reverse("curator:dashboard", args=[campaign.slug])).content.decode()
    assert 'id="ratings-per-hour"' not in html and "No ratings in the last 24 hours." in html
