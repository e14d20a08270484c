"""What a curator sets up besides the campaign's own fields: check items, worked examples, quality thresholds.

Writes go through the functions here (views only translate forms); reads for the pages that
show the setup (instructions, dashboard) are here too.
"""

from __future__ import annotations

from django.db import transaction

from annotation.actions import add_items, items_changed
from annotation.analysis.quality import Thresholds
from annotation.examples import Example, campaign_examples, gives_away, presented, split_paraphrases
from annotation.models import Campaign, Item, QualityPolicy, WorkedExample
from datasets.models import Compound, Sentence
from datasets.vocabulary import NATURALISTIC

CHECK_ROLES = (Item.Role.TRAINING, Item.Role.ATTENTION)
GOLD_FIELDS = ("gold_head", "gold_modifier", "gold_compound")


class SetupError(ValueError):
    """A setup change that would break the campaign; the message says why."""


# Quality thresholds.


def campaign_thresholds(campaign: Campaign) -> Thresholds:
    """The campaign's quality thresholds (the defaults when the curator never set them)."""
    policy = QualityPolicy.objects.filter(campaign=campaign).first()
    if policy is None:
        return Thresholds()
    return Thresholds(
        min_median_seconds=policy.min_median_seconds,
        max_same_answer_share=policy.max_same_answer_share,
        max_attention_failures=policy.max_attention_failures,
        min_rho=policy.min_rho,
        min_items=policy.min_items,
        max_skip_share=policy.max_skip_share,
    )


def quality_policy(campaign: Campaign) -> QualityPolicy:
    """The campaign's QualityPolicy row, unsaved with the defaults when it has none."""
    return QualityPolicy.objects.filter(campaign=campaign).first() or QualityPolicy(campaign=campaign)


# Check items: practice (training, with feedback) and attention checks, each with gold answers.


def item_compound_texts(campaign: Campaign) -> set[str]:
    return set(Compound.objects.filter(pk__in=campaign.items.values("compound_id")).values_list("text", flat=True))


def check_targets(campaign: Campaign):
    """What a check item may show: naturalistic sentences (token level) or compounds (type level) of the language."""
    if campaign.level == Campaign.Level.TOKEN:
        return (
            Sentence.objects.filter(compound__language=campaign.language, kind=NATURALISTIC, available=True)
            .exclude(text="")
            .select_related("compound__collection")
            .order_by("compound__text", "compound__collection__slug", "slot", "id")
        )
    return Compound.objects.filter(language=campaign.language).select_related("collection").order_by("text", "id")


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


# Worked examples.


def example_of(row: WorkedExample) -> Example:
    return Example(
        compound=row.compound,
        sentence=row.sentence,
        head_score=row.head_score,
        modifier_score=row.modifier_score,
        compound_score=row.compound_score,
        head_note=row.head_note,
        modifier_note=row.modifier_note,
        compound_note=row.compound_note,
        paraphrases=split_paraphrases(row.paraphrases),
    )


def instruction_examples(campaign: Campaign) -> list[dict]:
    """The worked examples the instructions show, ready for the template (never about one of the campaign's items)."""
    own = [example_of(row) for row in campaign.worked_examples.all()]
    return [presented(e, campaign.language) for e in campaign_examples(own, item_compound_texts(campaign))]


def save_worked_example(example: WorkedExample) -> WorkedExample:
    if gives_away(example.compound, item_compound_texts(example.campaign)):
        raise SetupError(f"{example.compound} is rated in this campaign: the example would give its answers away.")
    if example.position is None or not example.pk:
        last = example.campaign.worked_examples.order_by("-position").values_list("position", flat=True).first()
        example.position = (last or 0) + 1
    example.save()
    return example
