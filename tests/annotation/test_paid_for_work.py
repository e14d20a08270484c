"""The adversarial audit's crowd attacks (issue 26, items 1-3), each as it was tried.

1. One rating and skips to the end earned the completion code and an "approve".
2. An attention check could be told apart (no skip button, a progress label that stood still).
3. A worker id was the whole credential: a second browser got another worker's item and code.
"""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from annotation.curate.dashboard import annotator_rows, ratings_frame
from annotation.curate.exports import annotator_export_rows
from annotation.models import Annotator, Item, QualityPolicy, Skip
from annotation.payments import decisions as payments
from annotation.payments.reconciliation import APPROVE, REVIEW, SCREENED_OUT
from annotation.timing import skip_cap
from tests.annotation.test_views import GOOD, PROLIFIC, consent, current_token, enter, make_campaign, url

pytestmark = pytest.mark.django_db
SKIP = {"skip": "unknown_expression"}


def skip_current(client, campaign) -> None:
    client.post(url("rate", campaign), {"token": current_token(client, campaign), **SKIP})


# 1. A code and an approval are earned by work.


def test_one_rating_and_skips_to_the_end_earn_a_screen_out_not_the_code(client):
    campaign = make_campaign(regular=24, ratings_per_item=1)  # the audit's demo-type had 24 compounds
    cap = skip_cap(campaign.max_skip_share, 24)
    assert cap == 4  # 20 % of 24
    enter(client, campaign)
    client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    for _ in range(cap):
        skip_current(client, campaign)
    assert client.get(url("rate", campaign)).status_code == 200  # at the cap: still rating
    skip_current(client, campaign)
    landing = client.get(url("rate", campaign))
    assert landing.url == url("screened_out", campaign)
    page = client.get(landing.url).content.decode()
    assert "You skipped more items than this study allows" in page and "C0DE42" not in page
    assert client.get(url("done", campaign)).url == url("rate", campaign)  # no code page either
    annotator = Annotator.objects.get()
    assert (annotator.status, annotator.screen_out_reason, annotator.completed_at) == ("screened_out", "skips", None)
    (row,) = annotator_export_rows(campaign)
    assert (row["status"], row["items_done"], row["skipped"], row["flagged"]) == ("screened_out", 1, 5, True)
    (decision,) = payments.decisions(campaign)
    assert (
        decision.status == SCREENED_OUT
        and decision.reason == "screened out for skipping more items than the study allows"
    )


def test_the_default_code_needs_every_item_given_less_the_allowed_skips(client):
    campaign = make_campaign(regular=6, ratings_per_item=1)  # cap: 1 skip
    enter(client, campaign)
    skip_current(client, campaign)
    for _ in range(4):
        client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    # 4 rated of 6: one more item is left for this worker, so no code yet.
    assert client.get(url("rate", campaign)).status_code == 200
    client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    assert client.get(url("rate", campaign)).url == url("done", campaign)
    assert Annotator.objects.get().status == Annotator.Status.COMPLETED


def test_a_study_that_fills_up_before_the_worker_rated_enough_gives_no_code(client):
    campaign = make_campaign(regular=4, ratings_per_item=1, max_skip_share=0)
    enter(client, campaign)
    client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    other = Client()
    enter(other, campaign, {**PROLIFIC, "PROLIFIC_PID": "pid-2"})
    for _ in range(3):  # the others rate the rest
        other.post(url("rate", campaign), {"token": current_token(other, campaign), **GOOD})
    assert client.get(url("rate", campaign)).url == url("full", campaign)
    assert Annotator.objects.get(external_id="pid-1").status == Annotator.Status.ACTIVE


def test_a_flagged_skipper_is_reviewed_not_approved(client):
    campaign = make_campaign(regular=10, ratings_per_item=1, max_skip_share=0.5)
    QualityPolicy.objects.create(campaign=campaign, min_median_seconds=None)  # a test client answers at once
    enter(client, campaign)
    for _ in range(3):
        skip_current(client, campaign)
    for _ in range(7):
        client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    assert client.get(url("rate", campaign)).url == url("done", campaign)  # within the campaign's cap: the code
    (row,) = annotator_rows(campaign, ratings_frame(campaign))
    assert row.skipped == 3 and "skipped often" in row.flags
    assert "3 of 10 items skipped (30% > 10%)" in row.reason
    (decision,) = payments.decisions(campaign)
    assert decision.status == REVIEW and decision.status != APPROVE
    assert payments.payment_file(campaign, "prolific-approve.txt")[1] == ""
    table = list(csv.DictReader(io.StringIO(payments.payment_file(campaign, "reconciliation.csv")[1])))
    assert [r["status"] for r in table] == ["review"]


def test_a_code_minimum_below_five_must_be_confirmed(client, django_user_model):
    from tests.annotation.test_curator import form_data, load_demo, make_user

    collection = load_demo()
    client.force_login(make_user("curator"))
    refused = client.post(reverse("curator:create"), form_data(collection, min_items_for_code=1))
    assert refused.status_code == 200 and "pays for very little work" in refused.content.decode()
    confirmed = form_data(collection, min_items_for_code=1, confirm_low_minimum="on")
    assert client.post(reverse("curator:create"), confirmed).status_code == 302
    body = {"name": "Low", "slug": "api-low", "collection": "demo", "language": "en", "min_items_for_code": 2}
    api = client.post("/api/annotation/campaigns/", body, content_type="application/json")
    assert api.status_code == 400 and "min_items_for_code" in api.json()


def test_the_demo_campaigns_need_work_for_their_code():
    from django.core.management import call_command

    call_command("create_demo_campaigns", stdout=io.StringIO())
    from annotation.models import Campaign

    for campaign in Campaign.objects.filter(slug__in=["demo-token", "demo-type"]):
        assert campaign.min_items_for_code is None and campaign.max_items_per_annotator == 12
        assert campaign.max_skip_share == 0.2 and campaign.screen_out_code


# 2. Checks look like any item.


def controls(html: str) -> list[str]:
    """The form's buttons and inputs by name and id: what a worker could tell a check by."""
    form = html[html.index('<form method="post"') : html.index("</form>")]
    return sorted(re.findall(r'<(?:button|input)[^>]*?(?:name|id)="([^"]+)"', form))


def test_an_attention_check_has_the_same_controls_and_moves_the_progress_label(client):
    campaign = make_campaign(regular=10, attention=1, ratings_per_item=1)
    enter(client, campaign)
    labels, pages = [], {}
    for _ in range(7):
        page = client.get(url("rate", campaign))
        role = page.context["item"].role
        html = page.content.decode()
        labels.append(re.search(r'id="progress-label">([^<]+)<', html).group(1))
        pages.setdefault(role, html)
        client.post(url("rate", campaign), {"token": str(page.context["assignment"].token), **GOOD})
    assert set(pages) == {"regular", "attention"}
    assert controls(pages["attention"]) == controls(pages["regular"])
    assert 'id="skip-item"' in pages["attention"]
    assert labels == [f"{n} of 11" for n in range(7)]  # 10 items and the check; every screen moves on


def test_skipping_an_attention_check_fails_it(client):
    campaign = make_campaign(regular=6, attention=1, ratings_per_item=1)
    enter(client, campaign)
    for _ in range(5):
        client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
    page = client.get(url("rate", campaign))
    assert page.context["item"].role == Item.Role.ATTENTION
    client.post(url("rate", campaign), {"token": str(page.context["assignment"].token), **SKIP})
    assert Skip.objects.get().item.role == Item.Role.ATTENTION
    assert client.get(url("rate", campaign)).context["item"].role == Item.Role.REGULAR  # the check is not shown again
    (row,) = annotator_rows(campaign, ratings_frame(campaign))
    assert (row.attention_accuracy, row.attention_failures, row.skipped) == (0.0, 1, 0)


# 3. A worker id is not a credential.


def test_a_second_browser_with_a_workers_id_gets_neither_the_item_nor_the_code():
    campaign = make_campaign(regular=2, ratings_per_item=1)
    victim = Client()
    enter(victim, campaign)
    consent(victim, campaign)
    item = victim.get(url("rate", campaign)).context["item"]
    attacker = Client()
    link = attacker.get(url("start", campaign), PROLIFIC)
    assert link.status_code == 409 and "already open in another browser" in link.content.decode()
    taken = attacker.post(url("start", campaign), {**PROLIFIC, "agree": "1"})
    assert taken.status_code == 409 and item.compound.text not in taken.content.decode()
    assert attacker.get(url("rate", campaign)).status_code == 403  # no annotator in this session
    # The victim finishes; the attacker still sees no code.
    for _ in range(2):
        victim.post(url("rate", campaign), {"token": current_token(victim, campaign), **GOOD})
    assert victim.get(url("rate", campaign)).url == url("done", campaign)
    finished = attacker.get(url("start", campaign), PROLIFIC)
    assert finished.status_code == 409 and "C0DE42" not in finished.content.decode()
    assert attacker.get(url("done", campaign)).status_code == 403


def test_wrong_resume_codes_lock_the_id_for_a_while():
    cache.clear()
    campaign = make_campaign(regular=2)
    enter(Client(), campaign)
    code = Annotator.objects.get().resume_code
    attacker = Client()
    for attempt in range(5):
        wrong = attacker.post(url("resume", campaign), {**PROLIFIC, "resume_code": f"WRONG{attempt:03d}"})
        assert wrong.status_code == 400 and "not the resume code" in wrong.content.decode()
    locked = attacker.post(url("resume", campaign), {**PROLIFIC, "resume_code": code})
    assert locked.status_code == 429 and "Too many wrong codes" in locked.content.decode()
    assert attacker.get(url("rate", campaign)).status_code == 403
    cache.clear()
    assert attacker.post(url("resume", campaign), {**PROLIFIC, "resume_code": code}).url == url("rate", campaign)


def test_the_resume_code_is_shown_to_the_worker_once_enrolled(client):
    campaign = make_campaign(regular=2)
    enter(client, campaign)
    code = Annotator.objects.get().resume_code
    page = client.get(url("instructions", campaign)).content.decode()
    assert f"{code[:4]}-{code[4:]}" in page
