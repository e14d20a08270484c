"""The adaptive allocation in a campaign: the stopping rule on real claims and ratings, the order items are handed
out in, the budget, and exactly-once under a hundred workers at once."""

import threading
from decimal import Decimal

import pytest
from django.db import connection
from django.urls import reverse
from rest_framework.test import APIClient

from annotation import allocation
from annotation.actions import claim_next_item, submit_rating
from annotation.crowd.journey import campaign_has_open_items, intake_problem
from annotation.models import Campaign, Item, Rating
from annotation.protocol import Answers
from annotation.setup_actions import save_campaign
from tests.annotation.test_assignment import crowd, make_campaign
from tests.annotation.test_curator import form_data, make_user

ADAPTIVE = {"allocation": Campaign.Allocation.ADAPTIVE}


def answers(compound: int, head: int = 3, modifier: int = 3) -> Answers:
    return Answers(head_score=head, modifier_score=modifier, compound_score=compound, paraphrases=[])


def rate(campaign: Campaign, worker: str, score) -> Item | None:
    """One worker's next item, rated ``score(item)``; None when nothing was handed out."""
    annotator = crowd(campaign, worker)
    assignment = claim_next_item(annotator)
    if assignment is None:
        return None
    assert submit_rating(annotator, str(assignment.token), score(assignment.item)).rating is not None
    return assignment.item


def run(campaign: Campaign, workers: int, score) -> None:
    for i in range(workers):
        while rate(campaign, f"w{i}", score) is not None:
            pass


@pytest.mark.django_db
def test_an_easy_item_stops_at_the_minimum_and_a_contested_one_goes_to_the_maximum():
    campaign = make_campaign(n=8, items=2, min_ratings_per_item=3, precision=2.4, **ADAPTIVE)
    easy, contested = campaign.items.order_by("order_key")
    flip = iter(range(1000))

    def score(item: Item) -> Answers:
        return answers(5) if item.pk == easy.pk else answers(5 * (next(flip) % 2))

    run(campaign, 10, score)
    easy.refresh_from_db()
    contested.refresh_from_db()
    assert (easy.rating_count, easy.settled) == (3, True)  # three 5s: width 2.25 < 2.4
    assert (contested.rating_count, contested.settled) == (8, True)  # 0, 5, 0, 5...: never narrow, n_max
    assert easy.interval_width == pytest.approx(allocation.width([0, 0, 0, 0, 0, 3], campaign.stopping_policy()))
    assert contested.interval_low < 1.5 < 3.5 < contested.interval_high
    assert not campaign_has_open_items(campaign)


@pytest.mark.django_db
def test_head_and_modifier_are_watched_when_the_curator_says_so():
    unanimous_compound = dict(min_ratings_per_item=3, precision=2.4, **ADAPTIVE)
    flip = iter(range(1000))

    def score(_item: Item) -> Answers:  # the compound agreed on, the head contested
        return answers(5, head=5 * (next(flip) % 2))

    compound_only = make_campaign(n=6, items=1, **unanimous_compound)
    run(compound_only, 8, score)
    every_question = make_campaign(n=6, items=1, precision_of=Campaign.PrecisionOf.ALL, **unanimous_compound)
    run(every_question, 8, score)
    assert compound_only.items.get().rating_count == 3
    assert every_question.items.get().rating_count == 6


@pytest.mark.django_db
def test_items_below_the_minimum_come_first_then_the_widest_interval():
    campaign = make_campaign(n=10, items=3, min_ratings_per_item=2, precision=0.5, **ADAPTIVE)
    first, second, third = campaign.items.order_by("order_key")
    given = []
    scores = {first.pk: iter([5, 5, 5, 5]), second.pk: iter([0, 5, 0, 5]), third.pk: iter([3, 2, 3, 2])}

    def score(item: Item) -> Answers:
        given.append(item.pk)
        return answers(next(scores[item.pk]))

    for i in range(6):
        rate(campaign, f"w{i}", score)
    # Two each, in the seeded order (fewest taken first); then the contested item (widest interval) first.
    assert given == [first.pk, second.pk, third.pk] * 2
    widths = dict(campaign.items.values_list("pk", "interval_width"))
    assert widths[second.pk] > max(widths[first.pk], widths[third.pk])
    rate(campaign, "w6", score)
    assert given[6] == second.pk


@pytest.mark.django_db
def test_a_budget_in_ratings_or_money_stops_the_study():
    campaign = make_campaign(n=3, items=4, budget_ratings=5)
    run(campaign, 6, lambda item: answers(2))
    assert Rating.objects.filter(item__campaign=campaign).count() == 5
    assert not campaign_has_open_items(campaign)
    assert "budget (5 ratings) is spent" in intake_problem(campaign)

    by_money = make_campaign(n=3, items=4, budget_money=Decimal("2.00"), pay_per_rating=Decimal("0.50"), **ADAPTIVE)
    assert by_money.rating_budget == 4
    run(by_money, 6, lambda item: answers(2))
    assert Rating.objects.filter(item__campaign=by_money).count() == 4


@pytest.mark.django_db
def test_a_finer_precision_reopens_settled_items():
    campaign = make_campaign(n=8, items=1, min_ratings_per_item=3, precision=2.4, **ADAPTIVE)
    run(campaign, 4, lambda item: answers(5))
    assert campaign.items.get().settled
    campaign.precision = 1.0
    save_campaign(campaign)
    item = campaign.items.get()
    assert (item.settled, item.rating_count) == (False, 3)
    assert campaign_has_open_items(campaign)


# The database allows 100 connections: a hundred annotators are served as a web server serves them, by at most
# SERVERS requests at a time, each on a connection of its own that is closed when it ends.
SERVERS = 60


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_hundred_concurrent_annotators_under_the_adaptive_policy():
    campaign = make_campaign(n=6, items=20, min_ratings_per_item=3, precision=2.4, **ADAPTIVE)
    easy = {pk for pk, key in campaign.items.values_list("pk", "order_key") if key % 2 == 0}
    errors: list[BaseException] = []
    barrier = threading.Barrier(100)
    servers = threading.BoundedSemaphore(SERVERS)

    def request(step, *args):
        with servers:
            try:
                return step(*args)
            finally:
                connection.close()

    def annotate(worker: int) -> None:
        try:
            annotator = request(crowd, campaign, f"worker-{worker}")
            barrier.wait(timeout=60)
            while assignment := request(claim_next_item, annotator):
                # Everyone gives an easy item 5; on the others, the workers split 0 / 5.
                score = 5 if assignment.item_id in easy else 5 * (worker % 2)
                token = str(assignment.token)
                request(submit_rating, annotator, token, answers(score))
                request(submit_rating, annotator, token, answers(score))  # a double click
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=annotate, args=(i,)) for i in range(100)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)
    assert not errors, errors[:3]
    policy = campaign.stopping_policy()
    ratings = Rating.objects.filter(item__campaign=campaign)
    assert ratings.values("item", "annotator").distinct().count() == ratings.count()  # nobody rated an item twice
    for item in campaign.items.all():
        values = list(item.ratings.order_by("id").values_list("compound_score", flat=True))
        assert item.rating_count == len(values) == item.taken  # every rating counted once, no reservation leaked
        assert policy.n_min <= len(values) <= policy.n_max
        assert item.settled and allocation.is_done(len(values), item.interval_width, policy)
        assert item.interval_width == pytest.approx(allocation.width(allocation.counts(values), policy))
    counts = dict(campaign.items.values_list("pk", "rating_count"))
    # Unanimous items stop near the minimum (a few reservations handed out before they settled may land);
    # an item that had both 0s and 5s never stopped there.
    assert sum(counts[pk] for pk in easy) < sum(counts[pk] for pk in counts if pk not in easy)
    mixed = set(ratings.filter(compound_score=0).values_list("item", flat=True)) & set(
        ratings.filter(compound_score=5).values_list("item", flat=True)
    )
    assert mixed and all(counts[pk] > policy.n_min for pk in mixed)
    assert any(count == policy.n_max for count in counts.values())


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_workers_never_spend_past_the_budget():
    campaign = make_campaign(n=5, items=10, budget_ratings=17)
    barrier = threading.Barrier(30)
    errors: list[BaseException] = []

    def annotate(worker: int) -> None:
        try:
            annotator = crowd(campaign, f"worker-{worker}")
            barrier.wait(timeout=60)
            while assignment := claim_next_item(annotator):
                submit_rating(annotator, str(assignment.token), answers(2))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=annotate, args=(i,)) for i in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors[:3]
    assert Rating.objects.filter(item__campaign=campaign).count() == 17
    assert sum(campaign.items.values_list("taken", flat=True)) == 17


@pytest.mark.django_db
def test_the_form_and_the_api_name_the_field_of_an_inconsistent_policy(client):
    curator = make_user("curator")
    client.force_login(curator)
    curator_client = client
    collection = make_campaign().collection
    data = form_data(collection, slug="adaptive", allocation="adaptive", min_ratings_per_item=6, ratings_per_item=4)
    response = curator_client.post(reverse("curator:create"), data)
    assert set(response.context["form"].errors) == {"min_ratings_per_item"}
    response = curator_client.post(reverse("curator:create"), form_data(collection, slug="m", budget_money="10"))
    assert set(response.context["form"].errors) == {"pay_per_rating"}

    api = APIClient()
    api.force_authenticate(curator)
    body = {"name": "A", "slug": "a", "collection": "demo", "language": "en", "allocation": "adaptive"}
    refused = api.post("/api/annotation/campaigns/", {**body, "ratings_per_item": 2}, format="json")
    assert refused.status_code == 400 and "above the ratings per item" in refused.json()["min_ratings_per_item"][0]
    created = api.post("/api/annotation/campaigns/", {**body, "budget_money": "3.00", "pay_per_rating": "0.40"})
    assert created.status_code == 201, created.content
    assert Campaign.objects.get(slug="a").rating_budget == 7


@pytest.mark.django_db
def test_a_type_level_campaign_follows_the_policy_too():
    from annotation.setup_actions import create_campaign

    collection = make_campaign().collection  # the demo collection, loaded
    campaign, items = create_campaign(
        Campaign(
            name="Types", slug="types-adaptive", collection=collection, language="en", level=Campaign.Level.TYPE,
            ratings_per_item=6, min_ratings_per_item=2, precision=3.0, status=Campaign.Status.OPEN, **ADAPTIVE,
        )
    )  # fmt: skip
    run(campaign, 7, lambda item: answers(5))
    counts = set(campaign.items.values_list("rating_count", "settled"))
    assert counts == {(2, True)}  # two 5s: width 2.79 < 3.0, at the minimum
    assert all(item.sentence_id is None for item in items)


@pytest.mark.django_db
def test_practice_and_attention_items_are_unaffected():
    from annotation.crowd.journey import next_step
    from annotation.setup_actions import add_check_item

    campaign = make_campaign(n=4, items=3, min_ratings_per_item=2, precision=2.4, **ADAPTIVE)
    practice = add_check_item(
        campaign, campaign.items.first().sentence, Item.Role.TRAINING, {"gold_compound": 5, "gold_head": 5,
        "gold_modifier": 5}, "It is literal.",
    )  # fmt: skip
    annotator = crowd(campaign, "ana")
    annotator.consented_at = annotator.created_at
    annotator.save(update_fields=["consented_at"])
    step = next_step(annotator)
    assert step.item_id == practice.pk  # practice first, whatever the allocation
    submit_rating(annotator, str(step.token), answers(5, head=5, modifier=5))
    practice.refresh_from_db()
    assert (practice.taken, practice.rating_count, practice.interval_width, practice.settled) == (0, 0, None, False)
    step = next_step(annotator)
    assert step.item.role == Item.Role.REGULAR


@pytest.mark.django_db
def test_the_dashboard_warns_when_the_budget_cannot_cover_the_minimum(client):
    client.force_login(make_user("curator"))
    campaign = make_campaign(n=5, items=4, min_ratings_per_item=3, budget_ratings=11, **ADAPTIVE)
    html = client.get(reverse("curator:dashboard", args=[campaign.slug])).content.decode()
    assert 'id="budget-short"' in html and "does not cover 12 ratings" in html
    campaign.budget_ratings = 12
    save_campaign(campaign)
    assert 'id="budget-short"' not in client.get(reverse("curator:dashboard", args=[campaign.slug])).content.decode()
