"""An annotator's way through a campaign: what comes next, and what the pages say about progress and time.

Reads here; every write goes through ``annotation.actions``. The order is consent, practice
(graded: ``protocol.practice_needed``), then regular items with an attention check after every
``ATTENTION_EVERY`` ratings, and an end: the completion code once the campaign's minimum is rated
(skips never count), the screen-out page for a worker who skipped more than the campaign allows,
a wait while other workers hold the remaining items, or "study full".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.cache import caches
from django.db.models import Count, Q
from django.utils import timezone

from annotation import timing
from annotation.actions import (
    claim_check_item,
    claim_new_item,
    complete,
    current_assignment,
    end_training,
    release_expired,
    screen_out,
)
from annotation.models import Annotator, Assignment, Campaign, Item, Rating
from annotation.protocol import gold_correct, practice_needed

ATTENTION_EVERY = 5
# No item is free but other workers hold some: the rating page says so and tries again.
WAIT = "wait"
PACE_CACHE_SECONDS = 60
ITEM_COUNTS_CACHE_SECONDS = 3600  # keyed by the items version: a change is seen at once, this only bounds memory
PACE_SAMPLE = 500  # the latest ratings the measured median is taken from


@dataclass(frozen=True)
class CampaignCounts:
    regular: int
    training: int
    attention: int


@dataclass(frozen=True)
class Progress:
    rated: int  # regular items rated
    training_rated: int  # practice items answered (rated or skipped)
    attention_shown: int
    skipped: int = 0  # regular items skipped
    attention_done: int = 0  # attention checks answered (rated or skipped)
    reserved: int = 0  # reservations not yet answered nor released (live, or timed out)

    @property
    def screens_done(self) -> int:
        """What the progress label counts: regular items rated and attention checks answered, so that it
        moves on every screen (a check that did not move it would give itself away)."""
        return self.rated + self.attention_done


def campaign_counts(campaign: Campaign) -> CampaignCounts:
    """Items per role: one query per campaign and items version (``actions.items_changed`` moves it on).

    Every submit-and-next asks, and items rarely change during a study: the counts are kept in the
    process's cache (``caches["local"]``: no round trip) under the campaign's id, creation time and
    ``items_version`` (read with the campaign on each request, so every process sees a change at
    once), and on the instance for the request.
    """
    if (counts := getattr(campaign, "_item_counts", None)) is None:
        key = f"annotation:item-counts:{campaign.pk}:{campaign.created_at.timestamp()}:{campaign.items_version}"
        cache = caches["local"]
        counts = cache.get(key)
        if counts is None:
            counts = CampaignCounts(
                **Item.objects.filter(campaign=campaign).aggregate(
                    regular=Count("id", filter=Q(role=Item.Role.REGULAR)),
                    training=Count("id", filter=Q(role=Item.Role.TRAINING)),
                    attention=Count("id", filter=Q(role=Item.Role.ATTENTION)),
                )
            )
            cache.set(key, counts, ITEM_COUNTS_CACHE_SECONDS)
        campaign._item_counts = counts
    return counts


def progress(annotator: Annotator) -> Progress:
    """What the annotator has done so far, in one query (once per request: kept on the annotator instance).

    The assignments are counted per status and role by the database (a handful of rows), and summed
    here. The actions that change the counts (``submit_rating``, ``skip_item``) drop the kept value,
    and ``next_step`` reads it afresh; claiming an item after reading it only moves ``reserved`` and
    ``attention_shown``, which nothing reads afterwards.
    """
    if (done := getattr(annotator, "_progress", None)) is None:
        rows = (
            Assignment.objects.filter(annotator=annotator)
            .values_list("status", "item__role")
            .annotate(n=Count("id"))
            .order_by()
        )
        counts = {(status, role): n for status, role, n in rows}

        def count(statuses, roles) -> int:
            return sum(counts.get((status, role), 0) for status in statuses for role in roles)

        answered = (Assignment.Status.SUBMITTED, Assignment.Status.SKIPPED)
        regular, training, attention = [Item.Role.REGULAR], [Item.Role.TRAINING], [Item.Role.ATTENTION]
        done = annotator._progress = Progress(
            rated=count([Assignment.Status.SUBMITTED], regular),
            training_rated=count(answered, training),
            attention_shown=count(Assignment.Status.values, attention),
            skipped=count([Assignment.Status.SKIPPED], regular),
            attention_done=count(answered, attention),
            reserved=count([Assignment.Status.RESERVED], Item.Role.values),
        )
    return done


def regular_per_worker(campaign: Campaign, counts: CampaignCounts) -> int:
    return timing.regular_items_per_worker(counts.regular, campaign.max_items_per_annotator)


def items_needed_for_code(campaign: Campaign, counts: CampaignCounts, done: Progress) -> int:
    """Rated items that earn the code: the campaign's minimum, or by default every item the worker was given
    less the skips the campaign allows (a worker who skipped more was screened out before this is asked)."""
    given = regular_per_worker(campaign, counts) - min(done.skipped, skip_cap(campaign, counts))
    return timing.min_items_for_code(campaign.min_items_for_code, given)


def screens_per_worker(campaign: Campaign, counts: CampaignCounts) -> int:
    """The progress label's total: the regular items per worker and the attention checks among them."""
    regular = regular_per_worker(campaign, counts)
    return regular + timing.checks_per_worker(regular, counts.attention, ATTENTION_EVERY)


def skip_cap(campaign: Campaign, counts: CampaignCounts) -> int:
    return timing.skip_cap(campaign.max_skip_share, regular_per_worker(campaign, counts))


def has_open_items(annotator: Annotator) -> bool:
    """Whether some regular item the annotator has not seen still lacks ratings (free or held by others)."""
    return campaign_has_open_items(annotator.campaign, annotator)


def campaign_has_open_items(campaign: Campaign, annotator: Annotator | None = None) -> bool:
    """Whether some regular item (not seen by ``annotator``) still needs ratings: fewer than N, and not settled
    by the adaptive rule; and the campaign's budget is not spent on ratings. Else the study is full."""
    if (budget := campaign.rating_budget) is not None and budget_spent_on_ratings(campaign) >= budget:
        return False
    items = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)
    if campaign.adaptive:
        items = items.filter(settled=False)
    if annotator is not None:
        items = items.exclude(assignments__annotator=annotator)
    return items.annotate(rated=Count("ratings")).filter(rated__lt=campaign.ratings_per_item).exists()


def budget_spent_on_ratings(campaign: Campaign) -> int:
    """Ratings submitted on regular items (live reservations may still be given back: they leave the study open)."""
    return Rating.objects.filter(item__campaign=campaign, item__role=Item.Role.REGULAR).count()


def intake_problem(campaign: Campaign) -> str | None:
    """Why a worker who opens a study link now cannot take part (what they are told), or None when they can."""
    if campaign.status == Campaign.Status.DRAFT:
        return "This campaign is a draft: workers who open a study link are told it is not open. Open it when ready."
    if campaign.status == Campaign.Status.PAUSED:
        return "This campaign is paused: workers who open a study link are told it is not open at the moment."
    if campaign.status == Campaign.Status.CLOSED:
        return "This campaign is closed: workers who open a study link are told the study has ended."
    if not campaign_counts(campaign).regular:
        return "This campaign has no items to rate yet: add some before sharing a study link."
    if not campaign_has_open_items(campaign):
        if (budget := campaign.rating_budget) is not None and budget_spent_on_ratings(campaign) >= budget:
            return f"This campaign's budget ({budget} ratings) is spent, so workers are told the study is full."
        return "This campaign is full: every item has its ratings, so workers are told the study is full."
    return None


def full_context(campaign: Campaign, platform: str) -> dict:
    """The "study full" page: the campaign's return link, and the platform's convention when it has none."""
    return {"campaign": campaign, "platform": platform, "return_url": campaign.full_url}


def practice_rule(campaign: Campaign, counts: CampaignCounts) -> dict:
    """What the instructions say about the graded practice items."""
    return {
        "items": counts.training,
        "needed": practice_needed(counts.training, campaign.training_pass_mark),
        "tolerance": campaign.gold_tolerance,
        "screen_out_code": bool(campaign.screen_out_code or campaign.screen_out_url),
    }


def gold_checks(rating: Rating) -> dict[str, bool]:
    tolerance = rating.item.campaign.gold_tolerance
    return {
        "head_score": gold_correct(rating.head_score, rating.item.gold_head, tolerance),
        "modifier_score": gold_correct(rating.modifier_score, rating.item.gold_modifier, tolerance),
        "compound_score": gold_correct(rating.compound_score, rating.item.gold_compound, tolerance),
    }


def training_result(annotator: Annotator, total: int) -> bool | None:
    """True or False once every practice item is answered (enough right or not), else None.

    A skipped practice item is answered, and wrong.
    """
    ratings = list(
        Rating.objects.filter(annotator=annotator, item__role=Item.Role.TRAINING).select_related("item__campaign")
    )
    skipped = annotator.assignments.filter(item__role=Item.Role.TRAINING, status=Assignment.Status.SKIPPED).count()
    if len(ratings) + skipped < total:
        return None
    right = sum(all(gold_checks(rating).values()) for rating in ratings)
    return right >= practice_needed(total, annotator.campaign.training_pass_mark)


def next_step(annotator: Annotator, now: datetime | None = None) -> Assignment | str:
    """The assignment to show now, ``WAIT``, or the name of the page that comes instead."""
    campaign = annotator.campaign
    if annotator.status == Annotator.Status.SCREENED_OUT:
        return "annotation:screened_out"
    if annotator.status == Annotator.Status.COMPLETED:
        return "annotation:done"
    if annotator.consented_at is None:
        # A full campaign says so before anyone agrees to take part.
        return "annotation:consent" if has_open_items(annotator) else "annotation:full"
    now = now or timezone.now()
    annotator.__dict__.pop("_progress", None)  # read afresh: the page shown next counts on it
    done = progress(annotator)
    # Just after a submission the annotator holds no reservation: no current item to look for.
    if done.reserved and (assignment := current_assignment(annotator, now)):
        return assignment
    release_expired(campaign, now)
    counts = campaign_counts(campaign)
    if annotator.training_passed is None and counts.training:
        if assignment := claim_check_item(annotator, Item.Role.TRAINING, now):
            return assignment
        passed = training_result(annotator, counts.training)
        end_training(annotator, bool(passed))
        if not passed:
            return "annotation:screened_out"
    if done.skipped > skip_cap(campaign, counts):
        screen_out(annotator, Annotator.ScreenOut.SKIPS)
        return "annotation:screened_out"
    if (
        counts.attention
        and done.rated // ATTENTION_EVERY > done.attention_shown
        and (check := claim_check_item(annotator, Item.Role.ATTENTION, now))
    ):
        return check
    if assignment := claim_new_item(annotator, now):
        return assignment
    # Nothing to hand out now. The code is earned by the campaign's minimum, not by running out of items.
    if done.rated >= items_needed_for_code(campaign, counts, done):
        complete(annotator, now)
        return "annotation:done"
    return WAIT if has_open_items(annotator) else "annotation:full"


def pace(campaign: Campaign) -> timing.Pace:
    """Seconds per item: the median of this campaign's latest ratings by people, else the curator's guess."""
    key = f"annotation:pace:{campaign.pk}:{campaign.expected_seconds_per_item}"
    cache = caches["local"]
    found = cache.get(key)
    if found is None:
        seconds = (
            Rating.objects.filter(
                item__campaign=campaign, item__role=Item.Role.REGULAR, annotator__simulated=False, seconds__isnull=False
            )
            .order_by("-id")
            .values_list("seconds", flat=True)[:PACE_SAMPLE]
        )
        found = timing.pace(seconds, campaign.expected_seconds_per_item)
        cache.set(key, found, PACE_CACHE_SECONDS)
    return found


def study_estimate(campaign: Campaign, counts: CampaignCounts) -> dict:
    """What the consent page says about time: items per worker, seconds each, and the total."""
    items = timing.items_per_worker(
        counts.regular, campaign.max_items_per_annotator, counts.training, counts.attention, ATTENTION_EVERY
    )
    speed = pace(campaign)
    return {
        "items": items,
        "seconds_per_item": round(speed.seconds),
        "measured": speed.measured,
        "text": timing.duration_text(items * speed.seconds),
    }


def remaining_estimate(campaign: Campaign, counts: CampaignCounts, done: Progress) -> str:
    """'about 4 minutes' for the items still ahead of the annotator, the current one included."""
    regular_left = max(0, screens_per_worker(campaign, counts) - done.screens_done)
    practice_left = max(0, counts.training - done.training_rated) if done.rated == 0 else 0
    return timing.duration_text((regular_left + practice_left) * pace(campaign).seconds)
