"""The writes of the adaptive allocation and of a campaign's budget: an item's interval after each rating, and
whether a claim may still spend.

The stopping rule itself is pure (``annotation.allocation``). Here its inputs are read and its decision
stored on the item (``rating_count``, ``interval_low``/``high`` of the compound score, ``interval_width``
the widest watched interval, ``settled``), under the item's row lock, so that two ratings of one item
submitted at once are both counted. A budget is checked under the campaign's row lock, so that workers
claiming at once never spend past it.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Sum

from annotation import allocation
from annotation.models import Campaign, Item, Rating

QUESTIONS = ("compound_score", "head_score", "modifier_score")


def watched_questions(campaign: Campaign) -> tuple[str, ...]:
    """The questions whose intervals must be narrow before an item stops."""
    return QUESTIONS if campaign.precision_of == Campaign.PrecisionOf.ALL else QUESTIONS[:1]


def refresh_interval(campaign: Campaign, item_id: int) -> None:
    """Recompute one item's interval and whether it is settled, from its ratings (inside the caller's transaction)."""
    Item.objects.select_for_update().filter(pk=item_id).values_list("pk", flat=True).first()  # the row lock
    rows = list(Rating.objects.filter(item_id=item_id).values_list(*QUESTIONS))
    Item.objects.filter(pk=item_id).update(**_decision(campaign, rows))


def refresh_intervals(campaign: Campaign) -> int:
    """Every regular item's interval and decision afresh: after the allocation settings change. Returns the items."""
    policy = campaign.stopping_policy() if campaign.adaptive else None
    by_item: dict[int, list[tuple]] = {pk: [] for pk in _regular(campaign).values_list("pk", flat=True)}
    for item_id, *scores in Rating.objects.filter(item_id__in=list(by_item)).values_list("item_id", *QUESTIONS):
        by_item[item_id].append(tuple(scores))
    with transaction.atomic():
        for item_id, rows in by_item.items():
            Item.objects.filter(pk=item_id).update(**_decision(campaign, rows, policy))
    return len(by_item)


def _decision(campaign: Campaign, rows: list[tuple], policy: allocation.Policy | None = None) -> dict:
    """The columns an item's ratings decide: their count, the compound's interval, the widest watched one, settled."""
    policy = policy or campaign.stopping_policy()
    if not rows:
        return {
            "rating_count": 0,
            "interval_low": None,
            "interval_high": None,
            "interval_width": None,
            "settled": False,
        }
    watched = watched_questions(campaign)
    columns = {question: allocation.counts(row[i] for row in rows) for i, question in enumerate(QUESTIONS)}
    compound = allocation.posterior(columns["compound_score"], policy.confidence, policy.prior)
    widest = allocation.item_width((columns[q] for q in watched), policy)
    return {
        "rating_count": len(rows),
        "interval_low": compound.low,
        "interval_high": compound.high,
        "interval_width": widest,
        "settled": campaign.adaptive and allocation.is_done(len(rows), widest, policy),
    }


def budget_allows(campaign: Campaign, more: int = 1) -> bool:
    """Whether ``more`` ratings fit in the campaign's budget, counting live reservations as spent.

    Locks the campaign's row until the caller's transaction ends: claims of a budgeted campaign take
    turns here, so that the sum they compare is the one they leave. Always true without a budget.
    """
    budget = campaign.rating_budget
    if budget is None:
        return True
    Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("pk", flat=True).first()
    return budget_spent(campaign) + more <= budget


def budget_spent(campaign: Campaign) -> int:
    """Regular items' ratings plus their live reservations (what a budget counts)."""
    return _regular(campaign).aggregate(spent=Sum("taken"))["spent"] or 0


def _regular(campaign: Campaign):
    return Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)
