"""One object of each kind the security tests visit, shared by the role matrix, the schema fuzzing and the CSP check."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.actions import claim_next_item, enter_campaign, submit_rating
from annotation.models import Campaign, Rating
from annotation.protocol import Answers
from annotation.setup_actions import add_items
from probing.models import ProbeRun
from releases.models import Release
from tests.building.review_factories import make_review_compound
from tests.probing.report_factories import make_model, make_release, make_run


@dataclass
class StudyWorld:
    release: Release  # published, with a finished probe run
    run: ProbeRun
    review: dict  # make_review_compound's compound, sentences and variants
    campaign: Campaign  # open, one item, nobody enrolled
    rating: Rating  # in another campaign, by a Prolific worker


def make_study_world() -> StudyWorld:
    release = make_release()
    run = make_run(release, make_model())
    review = make_review_compound("night owl")
    collection = review["compound"].collection
    campaign = Campaign.objects.create(
        name="Study", slug="study", collection=collection, language="en", status=Campaign.Status.OPEN
    )
    add_items(campaign, [review["natural"]])
    other = Campaign.objects.create(name="Other", slug="other", collection=collection, language="en")
    add_items(other, [review["natural"]])
    rater = enter_campaign(other, platform="prolific", external_id="rater")
    rating = submit_rating(rater, str(claim_next_item(rater).token), Answers(1, 2, 3, ["late worker"])).rating
    return StudyWorld(release, run, review, campaign, rating)
