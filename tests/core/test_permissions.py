"""Who may see curator pages and the annotation API: every role against every endpoint."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, Group
from django.urls import reverse

from annotation.actions import enter_campaign
from annotation.models import Annotator, Campaign, Rating
from core.permissions import CURATORS_GROUP, is_curator
from datasets.models import Sentence
from tests.annotation.test_curator import form_data, make_campaign, make_user, rate_next

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "annotator", "curator", "staff", "admin"]
CURATOR_ROLES = {"curator", "staff", "admin"}


@pytest.fixture
def campaign():
    campaign = make_campaign(n=2, items=2)
    rate_next(enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="ana"), paraphrases=["keen"])
    return campaign


def client_as(client, role: str):
    if role != "anonymous":
        client.force_login(make_user(role))
    return client


# (method, url name, args from the campaign, POST data from the campaign, status for a curator)
PAGES = [
    ("get", "curator:campaigns", None, None, 200),
    ("get", "curator:create", None, None, 200),
    ("post", "curator:create", None, lambda c: form_data(c.collection, slug="fresh"), 302),
    ("get", "curator:dashboard", "slug", None, 200),
    ("get", "curator:edit", "slug", None, 200),
    ("post", "curator:edit", "slug", lambda c: form_data(c.collection, slug=c.slug, name="Renamed"), 302),
    ("post", "curator:items", "slug", lambda c: {"item_class": ""}, 302),
    ("post", "curator:status", "slug", lambda c: {"action": "pause", "confirm": "yes"}, 302),
    ("get", "curator:export", "ratings.csv", None, 200),
    ("get", "curator:export", "ratings.json", None, 200),
    ("get", "curator:export", "paraphrases.csv", None, 200),
    ("get", "curator:export", "paraphrases.json", None, 200),
    ("get", "curator:checks", "slug", None, 200),
    ("post", "curator:check_add", "slug", lambda c: check_data(c), 302),
    ("get", "curator:quality", "slug", None, 200),
    ("get", "curator:payments", "slug", None, 200),
    ("get", "curator:payment_file", "prolific.csv", None, 200),
]


def check_data(campaign: Campaign) -> dict:
    """A practice item on an English demo sentence that is not yet one of the campaign's items."""
    sentence = Sentence.objects.filter(compound__language="en", available=True).exclude(
        pk__in=campaign.items.values("sentence_id")
    )[0]
    return {"role": "training", "target": sentence.pk, "gold_head": 5, "gold_modifier": 5, "gold_compound": 5}


def page_url(campaign: Campaign, name: str, args: str | None) -> str:
    if args is None:
        return reverse(name)
    if args == "slug":
        return reverse(name, args=[campaign.slug])
    if name == "curator:payment_file":
        return reverse(name, args=[campaign.slug, args])
    table, fmt = args.split(".")
    return reverse(name, args=[campaign.slug, table, fmt])


def fingerprint(campaign: Campaign) -> tuple:
    campaign.refresh_from_db()
    return (Campaign.objects.count(), campaign.name, campaign.status, campaign.items.count())


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("method", "name", "args", "data", "allowed_status"), PAGES)
def test_curator_pages(client, campaign, role, method, name, args, data, allowed_status):
    client = client_as(client, role)
    url = page_url(campaign, name, args)
    before = fingerprint(campaign)
    response = getattr(client, method)(url, data(campaign) if data else None)
    if role in CURATOR_ROLES:
        assert response.status_code == allowed_status
        if method == "post":
            assert fingerprint(campaign) != before
        return
    if role == "anonymous":
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login") + "?next=")
    else:
        assert response.status_code == 403
    assert fingerprint(campaign) == before


API = [
    ("annotation_api:campaign-list", None),
    ("annotation_api:campaign-detail", "campaign"),
    ("annotation_api:campaign-export", "campaign"),
    ("annotation_api:rating-list", None),
    ("annotation_api:rating-detail", "rating"),
]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(("name", "arg"), API)
def test_api_endpoints(client, campaign, role, name, arg):
    client = client_as(client, role)
    rating = Rating.objects.get(item__campaign=campaign)
    args = {None: [], "campaign": [campaign.pk], "rating": [rating.pk]}[arg]
    response = client.get(reverse(name, args=args))
    if role in CURATOR_ROLES:
        assert response.status_code == 200
    else:
        assert response.status_code in (401, 403)
        assert not getattr(response, "streaming", False)


def test_is_curator():
    assert not is_curator(AnonymousUser())
    assert not is_curator(None)
    assert not is_curator(make_user("annotator"))
    assert is_curator(make_user("curator"))
    assert is_curator(make_user("staff"))
    assert is_curator(make_user("admin"))
    other = make_user("annotator")
    other.groups.add(Group.objects.create(name="annotators"))
    assert not is_curator(other)
    inactive = make_user("curator")
    inactive.is_active = False
    assert not is_curator(inactive)
    assert Group.objects.filter(name=CURATORS_GROUP).exists()
