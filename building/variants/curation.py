"""A curator's decisions on variants: approve, edit, reject, reset, and approve the unflagged in bulk.

Each action runs in a transaction, locks the variant row, and writes one ``VariantChange`` with the
reviewable state before and after (``Variant.snapshot()``), the user and the time. A decision sets
``decided_by``/``decided_at``; a reset clears them (the audit row keeps who reset it). An action that
would change nothing (approving an approved variant) writes nothing.

Editing resolves the variant's flags: a curator who rewrote the sentence has dealt with what they
warned about, so the flags move to ``details["resolved_flags"]`` and ``flags`` is emptied. Approving
keeps them: the curator accepted the text as it is, and the warning stays visible. A reset leaves the
text as the curator last left it; the history keeps every earlier text.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from building.models import VariantChange
from datasets import vocabulary
from datasets.formats.workbench_json import unbracket
from datasets.models import Compound, Variant

CURATED_FIELDS = [
    "text",
    "span_start",
    "span_end",
    "span_source",
    "status",
    "flags",
    "details",
    "decided_by",
    "decided_at",
]
MARKUP_EXAMPLE = "John Paul II was an effective [representative] for the catholic church."


def parse_marked_variant(marked_text: str, isolated: bool = False) -> tuple[str, tuple[int, int]]:
    """The variant text without brackets and the span of the replacement they marked. Raises ValueError.

    In a sentence, exactly one pair of [brackets] marks a non-blank replacement; blanks just inside the
    brackets stay outside the span. An isolated variant is the replacement alone: its whole text is
    the span, with or without one pair of brackets around it.
    """
    marked = marked_text.strip()
    if isolated:
        if marked.startswith("[") and marked.endswith("]"):
            marked = marked[1:-1].strip()
        if "[" in marked or "]" in marked:
            raise ValueError("an isolated variant is the replacement alone: give it without [brackets]")
        if not marked:
            raise ValueError("the variant text cannot be empty")
        return marked, (0, len(marked))
    if marked.count("[") != 1 or marked.count("]") != 1 or marked.index("[") > marked.index("]"):
        raise ValueError(f"mark the replacement with exactly one pair of [brackets], as in “{MARKUP_EXAMPLE}”")
    if not marked[marked.index("[") + 1 : marked.index("]")].strip():
        raise ValueError("the [brackets] mark nothing: put the replacement between them")
    text, (start, end) = unbracket(marked)
    while text[start].isspace():
        start += 1
    while text[end - 1].isspace():
        end -= 1
    return text, (start, end)


def check_span(text: str, span: tuple[int, int] | list[int] | None, isolated: bool = False) -> tuple[int, int]:
    """The span as a pair of offsets, if it marks a non-empty part of ``text``. Raises ValueError."""
    if not text.strip():
        raise ValueError("the variant text cannot be empty")
    if span is None:
        if isolated:
            return 0, len(text)
        raise ValueError("give the span of the replacement: [start, end] character offsets")
    start, end = span
    if not 0 <= start < end <= len(text):
        raise ValueError(f"the span [{start}, {end}] must lie within the text (0 to {len(text)}) and not be empty")
    if isolated and (start, end) != (0, len(text)):
        raise ValueError(f"an isolated variant is the replacement alone: its span is [0, {len(text)}]")
    if not text[start:end].strip():
        raise ValueError("the span marks only blanks")
    return start, end


def _lock(variant: Variant) -> None:
    """Re-read what curators change under a row lock, so that ``before`` is what the database holds.

    Only those fields: the cached sentence and compound stay, for the caller to show.
    """
    variant.refresh_from_db(fields=CURATED_FIELDS, from_queryset=Variant.objects.select_for_update())


def _record(variant: Variant, user, action: str, before: dict, note: str = "") -> VariantChange:
    change = VariantChange.objects.create(
        variant=variant, user=user, action=action, before=before, after=variant.snapshot(), note=note[:300]
    )
    if action == VariantChange.Action.RESET:
        variant.decided_by, variant.decided_at = None, None
    else:
        variant.decided_by, variant.decided_at = user, change.at
    return change


def _decide(variant: Variant, user, status: str, action: str, note: str = "") -> Variant:
    _lock(variant)
    if variant.status == status:
        return variant
    before = variant.snapshot()
    variant.status = status
    _record(variant, user, action, before, note)
    variant.save(update_fields=["status", "decided_by", "decided_at"])
    return variant


@transaction.atomic
def approve_variant(variant: Variant, user) -> Variant:
    """The variant is good as generated (or as last edited)."""
    return _decide(variant, user, vocabulary.APPROVED, VariantChange.Action.APPROVE)


@transaction.atomic
def reject_variant(variant: Variant, user, note: str = "") -> Variant:
    """The variant is unusable; ``note`` may say why (kept in the audit row)."""
    return _decide(variant, user, vocabulary.REJECTED, VariantChange.Action.REJECT, note)


@transaction.atomic
def reset_variant(variant: Variant, user) -> Variant:
    """Back to pending (generated): undecided again, so regeneration may replace it."""
    return _decide(variant, user, vocabulary.GENERATED, VariantChange.Action.RESET)


@transaction.atomic
def edit_variant(variant: Variant, user, marked_text: str) -> Variant:
    """Rewrite the variant from bracket markup: "… an effective [representative] for …". Raises ValueError."""
    text, span = parse_marked_variant(marked_text, isolated=variant.isolated)
    return _edit(variant, user, text, span)


@transaction.atomic
def edit_variant_text(variant: Variant, user, text: str, span: tuple[int, int] | list[int] | None) -> Variant:
    """Rewrite the variant from its text and the replacement's [start, end) offsets. Raises ValueError."""
    return _edit(variant, user, text, check_span(text, span, isolated=variant.isolated))


def _edit(variant: Variant, user, text: str, span: tuple[int, int]) -> Variant:
    _lock(variant)
    if (variant.text, variant.span_start, variant.span_end, variant.status) == (text, *span, vocabulary.EDITED):
        return variant
    before = variant.snapshot()
    variant.text, (variant.span_start, variant.span_end) = text, span
    variant.span_source, variant.status = vocabulary.SPAN_FROM_EDIT, vocabulary.EDITED
    if variant.flags:
        variant.details = {
            **variant.details,
            "resolved_flags": [*variant.details.get("resolved_flags", []), *variant.flags],
        }
        variant.flags = []
    _record(variant, user, VariantChange.Action.EDIT, before)
    variant.save(update_fields=CURATED_FIELDS)
    return variant


@transaction.atomic
def approve_unflagged(
    compound: Compound, user, kinds: Iterable[str] | None = None, top_ranked_only: bool = False
) -> int:
    """Approve every pending variant of ``compound`` without flags (only ``kinds`` if given).

    ``top_ranked_only``: of each slot (a sentence's kind, in or out of context) only the variant
    ranked first, and only when it carries no flag: what a curator accepts without reading on
    (the lower ranks are the generator's weaker candidates, left pending for review). Random
    compounds are draws, not a ranking (``vocabulary.RANDOM_KINDS``): each is its own slot. One audit
    row per variant all the same. Returns how many were approved.
    """
    pending = Variant.objects.select_for_update(of=("self",)).filter(
        sentence__compound=compound, status=vocabulary.GENERATED, flags=[]
    )
    if kinds is not None:
        pending = pending.filter(kind__in=list(kinds))
    if top_ranked_only:
        pending = pending.filter(Q(rank=1) | Q(kind__in=vocabulary.RANDOM_KINDS))
    variants = list(pending.order_by("pk"))
    now = timezone.now()
    changes = []
    for variant in variants:
        before = variant.snapshot()
        variant.status, variant.decided_by, variant.decided_at = vocabulary.APPROVED, user, now
        changes.append(
            VariantChange(
                variant=variant, user=user, action=VariantChange.Action.APPROVE, before=before, after=variant.snapshot()
            )
        )
    Variant.objects.bulk_update(variants, ["status", "decided_by", "decided_at"], batch_size=500)
    VariantChange.objects.bulk_create(changes, batch_size=500)
    return len(variants)
