"""Curators create campaigns through the API too."""

from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from rest_framework.test import APIClient

from annotation.models import Campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def curator() -> User:
    user = User.objects.create_user("cora", password="pw")
    user.groups.add(Group.objects.get_or_create(name="curators")[0])
    return user


def post(user, data):
    client = APIClient()
    if user:
        client.force_authenticate(user)
    return client.post("/api/annotation/campaigns/", data, format="json")


BODY = {
    "name": "Idioms",
    "slug": "idioms",
    "collection": "demo",
    "language": "en",
    "level": "token",
    "ratings_per_item": 3,
    "seed": 11,
    "status": "open",
}


def test_a_curator_creates_a_token_campaign_with_every_available_sentence(curator):
    call_command("load_demo", stdout=StringIO())
    response = post(curator, {**BODY, "item_class": "idiomatic"})
    assert response.status_code == 201, response.content
    assert response.json()["item_count"] == 8 * 3  # 8 idiomatic compounds, 3 naturalistic sentences each
    campaign = Campaign.objects.get(slug="idioms")
    assert campaign.created_by == curator and campaign.status == Campaign.Status.OPEN
    assert {i.compound.compositionality_class for i in campaign.items.select_related("compound")} == {"idiomatic"}


def test_a_type_campaign_gets_one_item_per_compound(curator):
    call_command("load_demo", stdout=StringIO())
    response = post(curator, {**BODY, "slug": "types", "level": "type", "language": "pt"})
    assert response.status_code == 201 and response.json()["item_count"] == 12


def test_a_language_the_collection_lacks_is_refused(curator):
    call_command("load_demo", stdout=StringIO())
    response = post(curator, {**BODY, "language": "de"})
    assert response.status_code == 400 and "has no compounds in 'de'" in response.json()["language"][0]
    assert not Campaign.objects.exists()


@pytest.mark.parametrize("who", ["anonymous", "annotator"])
def test_only_curators_may_create(who):
    call_command("load_demo", stdout=StringIO())
    user = User.objects.create_user("anna") if who == "annotator" else None
    assert post(user, BODY).status_code in (401, 403)
    assert not Campaign.objects.exists()


def test_a_curator_can_choose_the_sentences(curator):
    call_command("load_demo", stdout=StringIO())
    from datasets.models import Sentence

    chosen = list(
        Sentence.objects.filter(compound__key="eager beaver", kind="naturalistic").values_list("id", flat=True)
    )
    response = post(curator, {**BODY, "item_ids": chosen})
    assert response.status_code == 201 and response.json()["item_count"] == 3
    assert set(Campaign.objects.get().items.values_list("sentence_id", flat=True)) == set(chosen)


def test_chosen_ids_outside_the_scope_are_refused(curator):
    call_command("load_demo", stdout=StringIO())
    from datasets.models import Sentence

    portuguese = Sentence.objects.filter(compound__language="pt").values_list("id", flat=True)[0]
    response = post(curator, {**BODY, "item_ids": [portuguese]})
    assert response.status_code == 400 and str(portuguese) in response.json()["item_ids"][0]
    assert not Campaign.objects.exists()


@pytest.mark.django_db
def test_the_crowd_safeguard_settings_are_read_and_written_through_the_api(client):
    from tests.annotation.test_curator import make_user

    call_command("load_demo", stdout=StringIO())
    client.force_login(make_user("curator"))
    settings = {
        "min_items_for_code": 10,
        "expected_seconds_per_item": 23,
        "full_url": "https://app.prolific.com/submissions/return",
        "screen_out_code": "SCR33N",
        "screen_out_url": "https://app.prolific.com/submissions/complete?cc=SCR33N",
    }
    body = {"name": "Safe", "slug": "safe", "collection": "demo", "language": "en", **settings}
    response = client.post("/api/annotation/campaigns/", body, content_type="application/json")
    assert response.status_code == 201, response.content
    campaign = Campaign.objects.get(slug="safe")
    assert {name: getattr(campaign, name) for name in settings} == settings
    detail = client.get(f"/api/annotation/campaigns/{campaign.pk}/").json()
    assert {name: detail[name] for name in settings} == settings


def test_a_slug_reserved_for_a_page_is_refused(curator):
    call_command("load_demo", stdout=StringIO())
    response = post(curator, {**BODY, "slug": "synonyms"})
    assert response.status_code == 400 and "reserved" in response.json()["slug"][0]
