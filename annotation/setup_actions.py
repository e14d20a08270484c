"""Every write of a curator setting a campaign up: items, settings, status, checks, examples, thresholds.

The crowd's writes (enrolment, claims, ratings, skips) are ``annotation.actions``. Views, the API,
the admin and the commands call these; none of them saves a model itself.
"""

from __future__ import annotations

import random

from django.db import transaction
from django.db.models import F

from annotation.allocation_actions import refresh_intervals
from annotation.curate.study_setup import item_compound_texts, item_targets
from annotation.examples import gives_away
from annotation.models import Campaign, FilterPolicy, Item, QualityPolicy, WorkedExample
from datasets.models import Compound, Sentence

CHECK_ROLES = (Item.Role.TRAINING, Item.Role.ATTENTION)
GOLD_FIELDS = ("gold_head", "gold_modifier", "gold_compound")
# The settings the adaptive rule's decisions depend on.
ALLOCATION_FIELDS = ("allocation", "ratings_per_item", "min_ratings_per_item", "precision", "precision_of")


class SetupError(ValueError):
    """A setup change that would break the campaign; the message says why."""


def items_changed(campaign: Campaign) -> None:
    """Record that a campaign's items were added, removed or changed role: counts kept under the old version go stale."""
    Campaign.objects.filter(pk=campaign.pk).update(items_version=F("items_version") + 1)
    campaign.refresh_from_db(fields=["items_version"])


def add_items(campaign: Campaign, targets: list, role: str = Item.Role.REGULAR) -> list[Item]:
    """Add sentences (token level) or compounds (type level) in a seeded random order."""
    start = campaign.items.count()
    order = list(range(start, start + len(targets)))
    random.Random(f"{campaign.seed}:{start}").shuffle(order)
    items = []
    for key, target in zip(order, targets, strict=True):
        if campaign.level == Campaign.Level.TOKEN:
            items.append(
                Item(campaign=campaign, compound_id=target.compound_id, sentence=target, role=role, order_key=key)
            )
        else:
            items.append(Item(campaign=campaign, compound=target, role=role, order_key=key))
    created = Item.objects.bulk_create(items)
    items_changed(campaign)
    return created


def create_campaign(
    campaign: Campaign, *, created_by=None, item_class: str | None = None, targets: list | None = None
) -> tuple[Campaign, list[Item]]:
    """Save a new campaign with the chosen sentences/compounds, or every available one in scope."""
    with transaction.atomic():
        campaign.created_by = created_by
        campaign.save()
        items = add_items(campaign, targets if targets is not None else item_targets(campaign, item_class))
    return campaign, items


def add_check_item(campaign: Campaign, target: Sentence | Compound, role: str, gold: dict, feedback: str = "") -> Item:
    """A practice or attention item with its gold answers; a regular item nobody was given yet may become one."""
    if role not in CHECK_ROLES:
        raise SetupError(f"not a check role: {role!r}")
    lookup = {"sentence": target} if campaign.level == Campaign.Level.TOKEN else {"compound": target, "sentence": None}
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)  # one addition at a time: order keys
        item = Item.objects.filter(campaign=campaign, **lookup).first()
        if item is not None:
            if item.role != Item.Role.REGULAR:
                raise SetupError(f"{item.compound.text} is already a {item.get_role_display().lower()} item.")
            if item.assignments.exists():
                raise SetupError(f"{item.compound.text} was already given to workers as an item to rate.")
            item.role = role
        else:
            (item,) = add_items(campaign, [target], role=role)
        for name in GOLD_FIELDS:
            setattr(item, name, gold.get(name))
        item.feedback = feedback if role == Item.Role.TRAINING else ""
        item.save(update_fields=["role", *GOLD_FIELDS, "feedback"])
        items_changed(campaign)
    return item


def update_check_item(item: Item, gold: dict, feedback: str = "") -> Item:
    for name in GOLD_FIELDS:
        setattr(item, name, gold.get(name))
    item.feedback = feedback if item.role == Item.Role.TRAINING else ""
    item.save(update_fields=[*GOLD_FIELDS, "feedback"])
    return item


def remove_check_item(item: Item) -> None:
    """Delete a check item nobody answered (answers to it are a record, and its gold judged them)."""
    if item.role not in CHECK_ROLES:
        raise SetupError("Only practice and attention items are removed here.")
    if item.ratings.exists():
        raise SetupError(f"Workers answered {item.compound.text}: it stays, so that their answers keep their gold.")
    item.delete()
    items_changed(item.campaign)


def save_worked_example(example: WorkedExample) -> WorkedExample:
    if gives_away(example.compound, item_compound_texts(example.campaign)):
        raise SetupError(f"{example.compound} is rated in this campaign: the example would give its answers away.")
    if example.position is None or not example.pk:
        last = example.campaign.worked_examples.order_by("-position").values_list("position", flat=True).first()
        example.position = (last or 0) + 1
    example.save()
    return example


def remove_worked_example(example: WorkedExample) -> None:
    example.delete()


def save_campaign(campaign: Campaign) -> Campaign:
    """A campaign's edited settings (the form checked them; the fields that fix its items are not editable).

    When the allocation's settings change, the items' intervals and the adaptive rule's decisions are
    made afresh (a settled item opens again when the precision asked for is now finer).
    """
    before = Campaign.objects.filter(pk=campaign.pk).values(*ALLOCATION_FIELDS).first()
    with transaction.atomic():
        campaign.save()
        if before != {name: getattr(campaign, name) for name in ALLOCATION_FIELDS}:
            refresh_intervals(campaign)
    return campaign


def add_missing_items(campaign: Campaign, item_class: str | None = None, chosen: list | None = None) -> list[Item]:
    """The items of the campaign's scope (of one class, or all; or those ``chosen``) not yet in it.

    One addition at a time: order keys follow the items already in, and another curator may have
    added some of the chosen ones meanwhile.
    """
    with transaction.atomic():
        Campaign.objects.select_for_update().get(pk=campaign.pk)
        missing = item_targets(campaign, item_class)
        if chosen is not None:
            wanted = {target.pk for target in chosen}
            missing = [target for target in missing if target.pk in wanted]
        return add_items(campaign, missing)


def change_status(campaign: Campaign, status: str) -> Campaign:
    """Open, pause, close or return to draft (only before anyone has entered: people's work is paused or closed)."""
    if status not in Campaign.Status.values:
        raise SetupError(f"not a campaign status: {status!r}")
    if status == Campaign.Status.DRAFT and campaign.status != status and (entered := campaign.annotators.count()):
        raise SetupError(
            f"{entered} annotator{'s' if entered != 1 else ''} entered {campaign.name}: a campaign people have "
            "worked on is paused or closed, not returned to draft"
        )
    Campaign.objects.filter(pk=campaign.pk).update(status=status)
    campaign.status = status
    return campaign


def save_quality_policy(policy: QualityPolicy) -> QualityPolicy:
    """The campaign's quality thresholds: the dashboard, reports and payments read them at once."""
    policy.save()
    return policy


def create_filter_policy(policy: FilterPolicy) -> FilterPolicy:
    """A saved rule for leaving annotators out of reports and releases."""
    policy.save()
    return policy
