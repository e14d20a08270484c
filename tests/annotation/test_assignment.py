"""The assignment engine: exactly N ratings per item, nobody twice, timeouts, idempotent submits."""

import threading
import uuid
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from annotation.actions import claim_next_item, enter_campaign, submit_rating
from annotation.models import Annotator, Assignment, Campaign, Item, Rating
from annotation.protocol import Answers
from annotation.setup_actions import add_items
from datasets.models import Collection, Sentence

ANSWERS = Answers(head_score=3, modifier_score=1, compound_score=2, paraphrases=["keen person"])


def make_campaign(n: int = 2, items: int = 4, **options) -> Campaign:
    call_command("load_demo", stdout=StringIO())
    campaign = Campaign.objects.create(
        name="Demo",
        slug=f"demo-{uuid.uuid4().hex[:6]}",
        collection=Collection.objects.get(slug="demo"),
        language="en",
        ratings_per_item=n,
        seed=7,
        status=Campaign.Status.OPEN,
        **options,
    )
    sentences = list(Sentence.objects.filter(compound__language="en", kind="naturalistic").order_by("id")[:items])
    add_items(campaign, sentences)
    return campaign


def crowd(campaign: Campaign, worker: str) -> Annotator:
    return enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id=worker)


@pytest.mark.django_db
def test_items_get_exactly_n_ratings_and_nobody_sees_an_item_twice():
    campaign = make_campaign(n=2, items=3)
    seen: dict[str, list[int]] = {}
    for worker in ("ana", "bo", "cy", "di"):
        annotator = crowd(campaign, worker)
        while assignment := claim_next_item(annotator):
            assert submit_rating(annotator, str(assignment.token), ANSWERS).rating is not None
            seen.setdefault(worker, []).append(assignment.item_id)
    assert all(len(items) == len(set(items)) for items in seen.values())
    assert [item.ratings.count() for item in campaign.items.all()] == [2, 2, 2]
    assert sum(len(items) for items in seen.values()) == 6
    assert "di" not in seen  # everything was full before the fourth worker came


@pytest.mark.django_db
def test_least_rated_items_come_first_in_a_seeded_order():
    campaign = make_campaign(n=3, items=4)
    first = [claim_next_item(crowd(campaign, f"w{i}")).item_id for i in range(4)]
    assert len(set(first)) == 4  # four workers, four different items before any item gets a second
    order = list(campaign.items.order_by("order_key").values_list("id", flat=True))
    assert first == order
    again = make_campaign(n=3, items=4)
    assert list(again.items.order_by("id").values_list("order_key", flat=True)) == list(
        campaign.items.order_by("id").values_list("order_key", flat=True)
    )


@pytest.mark.django_db
def test_a_returning_annotator_resumes_the_same_item():
    campaign = make_campaign()
    assignment = claim_next_item(crowd(campaign, "ana"))
    assert claim_next_item(crowd(campaign, "ana")).pk == assignment.pk
    assert Annotator.objects.filter(campaign=campaign).count() == 1


@pytest.mark.django_db
def test_an_abandoned_reservation_is_released_after_the_timeout():
    campaign = make_campaign(n=1, items=1, reservation_minutes=10)
    left = claim_next_item(crowd(campaign, "leaver"))
    assert claim_next_item(crowd(campaign, "waiting")) is None
    later = timezone.now() + timedelta(minutes=11)
    taken_over = claim_next_item(crowd(campaign, "waiting"), now=later)
    assert taken_over is not None and taken_over.item_id == left.item_id
    left.refresh_from_db()
    assert left.status == Assignment.Status.EXPIRED
    # The leaver comes back too late: the item has its one rating's worth of reservation elsewhere.
    outcome = submit_rating(left.annotator, str(left.token), ANSWERS, now=later)
    assert outcome.rating is None and "given to someone else" in outcome.errors["token"]
    assert submit_rating(taken_over.annotator, str(taken_over.token), ANSWERS, now=later).rating
    assert Item.objects.get(pk=left.item_id).ratings.count() == 1


@pytest.mark.django_db
def test_a_late_submission_is_kept_when_the_item_still_needs_it():
    campaign = make_campaign(n=1, items=1, reservation_minutes=10)
    left = claim_next_item(crowd(campaign, "slow"))
    later = timezone.now() + timedelta(minutes=30)
    from annotation.actions import release_expired

    assert release_expired(campaign, later) == 1
    assert submit_rating(left.annotator, str(left.token), ANSWERS, now=later).rating is not None
    assert Item.objects.get(pk=left.item_id).taken == 1


@pytest.mark.django_db
def test_a_repeated_submission_stores_one_rating():
    campaign = make_campaign()
    annotator = crowd(campaign, "ana")
    assignment = claim_next_item(annotator)
    first = submit_rating(annotator, str(assignment.token), ANSWERS)
    second = submit_rating(annotator, str(assignment.token), ANSWERS)
    assert second.repeated and second.rating.pk == first.rating.pk
    assert Rating.objects.count() == 1
    assert [p.text for p in first.rating.paraphrases.all()] == ["keen person"]


@pytest.mark.django_db
def test_nobody_can_submit_someone_elses_token():
    campaign = make_campaign()
    assignment = claim_next_item(crowd(campaign, "ana"))
    outcome = submit_rating(crowd(campaign, "bo"), str(assignment.token), ANSWERS)
    assert outcome.rating is None and outcome.errors == {"token": "This item is not assigned to you."}
    assert submit_rating(crowd(campaign, "bo"), "not-a-uuid", ANSWERS).errors


@pytest.mark.django_db
def test_the_per_annotator_maximum_is_respected():
    campaign = make_campaign(n=3, items=4, max_items_per_annotator=2)
    annotator = crowd(campaign, "ana")
    done = 0
    while assignment := claim_next_item(annotator):
        submit_rating(annotator, str(assignment.token), ANSWERS)
        done += 1
    assert done == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fifty_concurrent_annotators_end_with_exactly_n_ratings_per_item():
    campaign = make_campaign(n=3, items=20)
    errors: list[BaseException] = []
    barrier = threading.Barrier(50)

    def annotate(worker: int) -> None:
        try:
            annotator = crowd(campaign, f"worker-{worker}")
            barrier.wait(timeout=30)
            while assignment := claim_next_item(annotator):
                token = str(assignment.token)
                submit_rating(annotator, token, ANSWERS)
                submit_rating(annotator, token, ANSWERS)  # a double click
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=annotate, args=(i,)) for i in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors[:3]
    counts = [item.ratings.count() for item in campaign.items.all()]
    assert counts == [3] * 20
    assert Rating.objects.filter(item__campaign=campaign).count() == 60
    assert Rating.objects.values("item", "annotator").distinct().count() == 60
    assert set(campaign.items.values_list("taken", flat=True)) == {3}
