"""Quality flags through the database: a speeder and a straight-liner are flagged on the dashboard, in the
report and the annotators export, and the policy "exclude flagged" gives coffee cup its score back in a
report and a release (issue 14: a 0.2 s-per-item worker moved coffee cup's token score from 4.87 to 3.7)."""

from __future__ import annotations

import csv
import io
import statistics
from datetime import timedelta

import pytest
from django.urls import reverse

from annotation.actions import claim_next_item, enter_campaign, submit_rating
from annotation.curate.dashboard import campaign_dashboard
from annotation.models import Annotator, Campaign, FilterPolicy, QualityPolicy
from annotation.protocol import Answers
from annotation.reports.build import campaign_report
from annotation.setup_actions import add_items
from datasets import vocabulary
from datasets.models import Sentence
from releases.collect import collect_snapshot
from tests.annotation.test_curator import load_demo, make_user

pytestmark = pytest.mark.django_db

CAREFUL = {"careful-1": -0.4, "careful-2": -0.1, "careful-3": 0.2, "careful-4": 0.4}


def clip(value: float) -> int:
    return max(0, min(5, round(value)))


def careful(offset: float):
    def answers(truth: float) -> Answers:
        return Answers(clip(truth + 0.5 + offset), clip(truth + 0.3 + offset), clip(truth + offset))

    return answers, 15.0 + 10 * offset


def speeder(truth: float) -> Answers:
    # Rushing: whatever is under the thumb, nearly the opposite of the sentence.
    return Answers(clip(5 - truth), clip(4 - truth), clip(5 - truth))


WORKERS = {
    **{name: careful(offset) for name, offset in CAREFUL.items()},
    "speeder": (speeder, 0.2),
    "liner": (lambda truth: Answers(1, 1, 1), 9.0),
}


def rate_everything(annotator: Annotator, answer, seconds: float) -> None:
    while (assignment := claim_next_item(annotator)) is not None:
        truth = assignment.item.sentence.token_score
        later = assignment.reserved_at + timedelta(seconds=seconds)
        assert submit_rating(annotator, str(assignment.token), answer(truth), now=later).rating is not None


@pytest.fixture
def coffee():
    """Every English demo compound's first sentence, rated by four careful workers, a speeder and a straight-liner."""
    collection = load_demo()
    campaign = Campaign.objects.create(
        name="Coffee",
        slug="coffee",
        collection=collection,
        language="en",
        ratings_per_item=6,
        status=Campaign.Status.OPEN,
    )
    sentences = Sentence.objects.filter(
        compound__collection=collection, compound__language="en", kind=vocabulary.NATURALISTIC, available=True, slot=1
    )
    add_items(campaign, list(sentences.order_by("compound__key")))
    for name, (answer, seconds) in WORKERS.items():
        annotator = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id=name, study_id="study")
        rate_everything(annotator, answer, seconds)
    return campaign


def coffee_cup_mean(report: dict) -> float:
    [row] = [
        r for r in report["items"]["rows"] if r["compound_text"] == "coffee cup" and r["question"] == "compound_score"
    ]
    return row["mean"]


def careful_coffee_cup_mean() -> float:
    truth = Sentence.objects.get(
        compound__collection__slug="demo", compound__text="coffee cup", kind=vocabulary.NATURALISTIC, slot=1
    ).token_score
    return statistics.mean(clip(truth + offset) for offset in CAREFUL.values())


def test_the_dashboard_flags_the_speeder_and_the_straight_liner_with_their_numbers(coffee, client):
    rows = {row.external_id: row for row in campaign_dashboard(coffee).annotators}
    assert rows["speeder"].flags[0] == "speeder" and rows["speeder"].median_seconds == pytest.approx(0.2)
    assert rows["speeder"].reasons[0] == "speeder (median 0.2 s per item < 3 s)"
    assert rows["liner"].flags == ["straight-lining"]
    assert rows["liner"].same_answer_share == 1.0
    for name in CAREFUL:
        assert rows[name].flags == [], name

    client.force_login(make_user("curator"))
    html = client.get(reverse("curator:dashboard", args=[coffee.slug])).content.decode()
    assert "2 flagged" in html
    assert "speeder (median 0.2 s per item &lt; 3 s)" in html
    assert "straight-lining (" in html


def test_the_policy_exclude_flagged_gives_coffee_cup_its_score_back(coffee):
    policy = FilterPolicy.objects.get(name="exclude flagged")
    everyone = campaign_report(coffee, FilterPolicy.objects.get(name="none"))
    filtered = campaign_report(coffee, policy)

    removed = {r["label"]: r["reason"] for r in filtered["reliability"]["rows"] if r["removed"]}
    assert set(removed) == {"speeder", "liner"}
    assert removed["speeder"].startswith("flagged: speeder (median 0.2 s per item < 3 s)")
    assert removed["liner"] == "flagged: straight-lining (24 of 24 items answered 1/1/1 (100% ≥ 80%))"
    assert filtered["policy"]["exclude_flagged"] is True and filtered["policy"]["kept"] == 4
    rows = {row["label"]: row for row in filtered["reliability"]["rows"]}
    assert rows["liner"]["flags"] == ["straight-lining"] and rows["careful-1"]["flags"] == []

    assert coffee_cup_mean(filtered) == pytest.approx(careful_coffee_cup_mean())
    assert coffee_cup_mean(everyone) < careful_coffee_cup_mean() - 1


def test_a_release_built_with_the_policy_leaves_the_flagged_workers_out(coffee):
    def released_coffee_cup(policy: str):
        snapshot = collect_snapshot(["en"], collections=["demo"], campaigns=["coffee"], policy=policy)
        return next(c for c in snapshot.compounds if c.text == "coffee cup"), snapshot.scores.policy

    kept, policy = released_coffee_cup("exclude flagged")
    assert kept.token_score == pytest.approx(careful_coffee_cup_mean())
    assert kept.sentences[0].token_score == pytest.approx(careful_coffee_cup_mean())
    assert policy["name"] == "exclude flagged" and policy["exclude_flagged"] is True
    everyone, _ = released_coffee_cup("none")
    assert everyone.token_score < careful_coffee_cup_mean() - 1
    # Naming no policy is not keeping everyone: a release leaves the flagged workers out unless told to keep them.
    default, policy = released_coffee_cup(None)
    assert default.token_score == pytest.approx(careful_coffee_cup_mean()) and policy["name"] == "exclude flagged"


def test_the_campaigns_thresholds_decide_who_is_flagged(coffee):
    QualityPolicy.objects.create(campaign=coffee, min_median_seconds=None, max_same_answer_share=None, min_rho=None)
    rows = {row.external_id: row for row in campaign_dashboard(coffee).annotators}
    assert rows["speeder"].flags == [] and rows["liner"].flags == []
    QualityPolicy.objects.filter(campaign=coffee).update(min_median_seconds=16)
    rows = {row.external_id: row for row in campaign_dashboard(coffee).annotators}
    assert {name for name, row in rows.items() if row.flags} == {"speeder", "liner", "careful-1", "careful-2"}


def test_the_annotators_export_lists_the_flagged_workers_with_the_reason(coffee, client):
    client.force_login(make_user("curator"))
    response = client.get(reverse("curator:export", args=[coffee.slug, "annotators", "csv"]))
    rows = {
        row["external_id"]: row for row in csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode()))
    }
    assert rows["speeder"]["flagged"] == "True" and rows["speeder"]["flags"].startswith("speeder")
    assert "median 0.2 s per item < 3 s" in rows["speeder"]["reason"]
    assert rows["liner"]["reason"] == "straight-lining (24 of 24 items answered 1/1/1 (100% ≥ 80%))"
    assert rows["careful-1"]["flagged"] == "False" and rows["careful-1"]["reason"] == ""
    assert rows["careful-1"]["study_id"] == "study" and rows["careful-1"]["items_done"] == "24"
