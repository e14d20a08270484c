"""The rating cycle's reads: what the page shows of an item, and the queries every rating runs.

Every submit and every next item of a study reads the session's annotator with its campaign, the
submitted assignment (locked) and the next free item (locked, passing over those other requests
hold). They are compiled once per process (``core.prepared``): Django would compile each anew on
every request, at more CPU than PostgreSQL spends running them. Reads only: writes are actions.
"""

from __future__ import annotations

import uuid

from django.db.models import Case, F, FloatField, QuerySet, Value, When
from django.db.models.functions import Cast, Sqrt

from annotation import allocation
from annotation.models import Annotator, Assignment, Item
from core.prepared import Prepared

# What the rating page shows of an item and a simulated annotator reads of it: a claimed or current
# item is loaded with these columns of the item, its compound and its sentence, not the whole rows
# (a compound row is wide: scores, frequencies, the gold synonym's evidence as JSON).
ITEM_SHOWN = (
    "campaign",
    "role",
    "compound",
    "compound__text",
    "compound__head",
    "compound__modifier",
    "compound__token_score",
    "compound__type_score",
    "sentence",
    "sentence__text",
    "sentence__span_start",
    "sentence__span_end",
    "sentence__token_score",
)


def items_shown(items: QuerySet[Item]) -> QuerySet[Item]:
    """``items`` with the compound and sentence joined, as the rating page shows them (``ITEM_SHOWN``)."""
    return items.select_related("compound", "sentence").only(*ITEM_SHOWN)


def with_item_shown(assignments: QuerySet[Assignment]) -> QuerySet[Assignment]:
    """``assignments`` with their items joined, as the rating page shows them (``ITEM_SHOWN``)."""
    own = [f.name for f in Assignment._meta.concrete_fields]
    return assignments.select_related("item__compound", "item__sentence").only(
        *own, *(f"item__{name}" for name in ITEM_SHOWN)
    )


# The session's annotator with its campaign: the first read of every request of a study.
ANNOTATOR_WITH_CAMPAIGN = Prepared(
    lambda pk, slug: Annotator.objects.select_related("campaign").filter(pk=pk, campaign__slug=slug), (int, str)
)

# The submitted assignment with its item, locked, and the next free item with what the page shows.
LOCKED_ASSIGNMENT = Prepared(
    lambda token, annotator: (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("item")
        .filter(token=token, annotator=annotator)
    ),
    (uuid.UUID, int),
)
FREE_ITEM = Prepared(
    lambda campaign, cap, annotator: (
        items_shown(Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR, taken__lt=cap))
        .exclude(assignments__annotator=annotator)
        .order_by("taken", "order_key")
        .select_for_update(skip_locked=True, of=("self",))[:1]
    ),
    (int, int, int),
)

# The adaptive allocation's next item (``annotation.allocation``): first every item below the minimum,
# fewest taken first; then the open item with the widest interval. An item with ratings still pending
# is ranked by the width it is expected to have once they arrive (the posterior's spread shrinks as
# 1/sqrt(ratings + prior + 1)), so a hundred workers arriving at once do not all get the same wide item.
# Ties by fewest taken, then the seeded order.
BELOW_MINIMUM = 1000.0
_EXPECTED_WIDTH = F("interval_width") * Sqrt(
    (Cast("rating_count", FloatField()) + Value(allocation.PRIOR + 1))
    / (Cast("taken", FloatField()) + Value(allocation.PRIOR + 1))
)
ADAPTIVE_FREE_ITEM = Prepared(
    lambda campaign, cap, n_min, annotator: (
        items_shown(Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR, settled=False, taken__lt=cap))
        .exclude(assignments__annotator=annotator)
        .order_by(
            # One expression, so that n_min is one parameter of the prepared SQL: below the minimum an item's
            # key is BELOW_MINIMUM less its count (above any width of the 0-5 scale), else its expected width.
            Case(
                When(taken__lt=n_min, then=Value(BELOW_MINIMUM) - Cast("taken", FloatField())),
                default=_EXPECTED_WIDTH,
                output_field=FloatField(),
            ).desc(nulls_last=True),
            "taken",
            "order_key",
        )
        .select_for_update(skip_locked=True, of=("self",))[:1]
    ),
    (int, int, int, int),
)


def free_item(campaign, cap: int, annotator_id: int) -> Item | None:
    """The next free regular item for an annotator, locked, under the campaign's allocation (None: none is free)."""
    if campaign.adaptive:
        return ADAPTIVE_FREE_ITEM.first(campaign.pk, cap, min(campaign.min_ratings_per_item, cap), annotator_id)
    return FREE_ITEM.first(campaign.pk, cap, annotator_id)


def item_sentences(item: Item) -> list:
    """The sentence of a token-level item, or the compound's available naturalistic sentences (at most three):
    what a worker is shown of an item, and what a machine annotator is asked about."""
    if item.sentence_id:
        return [item.sentence]
    return list(item.compound.sentences.filter(kind="naturalistic", available=True).order_by("slot")[:3])
