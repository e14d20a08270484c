"""The rating cycle's reads: what the page shows of an item, and the queries every rating runs.

Every submit and every next item of a study reads the session's annotator with its campaign, the
submitted assignment (locked) and the next free item (locked, passing over those other requests
hold). They are compiled once per process (``core.prepared``): Django would compile each anew on
every request, at more CPU than PostgreSQL spends running them. Reads only: writes are actions.
"""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

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


def item_sentences(item: Item) -> list:
    """The sentence of a token-level item, or the compound's available naturalistic sentences (at most three):
    what a worker is shown of an item, and what a machine annotator is asked about."""
    if item.sentence_id:
        return [item.sentence]
    return list(item.compound.sentences.filter(kind="naturalistic", available=True).order_by("slot")[:3])
