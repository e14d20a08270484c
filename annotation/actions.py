"""Every write of an annotation campaign: entering, claiming items, submitting ratings.

Correct under concurrent requests: item rows are claimed with ``SELECT … FOR UPDATE SKIP
LOCKED`` on PostgreSQL (SQLite serialises writers with IMMEDIATE transactions), the
``taken`` counter only moves under a conditional UPDATE, and the database refuses a second
assignment or rating of one item for one annotator.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Annotator, Assignment, Campaign, Item, Rating, SuggestedParaphrase
from annotation.protocol import Answers
from datasets.models import Compound, Sentence
from datasets.vocabulary import NATURALISTIC

CLAIM_ATTEMPTS = 5


def add_items(campaign: Campaign, targets: list, role: str = Item.REGULAR) -> list[Item]:
    """Add sentences (token level) or compounds (type level) in a seeded random order."""
    start = campaign.items.count()
    order = list(range(start, start + len(targets)))
    random.Random(f"{campaign.seed}:{start}").shuffle(order)
    items = []
    for key, target in zip(order, targets, strict=True):
        if campaign.level == Campaign.TOKEN:
            items.append(
                Item(campaign=campaign, compound_id=target.compound_id, sentence=target, role=role, order_key=key)
            )
        else:
            items.append(Item(campaign=campaign, compound=target, role=role, order_key=key))
    return Item.objects.bulk_create(items)


def item_targets(campaign: Campaign, compound_class: str | None = None) -> list:
    """What ``add_items`` should add: sentences (token level) or compounds (type level) not yet in."""
    compounds = Compound.objects.filter(collection=campaign.collection, language=campaign.language)
    if compound_class:
        compounds = compounds.filter(compositionality_class=compound_class)
    if campaign.level == Campaign.TOKEN:
        taken = Item.objects.filter(campaign=campaign, sentence__isnull=False).values("sentence_id")
        return list(
            Sentence.objects.filter(compound__in=compounds, kind=NATURALISTIC, available=True)
            .exclude(id__in=taken)
            .order_by("compound__key", "slot", "id")
        )
    taken = Item.objects.filter(campaign=campaign, sentence__isnull=True).values("compound_id")
    return list(compounds.exclude(id__in=taken).order_by("key", "id"))


def create_campaign(
    campaign: Campaign, *, created_by=None, item_class: str | None = None, targets: list | None = None
) -> tuple[Campaign, list[Item]]:
    """Save a new campaign with the chosen sentences/compounds, or every available one in scope."""
    with transaction.atomic():
        campaign.created_by = created_by
        campaign.save()
        items = add_items(campaign, targets if targets is not None else item_targets(campaign, item_class))
    return campaign, items


def enter_campaign(
    campaign: Campaign,
    *,
    user=None,
    platform: str = Annotator.LOCAL,
    external_id: str = "",
    study_id: str = "",
    session_id: str = "",
    assignment_id: str = "",
) -> Annotator:
    """The campaign's annotator for this account or external id: the same one on every visit."""
    if user is None and not external_id:
        raise ValueError("an annotator needs an account or an external id")
    lookup = {"user": user} if user is not None else {"platform": platform, "external_id": external_id}
    defaults = {"platform": platform, "study_id": study_id, "session_id": session_id, "assignment_id": assignment_id}
    try:
        with transaction.atomic():
            annotator, _ = Annotator.objects.get_or_create(campaign=campaign, **lookup, defaults=defaults)
    except IntegrityError:
        # Two first visits at once: the other request created it.
        annotator = Annotator.objects.get(campaign=campaign, **lookup)
    return annotator


def release_expired(campaign: Campaign, now: datetime | None = None) -> int:
    """Give back items whose reservation timed out; returns how many were released."""
    now = now or timezone.now()
    released = 0
    stale = Assignment.objects.filter(item__campaign=campaign, status=Assignment.RESERVED, expires_at__lt=now)
    for assignment_id, item_id in stale.values_list("id", "item_id"):
        with transaction.atomic():
            # Only the request that flips the status gives the item back.
            if Assignment.objects.filter(id=assignment_id, status=Assignment.RESERVED).update(
                status=Assignment.EXPIRED
            ):
                Item.objects.filter(id=item_id, taken__gt=0).update(taken=F("taken") - 1)
                released += 1
    return released


def claim_next_item(annotator: Annotator, now: datetime | None = None, limit: int | None = None) -> Assignment | None:
    """The annotator's current item, or a new one: least-taken first, seeded tie-break.

    None when the annotator reached the campaign's maximum or every item has N ratings
    (or ``limit`` < N, which simulations use to leave room for people).
    """
    campaign = annotator.campaign
    cap = min(limit, campaign.ratings_per_item) if limit is not None else campaign.ratings_per_item
    now = now or timezone.now()
    release_expired(campaign, now)
    current = annotator.assignments.filter(status=Assignment.RESERVED, expires_at__gte=now).select_related("item")
    if assignment := current.first():
        return assignment
    if campaign.max_items_per_annotator is not None:
        done = annotator.assignments.exclude(status=Assignment.EXPIRED).filter(item__role=Item.REGULAR).count()
        if done >= campaign.max_items_per_annotator:
            return None
    for _ in range(CLAIM_ATTEMPTS):
        with transaction.atomic():
            candidates = (
                Item.objects.filter(campaign=campaign, role=Item.REGULAR, taken__lt=cap)
                .exclude(assignments__annotator=annotator)
                .order_by("taken", "order_key")
                .select_for_update(skip_locked=True)
            )
            item = candidates.first()
            if item is None:
                return None
            if not Item.objects.filter(pk=item.pk, taken__lt=cap).update(taken=F("taken") + 1):
                continue
            expires = now + timedelta(minutes=campaign.reservation_minutes)
            return Assignment.objects.create(item=item, annotator=annotator, expires_at=expires)
    return None


@dataclass
class Submission:
    """What happened to a submission: stored, a repeat of a stored one, or refused."""

    rating: Rating | None
    repeated: bool = False
    errors: dict[str, str] = field(default_factory=dict)


def submit_rating(annotator: Annotator, token: str, answers: Answers, now: datetime | None = None) -> Submission:
    """Store one rating for the assignment ``token``; a repeated submission stores nothing new."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            assignment = (
                Assignment.objects.select_for_update()
                .select_related("item__campaign")
                .get(token=token, annotator=annotator)
            )
        except (Assignment.DoesNotExist, ValueError, ValidationError):
            return Submission(None, errors={"token": "This item is not assigned to you."})
        if assignment.status == Assignment.SUBMITTED:
            return Submission(assignment.rating, repeated=True)
        item = assignment.item
        if assignment.status == Assignment.EXPIRED:
            # The reservation timed out; take the item back only if it still needs ratings.
            if not Item.objects.filter(pk=item.pk, taken__lt=item.campaign.ratings_per_item).update(
                taken=F("taken") + 1
            ):
                return Submission(None, errors={"token": "This item timed out and was given to someone else."})
        rating = Rating.objects.create(
            assignment=assignment,
            item=item,
            annotator=annotator,
            head_score=answers.head_score,
            modifier_score=answers.modifier_score,
            compound_score=answers.compound_score,
            seconds=(now - assignment.reserved_at).total_seconds(),
        )
        SuggestedParaphrase.objects.bulk_create(
            SuggestedParaphrase(rating=rating, position=i, text=text) for i, text in enumerate(answers.paraphrases, 1)
        )
        assignment.status, assignment.submitted_at = Assignment.SUBMITTED, now
        assignment.save(update_fields=["status", "submitted_at"])
    return Submission(rating)


def claim_check_item(annotator: Annotator, role: str, now: datetime | None = None) -> Assignment | None:
    """The annotator's current training or attention item of ``role``, or the next unanswered one.

    Check items are shown to every annotator, so they neither count towards the campaign's N
    (``taken`` is left alone) nor towards ``max_items_per_annotator``. A timed-out reservation of
    a check item is simply renewed. None when the annotator has answered every item of ``role``.
    """
    if role not in (Item.TRAINING, Item.ATTENTION):
        raise ValueError(f"not a check role: {role!r}")
    now = now or timezone.now()
    expires = now + timedelta(minutes=annotator.campaign.reservation_minutes)
    mine = annotator.assignments.filter(item__role=role).exclude(status=Assignment.SUBMITTED)
    current = mine.filter(status=Assignment.RESERVED, expires_at__gte=now).select_related("item").first()
    if current is not None:
        return current
    if stale := mine.select_related("item").order_by("item__order_key").first():
        stale.status, stale.expires_at = Assignment.RESERVED, expires
        stale.save(update_fields=["status", "expires_at"])
        return stale
    item = (
        Item.objects.filter(campaign=annotator.campaign, role=role)
        .exclude(assignments__annotator=annotator)
        .order_by("order_key")
        .first()
    )
    if item is None:
        return None
    try:
        with transaction.atomic():
            return Assignment.objects.create(item=item, annotator=annotator, expires_at=expires)
    except IntegrityError:
        # A second request of the same annotator claimed it first.
        return Assignment.objects.select_related("item").get(item=item, annotator=annotator)


def simulate_ratings(campaign: Campaign, panel_size: int = 8, seed: int = 0, leave_room: int = 2) -> int:
    """Add simulated annotators' ratings (flagged ``simulated``), leaving ``leave_room`` per item for people."""
    from annotation.simulation import answer, panel

    rng = random.Random(f"{campaign.seed}:{seed}")
    people = []
    for person in panel(panel_size, seed):
        annotator = enter_campaign(campaign, platform=Annotator.GENERIC, external_id=person.name)
        Annotator.objects.filter(pk=annotator.pk).update(
            simulated=True, consented_at=timezone.now(), training_passed=True
        )
        people.append((person, annotator))
    stored, busy = 0, True
    while busy:
        # Round robin, like people working side by side, so every item gets different raters.
        busy = False
        for person, annotator in people:
            assignment = claim_next_item(annotator, limit=max(1, campaign.ratings_per_item - leave_room))
            if assignment is None:
                continue
            busy = True
            truth = _reference_score(assignment.item)
            if submit_rating(annotator, str(assignment.token), answer(person, truth, rng)).rating:
                stored += 1
    return stored


def _reference_score(item: Item) -> float:
    """The score a simulated annotator aims at: the sentence's, else the compound's, else the middle."""
    for value in (getattr(item.sentence, "token_score", None), item.compound.token_score, item.compound.type_score):
        if value is not None:
            return value
    return 2.5
