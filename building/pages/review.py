"""What the review pages show, as queries: the queue, a compound's sentences with counts, a page of variants.

A compound of the public data has about a hundred variants per sentence, so its review page shows the
sentences with their counts and one page of the filtered variants at a time (``VARIANTS_PER_PAGE``),
in sentence order then probe-kind order, ordered in the database. Every query here is one query,
whatever the compound's size.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms
from django.core.paginator import Page, Paginator
from django.db.models import Case, Count, Exists, IntegerField, OuterRef, Prefetch, Q, Value, When

from building.models import VariantChange
from datasets import vocabulary
from datasets.forms import CollectionLanguageFilter, collection_choices, language_choices
from datasets.models import Compound, Sentence, Variant
from datasets.views import SENTENCE_KIND_ORDER, VARIANT_KIND_ORDER

COMPOUNDS_PER_PAGE = 50
# About 2.5 KB of HTML a row: a first screen stays far under 200 KB whatever the compound.
VARIANTS_PER_PAGE = 30
COMPOUND_ORDER = ["collection__slug", "language", "key"]
# Curators say "pending" for what generation left undecided.
STATUS_FILTERS = {
    "pending": vocabulary.GENERATED,
    "approved": vocabulary.APPROVED,
    "edited": vocabulary.EDITED,
    "rejected": vocabulary.REJECTED,
}
STATUS_LABELS = {status: label for label, status in STATUS_FILTERS.items()}
FLAGGED = ~Q(flags=[])


def status_counts(path: str = "") -> dict[str, Count]:
    """Variants counted by status (flagged: pending with flags), as aggregates over ``path`` to the variants."""
    prefix = f"{path}__" if path else ""
    variant = path or "id"
    status = f"{prefix}status"
    pending = Q(**{status: vocabulary.GENERATED})
    return {
        "total": Count(variant),
        "pending": Count(variant, filter=pending),
        "flagged": Count(variant, filter=pending & ~Q(**{f"{prefix}flags": []})),
        "approved": Count(variant, filter=Q(**{status: vocabulary.APPROVED})),
        "edited": Count(variant, filter=Q(**{status: vocabulary.EDITED})),
        "rejected": Count(variant, filter=Q(**{status: vocabulary.REJECTED})),
    }


class QueueFilterForm(CollectionLanguageFilter):
    """The GET filters of the review queue; an invalid field is ignored."""

    pending = forms.BooleanField(required=False, label="Has pending")
    flagged = forms.BooleanField(required=False, label="Has flagged")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["collection"].choices = collection_choices()
        self.fields["language"].choices = language_choices("Any language")

    def filter(self, queryset):
        queryset = super().filter(queryset)
        data = self.cleaned_data
        if data.get("pending"):
            queryset = queryset.filter(pending__gt=0)
        if data.get("flagged"):
            queryset = queryset.filter(flagged__gt=0)
        return queryset


class VariantFilterForm(forms.Form):
    """The GET filters of a compound's review page (and the sentence it is narrowed to); invalid fields are ignored."""

    status = forms.ChoiceField(
        required=False, choices=[("", "Any status")] + [(name, name.capitalize()) for name in STATUS_FILTERS]
    )
    kind = forms.ChoiceField(
        required=False, label="Probe kind", choices=[("", "Any kind"), *vocabulary.VARIANT_KIND_CHOICES]
    )
    flagged = forms.BooleanField(required=False, label="Flagged only")
    sentence = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def clean_flagged(self) -> bool:
        return bool(self.cleaned_data.get("flagged"))

    @property
    def values(self) -> dict:
        self.is_valid()
        return {name: value for name, value in self.cleaned_data.items() if value}

    def variant_q(self, default_status: str = "") -> Q:
        """The status, kind and flag filters (not the sentence) as a condition on variants."""
        values = self.values
        q = Q()
        if status := values.get("status", default_status):
            q &= Q(status=STATUS_FILTERS[status])
        if kind := values.get("kind"):
            q &= Q(kind=kind)
        if values.get("flagged"):
            q &= FLAGGED
        return q

    def filter(self, queryset):
        queryset = queryset.filter(self.variant_q())
        if sentence := self.values.get("sentence"):
            queryset = queryset.filter(sentence_id=sentence)
        return queryset

    def query(self, keep_sentence: bool = True, **extra) -> str:
        """The valid filters (and ``extra``, e.g. a page) as a query string, to come back to the same view."""
        values = {name: 1 if value is True else value for name, value in self.values.items()}
        if not keep_sentence:
            values.pop("sentence", None)
        return urlencode(values | {name: value for name, value in extra.items() if value})


def queue_compounds():
    """Compounds that have variants, with their variants counted by status: one query."""
    return (
        Compound.objects.select_related("collection")
        .annotate(**status_counts("sentences__variants"))
        .filter(total__gt=0)
        .order_by(*COMPOUND_ORDER)
    )


def compounds_with(condition: Q):
    matching = Variant.objects.filter(condition, sentence__compound=OuterRef("pk"))
    return Compound.objects.filter(Exists(matching))


def compounds_with_pending():
    return compounds_with(Q(status=vocabulary.GENERATED)).order_by(*COMPOUND_ORDER)


def neighbour_compound(compound: Compound, condition: Q, forward: bool = True) -> Compound | None:
    """The next (or previous) compound in queue order with a variant matching ``condition``, wrapping round."""
    slug, language, key = compound.collection.slug, compound.language, compound.key
    if forward:
        beyond = (
            Q(collection__slug__gt=slug)
            | Q(collection__slug=slug, language__gt=language)
            | Q(collection__slug=slug, language=language, key__gt=key)
        )
        order = COMPOUND_ORDER
    else:
        beyond = (
            Q(collection__slug__lt=slug)
            | Q(collection__slug=slug, language__lt=language)
            | Q(collection__slug=slug, language=language, key__lt=key)
        )
        order = [f"-{field}" for field in COMPOUND_ORDER]
    others = compounds_with(condition).exclude(pk=compound.pk)
    # One query: those beyond this compound first, then the rest (wrapping round).
    return (
        others.annotate(wrapped=Case(When(beyond, then=Value(0)), default=Value(1))).order_by("wrapped", *order).first()
    )


def changes_prefetch() -> Prefetch:
    return Prefetch("changes", queryset=VariantChange.objects.select_related("user").order_by("-at", "-id"))


def _position(field: str, order: dict[str, int]) -> Case:
    whens = [When(**{field: kind}, then=Value(position)) for kind, position in order.items()]
    return Case(*whens, default=Value(99), output_field=IntegerField())


def compound_sentences(compound: Compound, filters: VariantFilterForm) -> list[Sentence]:
    """The compound's sentences in display order, each with its variants counted by status and by the filters."""
    counts = (
        Variant.objects.filter(sentence__compound=compound)
        .values("sentence_id")
        .annotate(**status_counts(), matching=Count("id", filter=filters.variant_q()))
        .order_by()
    )
    by_sentence = {row.pop("sentence_id"): row for row in counts}
    sentences = sorted(
        Sentence.objects.filter(compound=compound).order_by(),
        key=lambda s: (SENTENCE_KIND_ORDER.get(s.kind, 99), s.slot, s.pk),
    )
    empty = dict.fromkeys([*status_counts(), "matching"], 0)
    for sentence in sentences:
        sentence.counts = by_sentence.get(sentence.pk, empty)
    return sentences


def total_counts(sentences: list[Sentence]) -> dict[str, int]:
    return {name: sum(s.counts[name] for s in sentences) for name in status_counts()}


def compound_counts(compound: Compound) -> dict[str, int]:
    return Variant.objects.filter(sentence__compound=compound).order_by().aggregate(**status_counts())


def matching_count(sentences: list[Sentence], filters: VariantFilterForm) -> int:
    """How many variants the filters let through, from the sentences' counts (no query)."""
    narrowed = filters.values.get("sentence")
    return sum(s.counts["matching"] for s in sentences if narrowed in (None, s.pk))


def variant_page(compound: Compound, filters: VariantFilterForm, number, count: int) -> Page:
    """One page of the compound's filtered variants, in sentence order then probe-kind order.

    ``count`` is how many match (``matching_count``), which the paginator would otherwise query for.
    """
    variants = (
        filters.filter(Variant.objects.filter(sentence__compound=compound))
        .order_by(
            _position("sentence__kind", SENTENCE_KIND_ORDER),
            "sentence__slot",
            "sentence_id",
            _position("kind", VARIANT_KIND_ORDER),
            "rank",
            "isolated",
            "pk",
        )
        .prefetch_related(changes_prefetch())
    )
    paginator = Paginator(variants, VARIANTS_PER_PAGE)
    paginator.count = count  # a cached property: set, it is not queried
    return paginator.get_page(number)
