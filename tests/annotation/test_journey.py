"""What a crowd worker can and cannot get out of a campaign, through the web pages (issue 14).

A page only stores what was chosen on it; a completion code needs the campaign's minimum of
ratings; a full campaign says so before consent; reservations expire and nobody holds two;
the practice screens out explicitly; the time estimate is measured; a skip returns the item.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from annotation.actions import claim_next_item, enter_campaign, submit_rating
from annotation.models import Annotator, Assignment, Campaign, Item, Rating, Skip
from annotation.platforms import MTURK_FRAMERS
from annotation.protocol import Answers
from tests.annotation.test_views import GOOD, PROLIFIC, current_token, enter, make_campaign, url

pytestmark = pytest.mark.django_db
OTHER = {"head_score": "5", "modifier_score": "5", "compound_score": "5"}
WRONG = {"head_score": "5", "modifier_score": "0", "compound_score": "5"}


def worker(campaign: Campaign, pid: str) -> Client:
    """A crowd worker's browser that agreed on the consent form."""
    client = Client()
    enter(client, campaign, {"PROLIFIC_PID": pid})
    return client


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_a_stale_page_cannot_answer_the_next_item(client):
    campaign = make_campaign(regular=3)
    enter(client, campaign)
    first = current_token(client, campaign)
    client.post(url("rate", campaign), {"token": first, **GOOD})
    second = current_token(client, campaign)
    # The page of the first item again (Back, a second tab), answered differently.
    response = client.post(url("rate", campaign), {"token": first, **OTHER}, follow=True)
    assert response.redirect_chain[0] == (url("rate", campaign), 302)
    assert "already answered that item" in " ".join(messages_of(response))
    assert str(response.context["assignment"].token) == second  # the worker lands on the current item
    assert Rating.objects.count() == 1
    assert Rating.objects.get().head_score == int(GOOD["head_score"])
    assert not Rating.objects.filter(assignment__token=second).exists()


def test_a_timed_out_item_cannot_be_answered_once_another_was_given(client):
    campaign = make_campaign(regular=3, reservation_minutes=5)
    enter(client, campaign)
    first = current_token(client, campaign)
    Assignment.objects.filter(token=first).update(expires_at=timezone.now() - timedelta(minutes=1))
    second = current_token(client, campaign)
    assert second != first
    response = client.post(url("rate", campaign), {"token": first, **GOOD}, follow=True)
    assert "timed out" in " ".join(messages_of(response))
    assert not Rating.objects.exists()


def test_the_journey_pages_are_never_kept_by_the_browser(client):
    campaign = make_campaign(regular=2, training=1)
    link = client.get(url("start", campaign), PROLIFIC)
    assert "no-store" in link["Cache-Control"]
    enter(client, campaign)
    for name in ("instructions", "rate"):
        response = client.get(url(name, campaign))
        assert response.status_code == 200 and "no-store" in response["Cache-Control"], name
    html = client.get(url("rate", campaign)).content.decode()
    assert 'id="rate-form" novalidate autocomplete="off"' in html


def test_annotation_pages_have_no_site_menu_or_dataset_links(client):
    campaign = make_campaign(regular=2, training=1)
    pages = [client.get(url("start", campaign), PROLIFIC)]
    enter(client, campaign)
    pages += [client.get(url("instructions", campaign)), client.get(url("rate", campaign))]
    for page in pages:
        html = page.content.decode()
        assert page.status_code == 200
        assert "site-nav" not in html and 'href="/"' not in html
        for path in ('href="/compounds', 'href="/api/', 'href="/releases', 'href="/reports', 'href="/probing'):
            assert path not in html


def test_squatters_make_the_next_worker_wait_and_their_reservations_expire():
    campaign = make_campaign(regular=3, reservation_minutes=10)
    Campaign.objects.filter(pk=campaign.pk).update(ratings_per_item=1)
    for pid in ("throwaway-1", "throwaway-2", "throwaway-3"):
        squatter = worker(campaign, pid)
        assert squatter.get(url("rate", campaign)).status_code == 200  # opens an item, never answers
    real = worker(campaign, "real-person")
    page = real.get(url("rate", campaign))
    html = page.content.decode()
    assert page.status_code == 200 and "Please wait a moment" in html
    assert '<meta http-equiv="refresh" content="15">' in html
    assert "C0DE42" not in html
    annotator = Annotator.objects.get(external_id="real-person")
    assert annotator.status == Annotator.Status.ACTIVE and annotator.completed_at is None
    assert real.get(url("done", campaign)).url == url("rate", campaign)  # no code by typing the address
    # The squatters' reservations time out; the next retry hands an item over.
    Assignment.objects.filter(annotator__external_id__startswith="throwaway").update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    page = real.get(url("rate", campaign))
    assert page.status_code == 200 and "assignment" in page.context
    assert set(
        Assignment.objects.filter(annotator__external_id__startswith="throwaway").values_list("status", flat=True)
    ) == {Assignment.Status.EXPIRED}


def test_one_live_reservation_per_worker():
    campaign = make_campaign(regular=3)
    annotator = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="w")
    held = claim_next_item(annotator)
    assert claim_next_item(annotator).pk == held.pk
    other = campaign.items.exclude(pk=held.item_id).filter(role=Item.Role.REGULAR).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(item=other, annotator=annotator, expires_at=held.expires_at)


def test_the_code_needs_the_campaigns_minimum_of_ratings():
    campaign = make_campaign(regular=3, min_items_for_code=2)
    Campaign.objects.filter(pk=campaign.pk).update(ratings_per_item=1)
    early = worker(campaign, "early")
    for _ in range(2):
        early.post(url("rate", campaign), {"token": current_token(early, campaign), **GOOD})
    late = worker(campaign, "late")
    late.post(url("rate", campaign), {"token": current_token(late, campaign), **GOOD})
    # Every item has its rating: "late" rated one of the two needed, "early" two.
    response = late.get(url("rate", campaign), follow=True)
    html = response.content.decode()
    assert response.redirect_chain[-1][0] == url("full", campaign)
    assert "This study is full" in html and "C0DE42" not in html
    assert Annotator.objects.get(external_id="late").status == Annotator.Status.ACTIVE
    done = early.get(url("rate", campaign), follow=True)
    assert done.redirect_chain[-1][0] == url("done", campaign) and "C0DE42" in done.content.decode()
    assert Annotator.objects.get(external_id="early").status == Annotator.Status.COMPLETED


def test_a_full_campaign_says_so_before_consent_and_gives_no_code(client):
    campaign = make_campaign(regular=1, full_url="https://app.prolific.com/submissions/return")
    Campaign.objects.filter(pk=campaign.pk).update(ratings_per_item=1)
    someone = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="first")
    assignment = claim_next_item(someone)
    submit_rating(someone, str(assignment.token), Answers(1, 2, 3))
    page = client.get(url("start", campaign), PROLIFIC)
    html = page.content.decode()
    assert page.status_code == 200 and "This study is full" in html
    assert "I agree" not in html and "C0DE42" not in html and "complete?cc=" not in html
    assert "Return the study on Prolific" in html and 'href="https://app.prolific.com/submissions/return"' in html
    assert Annotator.objects.count() == 1


def test_failing_the_practice_screens_out_with_the_screen_out_code(client):
    campaign = make_campaign(regular=2, training=2, training_pass_mark=1.0, screen_out_code="SCR33N")
    enter(client, campaign)
    instructions = client.get(url("instructions", campaign)).content.decode()
    assert "Practice items are graded." in instructions and "You need at least 2 of 2 right" in instructions
    for answers in (GOOD, WRONG):
        client.post(url("rate", campaign), {"token": current_token(client, campaign), **answers})
    page = client.get(url("rate", campaign), follow=True)
    html = page.content.decode()
    assert page.redirect_chain[-1][0] == url("screened_out", campaign)
    assert 'id="screen-out-code">SCR33N<' in html
    assert 'href="https://app.prolific.com/submissions/complete?cc=SCR33N"' in html
    assert "C0DE42" not in html
    annotator = Annotator.objects.get()
    assert (annotator.status, annotator.training_passed, annotator.completed_at) == ("screened_out", False, None)
    assert client.get(url("done", campaign)).url == url("rate", campaign)


def test_an_mturk_worker_screened_out_submits_the_hit_with_a_flag(client):
    campaign = make_campaign(regular=1, training=1, training_pass_mark=1.0, screen_out_code="SCR33N")
    link = {
        "workerId": "A1",
        "assignmentId": "ASSIGN9",
        "hitId": "H1",
        "turkSubmitTo": "https://workersandbox.mturk.com",
    }
    enter(client, campaign, link)
    client.post(url("rate", campaign), {"token": current_token(client, campaign), **WRONG})
    page = client.get(url("rate", campaign), follow=True)
    html = page.content.decode()
    assert 'action="https://workersandbox.mturk.com/mturk/externalSubmit"' in html
    assert 'name="assignmentId" value="ASSIGN9"' in html and 'name="screened_out" value="1"' in html
    assert "csrfmiddlewaretoken" not in html  # the form leaves the site
    assert "https://workersandbox.mturk.com" in page["Content-Security-Policy"].split("form-action")[1]


def test_a_forged_turk_submit_address_is_ignored(client):
    campaign = make_campaign(regular=1, training=1, training_pass_mark=1.0)
    link = {"workerId": "A1", "assignmentId": "ASSIGN9", "turkSubmitTo": "https://evil.example"}
    enter(client, campaign, link)
    client.post(url("rate", campaign), {"token": current_token(client, campaign), **WRONG})
    html = client.get(url("rate", campaign), follow=True).content.decode()
    assert "Thank you for your time" in html
    assert "evil.example" not in html and "externalSubmit" not in html


def rate_in(campaign: Campaign, pid: str, seconds: float, simulated: bool = False) -> None:
    annotator = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id=pid)
    Annotator.objects.filter(pk=annotator.pk).update(simulated=simulated)
    assignment = claim_next_item(annotator)
    later = assignment.reserved_at + timedelta(seconds=seconds)
    assert submit_rating(annotator, str(assignment.token), Answers(1, 1, 1), now=later).rating


def test_the_consent_page_estimates_time_from_the_campaigns_measured_median(client):
    campaign = make_campaign(regular=12, expected_seconds_per_item=10)
    Campaign.objects.filter(pk=campaign.pk).update(ratings_per_item=20)
    before = client.get(url("start", campaign), PROLIFIC).content.decode()
    assert "takes <strong>about 2 minutes</strong>: 12 items at about 10 seconds each" in before
    assert "nobody has taken part yet" in before
    for i, seconds in enumerate([30, 40, 40, 40, 50, 40, 35, 45, 40, 40]):
        rate_in(campaign, f"p{i}", seconds)
    rate_in(campaign, "robot", 0.5, simulated=True)  # simulated annotators are not people
    from django.core.cache import cache

    cache.clear()  # the measured median is cached for a minute
    after = client.get(url("start", campaign), PROLIFIC).content.decode()
    assert "takes <strong>about 8 minutes</strong>: 12 items at about 40 seconds each" in after
    assert "the median time per item of the people who took part so far" in after


def test_each_item_shows_the_time_left_and_the_instructions(client):
    campaign = make_campaign(regular=6, training=1, max_items_per_annotator=4, expected_seconds_per_item=30)
    enter(client, campaign)
    practice = client.get(url("rate", campaign)).content.decode()
    assert 'id="remaining">About 2 minutes left' in practice  # 1 practice + 4 items at 30 s
    assert '<details class="instructions-inline" id="instructions">' in practice
    assert "You need at least 1 of 1 right" in practice
    client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    for _ in range(3):
        client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    last = client.get(url("rate", campaign)).content.decode()
    assert "3 of 4" in last and 'id="remaining">Less than a minute left' in last


def test_dont_know_records_a_skip_and_returns_the_item_to_the_pool(client):
    campaign = make_campaign(regular=2)
    enter(client, campaign)
    page = client.get(url("rate", campaign))
    skipped = page.context["assignment"]
    assert "I don't know this expression" in page.content.decode()
    response = client.post(url("rate", campaign), {"token": str(skipped.token), "skip": "unknown_expression"})
    assert response.status_code == 302
    skip = Skip.objects.get()
    assert (skip.item_id, skip.reason, skip.annotator.external_id) == (skipped.item_id, "unknown_expression", "pid-1")
    assert not Rating.objects.exists()
    assert Item.objects.get(pk=skipped.item_id).taken == 0
    # Not shown again to this worker: the next item is the other one, then the study ends for them.
    assert client.get(url("rate", campaign)).context["item"].pk != skipped.item_id
    client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    assert client.get(url("rate", campaign)).url == url("done", campaign)
    # Someone else is given it.
    other = worker(campaign, "other")
    assert other.get(url("rate", campaign)).context["item"].pk == skipped.item_id


def test_a_skipped_practice_item_is_answered_and_wrong(client):
    campaign = make_campaign(regular=1, training=1, training_pass_mark=1.0)
    enter(client, campaign)
    page = client.get(url("rate", campaign))
    assert page.context["item"].role == Item.Role.TRAINING and 'id="skip-item"' in page.content.decode()
    token = str(page.context["assignment"].token)
    client.post(url("rate", campaign), {"token": token, "skip": "unknown_expression"})
    assert Skip.objects.get().item.role == Item.Role.TRAINING
    assert client.get(url("rate", campaign)).url == url("screened_out", campaign)
    annotator = Annotator.objects.get()
    assert (annotator.training_passed, annotator.status, annotator.screen_out_reason) == (
        False,
        "screened_out",
        "practice",
    )


def test_a_submit_and_next_cycle_takes_a_bounded_number_of_queries(client, django_assert_max_num_queries):
    campaign = make_campaign(regular=8, attention=1)
    enter(client, campaign)
    client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    for _ in range(5):  # through an attention check too
        token = current_token(client, campaign)
        # About 10 for the POST (session, annotator, the locked assignment, rating, paraphrase, status)
        # and 14 for the next item (claim included): none of them grows with the campaign.
        with django_assert_max_num_queries(26):
            client.post(url("rate", campaign), {"token": token, **GOOD, "paraphrase_1": "late sleeper"})
            page = client.get(url("rate", campaign))
        assert page.status_code == 200


def frame_ancestors(response) -> str:
    return response["Content-Security-Policy"].split("frame-ancestors")[1].split(";")[0].strip()


def test_mturk_may_show_the_journey_in_its_iframe_and_no_one_else_may(client):
    campaign = make_campaign(regular=2)
    link = {"workerId": "A1", "assignmentId": "ASSIGN9", "hitId": "H1", "turkSubmitTo": "https://www.mturk.com"}
    # An ExternalQuestion HIT opens the study link inside an iframe on MTurk's worker site.
    consent = client.get(url("start", campaign), link)
    assert frame_ancestors(consent).split() == list(MTURK_FRAMERS) and "X-Frame-Options" not in consent
    enter(client, campaign, link)
    rate = client.get(url("rate", campaign))
    assert frame_ancestors(rate).split() == list(MTURK_FRAMERS) and "X-Frame-Options" not in rate

    other = Client()
    enter(other, campaign, PROLIFIC)
    prolific = other.get(url("rate", campaign))
    assert frame_ancestors(prolific) == "'none'" and prolific["X-Frame-Options"] == "DENY"
