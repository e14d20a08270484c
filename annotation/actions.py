"""Every write of an annotation campaign: entering, claiming items, submitting ratings.

Correct under concurrent requests: item rows are claimed with ``SELECT … FOR UPDATE SKIP
LOCKED`` on PostgreSQL (SQLite serialises writers with IMMEDIATE transactions), the
``taken`` counter only moves under a conditional UPDATE, and the database refuses a second
assignment or rating of one item for one annotator, and a second live reservation of one annotator.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from annotation.allocation_actions import budget_allows, refresh_interval
from annotation.models import Annotator, Assignment, Campaign, Item, Rating, Skip, SuggestedParaphrase
from annotation.protocol import Answers
from annotation.reads import LOCKED_ASSIGNMENT, free_item, items_shown, with_item_shown

CLAIM_ATTEMPTS = 5
NOT_YOURS = "This item is not assigned to you."


def enter_campaign(
    campaign: Campaign,
    *,
    user=None,
    platform: str = Annotator.Platform.LOCAL,
    external_id: str = "",
    study_id: str = "",
    session_id: str = "",
    assignment_id: str = "",
) -> Annotator:
    """The campaign's annotator for this account or external id: the same one on every visit."""
    annotator, _ = enrol(
        campaign,
        user=user,
        platform=platform,
        external_id=external_id,
        study_id=study_id,
        session_id=session_id,
        assignment_id=assignment_id,
    )
    return annotator


def enrol(
    campaign: Campaign,
    *,
    user=None,
    platform: str = Annotator.Platform.LOCAL,
    external_id: str = "",
    study_id: str = "",
    session_id: str = "",
    assignment_id: str = "",
) -> tuple[Annotator, bool]:
    """``enter_campaign``, and whether this call created the annotator (only its creator binds a browser to it)."""
    if user is None and not external_id:
        raise ValueError("an annotator needs an account or an external id")
    lookup = {"user": user} if user is not None else {"platform": platform, "external_id": external_id}
    defaults = {"platform": platform, "study_id": study_id, "session_id": session_id, "assignment_id": assignment_id}
    try:
        with transaction.atomic():
            return Annotator.objects.get_or_create(campaign=campaign, **lookup, defaults=defaults)
    except IntegrityError:
        # Two first visits at once: the other request created it.
        return Annotator.objects.get(campaign=campaign, **lookup), False


def record_consent(annotator: Annotator, now: datetime | None = None) -> None:
    """The annotator agreed to take part (once: a second agreement keeps the first time)."""
    now = now or timezone.now()
    if Annotator.objects.filter(pk=annotator.pk, consented_at__isnull=True).update(consented_at=now):
        annotator.consented_at = now


def release_expired(campaign: Campaign, now: datetime | None = None) -> int:
    """Give back items whose reservation timed out; returns how many were released."""
    now = now or timezone.now()
    released = 0
    stale = Assignment.objects.filter(item__campaign=campaign, status=Assignment.Status.RESERVED, expires_at__lt=now)
    for assignment_id, item_id in stale.values_list("id", "item_id"):
        with transaction.atomic():
            # Only the request that flips the status gives the item back.
            if Assignment.objects.filter(id=assignment_id, status=Assignment.Status.RESERVED).update(
                status=Assignment.Status.EXPIRED
            ):
                Item.objects.filter(id=item_id, taken__gt=0).update(taken=F("taken") - 1)
                released += 1
    return released


def current_assignment(annotator: Annotator, now: datetime | None = None) -> Assignment | None:
    """The annotator's live reservation (at most one: a database constraint), with its item."""
    now = now or timezone.now()
    return with_item_shown(annotator.assignments.filter(status=Assignment.Status.RESERVED, expires_at__gte=now)).first()


def claim_next_item(
    annotator: Annotator, now: datetime | None = None, limit: int | None = None, per_worker_cap: bool = True
) -> Assignment | None:
    """The annotator's current item, or a new one: least-taken first (fixed allocation) or as the adaptive
    allocation ranks them (``reads.ADAPTIVE_FREE_ITEM``), seeded tie-break.

    None when the annotator reached the campaign's maximum, the campaign's budget is spent, or no item
    is free (every item has N ratings or live reservations, or is settled by the adaptive rule; or
    ``limit`` < N, which simulations use to leave room for people).
    """
    now = now or timezone.now()
    release_expired(annotator.campaign, now)
    if assignment := current_assignment(annotator, now):
        return assignment
    return claim_new_item(annotator, now, limit, per_worker_cap)


def claim_new_item(
    annotator: Annotator, now: datetime, limit: int | None = None, per_worker_cap: bool = True
) -> Assignment | None:
    """A new regular item for an annotator without a live reservation (timed-out ones released already).

    ``per_worker_cap=False`` ignores the campaign's items per worker: a simulated panel rates every item.
    """
    campaign = annotator.campaign
    cap = min(limit, campaign.ratings_per_item) if limit is not None else campaign.ratings_per_item
    if per_worker_cap and campaign.max_items_per_annotator is not None:
        # Skipped items do not count: the worker still gets the maximum number of items to rate.
        held = annotator.assignments.exclude(status__in=[Assignment.Status.EXPIRED, Assignment.Status.SKIPPED])
        if held.filter(item__role=Item.Role.REGULAR).count() >= campaign.max_items_per_annotator:
            return None
    for _ in range(CLAIM_ATTEMPTS):
        try:
            with transaction.atomic():
                # In the allocation's order; items other requests hold locked are passed over.
                item = free_item(campaign, cap, annotator.pk)
                if item is None:
                    return None
                if not Item.objects.filter(pk=item.pk, taken__lt=cap).update(taken=F("taken") + 1):
                    continue
                if not budget_allows(campaign, more=0):
                    # Counted with this claim: over the budget, nothing is handed out (and the claim undone).
                    transaction.set_rollback(True)
                    return None
                expires = now + timedelta(minutes=campaign.reservation_minutes)
                return Assignment.objects.create(item=item, annotator=annotator, expires_at=expires)
        except IntegrityError:
            # Another request of the same annotator reserved an item first: one at a time, so that one.
            return current_assignment(annotator, now)
    return None


@dataclass
class Submission:
    """What happened to a submission or skip: stored, a repeat of a stored one, or refused."""

    rating: Rating | None
    repeated: bool = False
    errors: dict[str, str] = field(default_factory=dict)
    skip: Skip | None = None
    stale: bool = False  # refused because the page was not for the annotator's current item (``not_current``)


def not_current(assignment: Assignment) -> str | None:
    """Why an answer to ``assignment`` cannot be stored as the annotator's answer now, or None when it can.

    A page may be stale (Back, a second tab, a restored session): only the annotator's current
    item takes answers. A timed-out reservation still counts while nothing newer was handed out.
    """
    if assignment.status == Assignment.Status.SUBMITTED:
        return "You had already answered that item: your first answer is kept and this one was not stored."
    if assignment.status == Assignment.Status.SKIPPED:
        return "You had skipped that item, so this answer was not stored."
    if assignment.status == Assignment.Status.EXPIRED:
        newer = Assignment.objects.filter(annotator_id=assignment.annotator_id, status=Assignment.Status.RESERVED)
        if newer.exclude(pk=assignment.pk).exists():
            return "That item had timed out and you were given another one, so this answer was not stored."
    return None


def _locked_assignment(annotator: Annotator, token: str) -> Assignment | None:
    """The annotator's assignment ``token`` with its item, locked; None when there is none."""
    try:
        token = token if isinstance(token, uuid.UUID) else uuid.UUID(str(token))
    except ValueError:
        return None
    return LOCKED_ASSIGNMENT.first(token, annotator.pk)


def submit_rating(annotator: Annotator, token: str, answers: Answers, now: datetime | None = None) -> Submission:
    """Store one rating for the assignment ``token``; a repeated submission stores nothing new."""
    now = now or timezone.now()
    annotator.__dict__.pop("_progress", None)  # journey.progress kept for this request: it changes now
    with transaction.atomic():
        assignment = _locked_assignment(annotator, token)
        if assignment is None:
            return Submission(None, errors={"token": NOT_YOURS})
        if assignment.status == Assignment.Status.SUBMITTED:
            return Submission(assignment.rating, repeated=True)
        if reason := not_current(assignment):
            return Submission(None, errors={"token": reason}, stale=True)
        item = assignment.item
        if assignment.status == Assignment.Status.EXPIRED and item.role == Item.Role.REGULAR:
            # The reservation timed out; take the item back only if it still needs ratings.
            # (Check items are everyone's: they never compete for N.)
            if not Item.objects.filter(pk=item.pk, taken__lt=annotator.campaign.ratings_per_item).update(
                taken=F("taken") + 1
            ):
                return Submission(None, errors={"token": "This item timed out and was given to someone else."})
            if not budget_allows(annotator.campaign, more=0):
                transaction.set_rollback(True)
                return Submission(None, errors={"token": "This item timed out and the study's budget is spent."})
        rating = Rating.objects.create(
            assignment=assignment,
            item=item,
            annotator=annotator,
            head_score=answers.head_score,
            modifier_score=answers.modifier_score,
            compound_score=answers.compound_score,
            seconds=(now - assignment.reserved_at).total_seconds(),
        )
        if answers.paraphrases:
            SuggestedParaphrase.objects.bulk_create(
                SuggestedParaphrase(rating=rating, position=i, text=text)
                for i, text in enumerate(answers.paraphrases, 1)
            )
        assignment.status, assignment.submitted_at = Assignment.Status.SUBMITTED, now
        assignment.save(update_fields=["status", "submitted_at"])
        if annotator.campaign.adaptive and item.role == Item.Role.REGULAR:
            refresh_interval(annotator.campaign, item.pk)
    return Submission(rating)


def skip_item(
    annotator: Annotator, token: str, reason: str = Skip.Reason.UNKNOWN_EXPRESSION, now: datetime | None = None
) -> Submission:
    """Record that the annotator passed over their current item; a regular item goes back to the pool.

    The assignment stays (as skipped), so the annotator is never given that item again. Practice
    items and attention checks can be skipped like any item (the page must not tell them apart): a
    skipped check counts as failed (``journey.training_result``, ``dashboard``). Whether the worker
    skipped more than the campaign allows is ``journey.next_step``'s question.
    """
    now = now or timezone.now()
    if reason not in dict(Skip.Reason.choices):
        raise ValueError(f"not a skip reason: {reason!r}")
    annotator.__dict__.pop("_progress", None)  # journey.progress kept for this request: it changes now
    with transaction.atomic():
        assignment = _locked_assignment(annotator, token)
        if assignment is None:
            return Submission(None, errors={"token": NOT_YOURS})
        if assignment.status == Assignment.Status.SKIPPED:
            return Submission(None, repeated=True, skip=assignment.skip)
        if reason_refused := not_current(assignment):
            return Submission(None, errors={"token": reason_refused})
        if assignment.status == Assignment.Status.RESERVED and assignment.item.role == Item.Role.REGULAR:
            Item.objects.filter(pk=assignment.item_id, taken__gt=0).update(taken=F("taken") - 1)
        skip = Skip.objects.create(
            assignment=assignment,
            item_id=assignment.item_id,
            annotator=annotator,
            reason=reason,
            seconds=(now - assignment.reserved_at).total_seconds(),
        )
        assignment.status = Assignment.Status.SKIPPED
        assignment.save(update_fields=["status"])
    return Submission(None, skip=skip)


def claim_check_item(annotator: Annotator, role: str, now: datetime | None = None) -> Assignment | None:
    """The annotator's current training or attention item of ``role``, or the next unanswered one.

    Check items are shown to every annotator, so they neither count towards the campaign's N
    (``taken`` is left alone) nor towards ``max_items_per_annotator``. A timed-out reservation of
    a check item is simply renewed. None when the annotator has answered every item of ``role``.
    """
    if role not in (Item.Role.TRAINING, Item.Role.ATTENTION):
        raise ValueError(f"not a check role: {role!r}")
    now = now or timezone.now()
    expires = now + timedelta(minutes=annotator.campaign.reservation_minutes)
    mine = annotator.assignments.filter(item__role=role).exclude(
        status__in=[Assignment.Status.SUBMITTED, Assignment.Status.SKIPPED]
    )
    current = mine.filter(status=Assignment.Status.RESERVED, expires_at__gte=now)
    if current := with_item_shown(current).first():
        return current
    try:
        with transaction.atomic():
            stale = with_item_shown(mine).order_by("item__order_key").first()
            if stale is not None:
                stale.status, stale.expires_at = Assignment.Status.RESERVED, expires
                stale.save(update_fields=["status", "expires_at"])
                return stale
            item = (
                items_shown(Item.objects.filter(campaign=annotator.campaign, role=role))
                .exclude(assignments__annotator=annotator)
                .order_by("order_key")
                .first()
            )
            if item is None:
                return None
            return Assignment.objects.create(item=item, annotator=annotator, expires_at=expires)
    except IntegrityError:
        # A second request of the same annotator reserved something first: one item at a time.
        return current_assignment(annotator, now)


def end_training(annotator: Annotator, passed: bool) -> None:
    """Record the practice result; a worker who did not pass is screened out (not completed)."""
    Annotator.objects.filter(pk=annotator.pk, status=Annotator.Status.ACTIVE).update(training_passed=passed)
    annotator.training_passed = passed
    if not passed:
        screen_out(annotator, Annotator.ScreenOut.PRACTICE)


def screen_out(annotator: Annotator, reason: str) -> None:
    """End an active worker's study with the screen-out code (never the completion code), saying why."""
    if Annotator.objects.filter(pk=annotator.pk, status=Annotator.Status.ACTIVE).update(
        status=Annotator.Status.SCREENED_OUT, screen_out_reason=reason
    ):
        annotator.status, annotator.screen_out_reason = Annotator.Status.SCREENED_OUT, reason


def complete(annotator: Annotator, now: datetime | None = None) -> None:
    """The annotator earned the completion code (the caller checked the campaign's minimum)."""
    now = now or timezone.now()
    if Annotator.objects.filter(pk=annotator.pk, status=Annotator.Status.ACTIVE).update(
        status=Annotator.Status.COMPLETED, completed_at=now
    ):
        annotator.status, annotator.completed_at = Annotator.Status.COMPLETED, now


def simulate_ratings(campaign: Campaign, panel_size: int = 8, seed: int = 0, leave_room: int = 2) -> int:
    """Add simulated annotators' ratings (flagged ``simulated``), leaving ``leave_room`` per item for people."""
    from annotation.simulation import answer, panel, seconds_per_item

    rng = random.Random(f"{campaign.seed}:{seed}")
    pace = random.Random(f"{campaign.seed}:{seed}:seconds")
    people = []
    for person in panel(panel_size, seed):
        annotator = enter_campaign(campaign, platform=Annotator.Platform.GENERIC, external_id=person.name)
        Annotator.objects.filter(pk=annotator.pk).update(
            simulated=True, consented_at=timezone.now(), training_passed=True
        )
        people.append((person, annotator))
    stored, busy = 0, True
    while busy:
        # Round robin, like people working side by side, so every item gets different raters.
        busy = False
        for person, annotator in people:
            limit = max(1, campaign.ratings_per_item - leave_room)
            assignment = claim_next_item(annotator, limit=limit, per_worker_cap=False)
            if assignment is None:
                continue
            busy = True
            truth = _reference_score(assignment.item)
            # Answered as long after the item was shown as the person takes to read and rate it.
            answered = assignment.reserved_at + timedelta(seconds=seconds_per_item(person, pace))
            if submit_rating(annotator, str(assignment.token), answer(person, truth, rng), now=answered).rating:
                stored += 1
    return stored


def _reference_score(item: Item) -> float:
    """The score a simulated annotator aims at: the sentence's, else the compound's, else the middle."""
    for value in (getattr(item.sentence, "token_score", None), item.compound.token_score, item.compound.type_score):
        if value is not None:
            return value
    return 2.5
