"""Curator pages: creating campaigns with their items, editing, status changes, the dashboard."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from annotation.actions import claim_next_item, enter_campaign, submit_rating
from annotation.curate.dashboard import campaign_dashboard
from annotation.models import Annotator, Assignment, Campaign, Item, Rating
from annotation.protocol import Answers
from annotation.setup_actions import add_items
from core.permissions import CURATORS_GROUP
from datasets import vocabulary
from datasets.models import Collection, Compound, Sentence

pytestmark = pytest.mark.django_db

# Builders shared by the other curator tests (imported from here).


def load_demo() -> Collection:
    call_command("load_demo", stdout=StringIO())
    return Collection.objects.get(slug="demo")


def make_campaign(n: int = 2, items: int = 3, **options) -> Campaign:
    """An open token-level campaign on the first ``items`` English demo sentences."""
    collection = load_demo()
    campaign = Campaign.objects.create(
        name="Demo",
        slug=f"demo-{uuid.uuid4().hex[:6]}",
        collection=collection,
        language="en",
        ratings_per_item=n,
        seed=7,
        status=Campaign.Status.OPEN,
        **options,
    )
    sentences = Sentence.objects.filter(
        compound__collection=collection, compound__language="en", kind=vocabulary.NATURALISTIC
    )
    add_items(campaign, list(sentences.order_by("id")[:items]))
    return campaign


def answers(head: int = 3, modifier: int = 3, compound: int = 3, paraphrases=()) -> Answers:
    return Answers(head_score=head, modifier_score=modifier, compound_score=compound, paraphrases=list(paraphrases))


def rate_next(annotator: Annotator, seconds: float = 10.0, **given) -> Rating:
    """Claim the annotator's next regular item and answer it ``seconds`` later."""
    assignment = claim_next_item(annotator)
    assert assignment is not None
    later = assignment.reserved_at + timedelta(seconds=seconds)
    submission = submit_rating(annotator, str(assignment.token), answers(**given), now=later)
    assert submission.rating is not None, submission.errors
    return submission.rating


def answer_check(annotator: Annotator, item: Item, **given) -> Rating:
    """Answer a training or attention item (handed out directly: claim_next_item gives regular ones)."""
    assignment = Assignment.objects.create(
        item=item, annotator=annotator, expires_at=timezone.now() + timedelta(minutes=30)
    )
    submission = submit_rating(annotator, str(assignment.token), answers(**given))
    assert submission.rating is not None, submission.errors
    return submission.rating


def make_user(role: str):
    """A user of ``role``: annotator (no rights), curator (group), staff or admin (superuser)."""
    users = get_user_model().objects
    if role == "admin":
        return users.create_superuser(f"admin-{uuid.uuid4().hex[:6]}", "admin@example.org", "pw")
    user = users.create_user(f"{role}-{uuid.uuid4().hex[:6]}", password="pw", is_staff=role == "staff")
    if role == "curator":
        user.groups.add(Group.objects.get_or_create(name=CURATORS_GROUP)[0])
    return user


@pytest.fixture
def curator_client(client):
    client.force_login(make_user("curator"))
    return client


def form_data(collection: Collection, **overrides) -> dict:
    data = {
        "name": "Idioms, token level",
        "slug": "idioms-token",
        "collection": collection.pk,
        "language": "en",
        "level": Campaign.Level.TOKEN,
        "ratings_per_item": 3,
        "allocation": Campaign.Allocation.FIXED,
        "min_ratings_per_item": 3,
        "precision": 1.5,
        "precision_of": Campaign.PrecisionOf.COMPOUND,
        "budget_ratings": "",
        "pay_per_rating": "",
        "budget_money": "",
        "seed": 11,
        "max_items_per_annotator": "",
        "reservation_minutes": 20,
        "instructions": "Rate each compound.",
        "consent_text": "I agree.",
        "training_pass_mark": 0.8,
        "gold_tolerance": 1,
        "completion_url": "https://app.prolific.com/submissions/complete?cc=ABC",
        "min_items_for_code": "",
        "max_skip_share": 0.2,
        "expected_seconds_per_item": 25,
        "status": Campaign.Status.DRAFT,
        "item_class": "",
    }
    return data | overrides


# Creating and editing campaigns.


def test_creating_a_token_campaign_adds_the_naturalistic_available_sentences_of_the_class(curator_client):
    collection = load_demo()
    beaver = Compound.objects.get(collection=collection, language="en", text="eager beaver")
    Sentence.objects.filter(compound=beaver, slot=1).update(available=False, text="")
    response = curator_client.post(reverse("curator:create"), form_data(collection, item_class=vocabulary.IDIOMATIC))
    campaign = Campaign.objects.get(slug="idioms-token")
    assert response.status_code == 302
    assert response["Location"] == reverse("curator:dashboard", args=[campaign.slug])
    expected = set(
        Sentence.objects.filter(
            compound__collection=collection,
            compound__language="en",
            compound__compositionality_class=vocabulary.IDIOMATIC,
            kind=vocabulary.NATURALISTIC,
            available=True,
        ).values_list("id", flat=True)
    )
    items = campaign.items.all()
    assert expected and {item.sentence_id for item in items} == expected
    assert all(item.role == Item.Role.REGULAR for item in items)
    assert sorted(item.order_key for item in items) == list(range(len(expected)))
    assert campaign.created_by is not None and campaign.ratings_per_item == 3
    assert not items.filter(sentence__compound=beaver, sentence__slot=1).exists()


def test_creating_a_type_campaign_adds_the_compounds(curator_client):
    collection = load_demo()
    curator_client.post(
        reverse("curator:create"), form_data(collection, slug="types", level=Campaign.Level.TYPE, language="pt")
    )
    campaign = Campaign.objects.get(slug="types")
    compounds = set(Compound.objects.filter(collection=collection, language="pt").values_list("id", flat=True))
    assert {item.compound_id for item in campaign.items.all()} == compounds
    assert not campaign.items.filter(sentence__isnull=False).exists()


def test_the_create_form_refuses_a_language_without_compounds_and_reserved_slugs(curator_client):
    collection = load_demo()
    response = curator_client.post(reverse("curator:create"), form_data(collection, language="de", slug="new"))
    assert response.status_code == 200
    assert set(response.context["form"].errors) == {"language", "slug"}
    assert not Campaign.objects.exists()


def test_adding_items_again_adds_only_the_missing_ones(curator_client):
    collection = load_demo()
    curator_client.post(reverse("curator:create"), form_data(collection, item_class=vocabulary.COMPOSITIONAL))
    campaign = Campaign.objects.get(slug="idioms-token")
    before = campaign.items.count()
    curator_client.post(reverse("curator:items", args=[campaign.slug]), {"item_class": vocabulary.COMPOSITIONAL})
    assert campaign.items.count() == before
    curator_client.post(reverse("curator:items", args=[campaign.slug]), {"item_class": ""})
    expected = Sentence.objects.filter(
        compound__collection=collection, compound__language="en", kind=vocabulary.NATURALISTIC, available=True
    ).count()
    assert campaign.items.count() == expected
    keys = list(campaign.items.values_list("order_key", flat=True))
    assert sorted(keys) == list(range(expected))


def test_editing_keeps_the_item_scope_once_there_are_items(curator_client):
    campaign = make_campaign()
    data = form_data(campaign.collection, slug=campaign.slug, name="Renamed", language="pt", level=Campaign.Level.TYPE)
    response = curator_client.post(reverse("curator:edit", args=[campaign.slug]), data)
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.name, campaign.language, campaign.level) == ("Renamed", "en", Campaign.Level.TOKEN)
    assert campaign.ratings_per_item == 3
    page = curator_client.get(reverse("curator:edit", args=[campaign.slug]))
    assert page.context["form"].fields["language"].disabled


@pytest.mark.parametrize(("action", "status"), [("pause", "paused"), ("close", "closed"), ("open", "open")])
def test_status_changes_by_post(curator_client, action, status):
    campaign = make_campaign()
    campaign.status = Campaign.Status.DRAFT
    campaign.save()
    response = curator_client.post(
        reverse("curator:status", args=[campaign.slug]), {"action": action, "confirm": "yes"}
    )
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.status == status


@pytest.mark.parametrize("action", ["pause", "close"])
def test_pause_and_close_ask_for_confirmation_first(curator_client, action):
    campaign = make_campaign()
    rate_next(enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="ana"))
    Annotator.objects.filter(campaign=campaign).update(consented_at=timezone.now())
    url = reverse("curator:status", args=[campaign.slug])

    response = curator_client.post(url, {"action": action})
    assert response.status_code == 200
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.OPEN
    html = response.content.decode()
    assert f"{action.capitalize()} Demo?" in html and "1 worker is taking part now" in html
    assert 'name="confirm" value="yes"' in html

    assert curator_client.post(url, {"action": action, "confirm": "yes"}).status_code == 302
    campaign.refresh_from_db()
    assert campaign.status == {"pause": Campaign.Status.PAUSED, "close": Campaign.Status.CLOSED}[action]


def test_status_needs_post_and_a_known_action(curator_client):
    campaign = make_campaign()
    assert curator_client.get(reverse("curator:status", args=[campaign.slug])).status_code == 405
    curator_client.post(reverse("curator:status", args=[campaign.slug]), {"action": "explode"})
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.OPEN


def test_campaign_list_shows_progress(curator_client):
    campaign = make_campaign(n=2, items=2)
    rate_next(enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="ana"))
    response = curator_client.get(reverse("curator:campaigns"))
    assert response.status_code == 200
    [(listed, percent)] = response.context["rows"]
    assert listed == campaign and percent == 25.0
    assert (listed.item_count, listed.rating_count) == (2, 1)


# The dashboard.


@pytest.fixture
def rated_campaign():
    """Three regular items (N=2), two training and two attention items, four annotators."""
    campaign = make_campaign(n=2, items=3, gold_tolerance=1, training_pass_mark=0.8)
    extra = list(Sentence.objects.filter(compound__language="pt", compound__collection=campaign.collection)[:4])
    training = add_items(campaign, extra[:2], role=Item.Role.TRAINING)
    attention = add_items(campaign, extra[2:], role=Item.Role.ATTENTION)
    Item.objects.filter(pk__in=[i.pk for i in training]).update(gold_head=4, gold_modifier=4, gold_compound=4)
    Item.objects.filter(pk__in=[i.pk for i in attention]).update(gold_compound=0)
    ana, bo, cy = (
        enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id=w) for w in ("ana", "bo", "cy")
    )
    di = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="di")
    Annotator.objects.filter(pk=di.pk).update(training_passed=False)
    # ana: all right; bo: half the training wrong; cy: every attention check wrong.
    answer_check(ana, training[0], head=3, modifier=5, compound=4)
    answer_check(ana, training[1], head=4, modifier=4, compound=4)
    answer_check(bo, training[0], head=0, modifier=0, compound=0)
    answer_check(bo, training[1], head=4, modifier=4, compound=5)
    answer_check(ana, attention[0], compound=0)
    answer_check(ana, attention[1], compound=1, head=5)
    answer_check(bo, attention[0], compound=5)
    answer_check(bo, attention[1], compound=0)
    answer_check(cy, attention[0], compound=5)
    answer_check(cy, attention[1], compound=3)
    rate_next(ana, seconds=10, paraphrases=["<script>alert('x')</script>", "keen person"])
    rate_next(ana, seconds=30)
    rate_next(bo, seconds=40)
    rate_next(cy, seconds=50)
    rate_next(cy, seconds=60)
    return campaign


def test_dashboard_figures(rated_campaign):
    dashboard = campaign_dashboard(rated_campaign)
    assert (dashboard.overall.ratings, dashboard.overall.target) == (5, 6)
    regular = [row for row in dashboard.items if row["item"].role == Item.Role.REGULAR]
    assert sorted(row["ratings"] for row in regular) == [1, 2, 2]
    assert sorted(row["progress"].fraction for row in regular) == [0.5, 1.0, 1.0]
    assert [row["ratings"] for row in dashboard.items if row["item"].role == Item.Role.TRAINING] == [2, 2]
    assert dashboard.median_seconds == pytest.approx(40, abs=0.5)
    rows = {row.external_id: row for row in dashboard.annotators}
    assert {name: row.items_done for name, row in rows.items()} == {"ana": 2, "bo": 1, "cy": 2, "di": 0}
    assert rows["ana"].median_seconds == pytest.approx(20, abs=0.5)
    assert rows["bo"].median_seconds == pytest.approx(40, abs=0.5)
    assert rows["di"].median_seconds is None
    assert (rows["ana"].gold_accuracy, rows["bo"].gold_accuracy, rows["cy"].gold_accuracy) == (1.0, 0.5, None)
    assert (rows["ana"].attention_accuracy, rows["bo"].attention_accuracy, rows["cy"].attention_accuracy) == (
        1.0,
        0.5,
        0.0,
    )
    assert {name: row.flags for name, row in rows.items()} == {
        "ana": [],
        "bo": ["training failed"],
        "cy": ["attention checks failed"],
        "di": ["training failed"],
    }
    assert sorted(row.external_id for row in dashboard.flagged) == ["bo", "cy", "di"]


def test_ratings_per_hour_covers_the_last_24_hours(rated_campaign):
    now = datetime(2026, 3, 2, 12, 30, tzinfo=UTC)
    ratings = list(Rating.objects.filter(item__campaign=rated_campaign).order_by("id"))
    assert len(ratings) == 15
    Rating.objects.filter(pk__in=[r.pk for r in ratings[:10]]).update(created_at=now - timedelta(minutes=20))
    Rating.objects.filter(pk__in=[r.pk for r in ratings[10:13]]).update(created_at=now - timedelta(hours=3))
    Rating.objects.filter(pk=ratings[13].pk).update(created_at=now - timedelta(hours=23, minutes=20))
    Rating.objects.filter(pk=ratings[14].pk).update(created_at=now - timedelta(hours=24))  # 12:30 yesterday: out
    buckets = campaign_dashboard(rated_campaign, now=now).ratings_per_hour
    assert len(buckets) == 24
    assert buckets[0]["hour"] == datetime(2026, 3, 1, 13, tzinfo=UTC)
    assert buckets[-1]["hour"] == datetime(2026, 3, 2, 12, tzinfo=UTC)
    counts = [bucket["ratings"] for bucket in buckets]
    # The first ten ratings are the training and attention checks: not counted, the pace is about regular items.
    assert {r.item.role for r in ratings[:10]} == {Item.Role.TRAINING, Item.Role.ATTENTION}
    assert {r.item.role for r in ratings[10:]} == {Item.Role.REGULAR}
    assert counts[-1] == 0 and counts[-4] == 3 and counts[0] == 1
    assert sum(counts) == 4


def test_dashboard_page_renders_and_escapes_paraphrases(curator_client, rated_campaign):
    response = curator_client.get(reverse("curator:dashboard", args=[rated_campaign.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert "5 / 6 ratings" in html
    for table in ("ratings", "paraphrases"):
        for fmt in ("csv", "json"):
            assert reverse("curator:export", args=[rated_campaign.slug, table, fmt]) in html


def test_dashboard_of_an_empty_campaign(curator_client):
    campaign = make_campaign(items=0)
    dashboard = campaign_dashboard(campaign)
    assert (dashboard.overall.ratings, dashboard.overall.target, dashboard.overall.fraction) == (0, 0, 0.0)
    assert dashboard.median_seconds is None and dashboard.annotators == []
    assert sum(bucket["ratings"] for bucket in dashboard.ratings_per_hour) == 0
    assert curator_client.get(reverse("curator:dashboard", args=[campaign.slug])).status_code == 200


# The admin.

ADMIN_MODELS = ["campaign", "item", "annotator", "assignment", "rating", "suggestedparaphrase"]


@pytest.mark.parametrize("model", ADMIN_MODELS)
def test_admin_changelist_and_change_page_load(client, rated_campaign, model):
    client.force_login(make_user("admin"))
    response = client.get(reverse(f"admin:annotation_{model}_changelist"))
    assert response.status_code == 200
    obj = response.context["cl"].result_list[0]
    assert client.get(reverse(f"admin:annotation_{model}_change", args=[obj.pk])).status_code == 200
