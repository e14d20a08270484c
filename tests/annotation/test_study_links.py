"""A curator finds the study links on the dashboard, is warned while workers would be turned away, and previews
the study as a worker without recording anything."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.models import Annotator, Assignment, Campaign, Item, Rating, Skip
from tests.annotation.test_curator import make_user
from tests.annotation.test_views import make_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator(client):
    client.force_login(make_user("curator"))
    return client


def dashboard(client, campaign) -> str:
    return client.get(reverse("curator:dashboard", args=[campaign.slug])).content.decode()


def test_the_dashboard_gives_each_platforms_study_link_with_its_placeholders(curator):
    campaign = make_campaign(regular=3)
    html = dashboard(curator, campaign)
    start = f"http://testserver/annotate/{campaign.slug}/start/"
    prolific = f"{start}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&amp;STUDY_ID={{{{%STUDY_ID%}}}}&amp;SESSION_ID={{{{%SESSION_ID%}}}}"
    assert f'<code id="link-prolific">{prolific}</code>' in html
    assert f'<code id="link-mturk">{start}</code>' in html and "MTurk appends workerId" in html
    assert f'<code id="link-generic">{start}?worker_id=WORKER_ID</code>' in html
    assert html.count('data-copy="link-') == 4
    assert reverse("curator:preview", args=[campaign.slug]) in html
    assert 'id="intake-warning"' not in html  # open, with items: nothing to warn about


@pytest.mark.parametrize(
    ("status", "warning"),
    [
        (Campaign.Status.DRAFT, "is a draft"),
        (Campaign.Status.PAUSED, "is paused"),
        (Campaign.Status.CLOSED, "is closed"),
    ],
)
def test_a_campaign_that_turns_workers_away_says_so(curator, status, warning):
    campaign = make_campaign(regular=2, status=status)
    assert re.search(rf'id="intake-warning" role="alert">This campaign {warning}', dashboard(curator, campaign))


def test_a_full_campaign_says_so(curator, client):
    campaign = make_campaign(regular=1, ratings_per_item=1)
    item = campaign.items.get()
    annotator = Annotator.objects.create(campaign=campaign, platform="prolific", external_id="w1")
    assignment = Assignment.objects.create(item=item, annotator=annotator, expires_at="2100-01-01T00:00Z")
    Rating.objects.create(
        assignment=assignment, item=item, annotator=annotator, head_score=1, modifier_score=1, compound_score=1
    )
    assert "This campaign is full" in dashboard(curator, campaign)


def test_the_preview_walks_a_workers_pages_and_records_nothing(curator):
    campaign = make_campaign(regular=11, training=1, attention=1)
    url = reverse("curator:preview", args=[campaign.slug])
    before = (Annotator.objects.count(), Assignment.objects.count(), Rating.objects.count(), Skip.objects.count())
    pages, step = [], 0
    while True:
        response = curator.get(url, {"step": step})
        assert response.status_code == 200
        html = response.content.decode()
        assert 'id="preview-banner"' in html and "nothing you do here is recorded" in html
        assert "csrfmiddlewaretoken" not in html  # its forms only move on, by GET
        pages.append(response.context.get("item").role if response.context.get("item") else html)
        if 'id="preview-end"' in html:
            break
        step += 1
    assert "I agree" in pages[0] and "How to rate" in pages[1]
    roles = pages[2:-1]
    assert roles == [Item.Role.TRAINING] + [Item.Role.REGULAR] * 5 + [Item.Role.ATTENTION] + [Item.Role.REGULAR] * 6
    # Answering or skipping in the preview moves on and stores nothing.
    curator.get(url, {"step": 4, "head_score": "1", "modifier_score": "1", "compound_score": "1"})
    curator.get(url, {"step": 5, "skip": "unknown_expression"})
    after = (Annotator.objects.count(), Assignment.objects.count(), Rating.objects.count(), Skip.objects.count())
    assert after == before


def test_only_curators_preview(client):
    campaign = make_campaign(regular=2)
    response = client.get(reverse("curator:preview", args=[campaign.slug]))
    assert response.status_code == 302 and "/login/" in response.url
