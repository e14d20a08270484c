"""Curation pages: the review queue, and one review page per compound (curators only).

The views translate requests into the actions of ``building.curation``. Every POST works without
JavaScript: it redirects back to the compound's page with its filters, at the variant's anchor. With
``Accept: application/json`` (review.js) it answers with the changed rows re-rendered instead, so the
page is updated in place from the same template.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Case, Count, Exists, OuterRef, Prefetch, Q, Value, When
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from building.curation import approve_unflagged, approve_variant, edit_variant, reject_variant, reset_variant
from building.models import VariantChange
from core.permissions import curator_required
from datasets import vocabulary
from datasets.forms import collection_choices, language_choices
from datasets.models import Compound, Sentence, Variant
from datasets.views import SENTENCE_KIND_ORDER, VARIANT_KIND_ORDER

COMPOUNDS_PER_PAGE = 50
COMPOUND_ORDER = ["collection__slug", "language", "key"]
# Curators say "pending" for what generation left undecided.
STATUS_FILTERS = {
    "pending": vocabulary.GENERATED,
    "approved": vocabulary.APPROVED,
    "edited": vocabulary.EDITED,
    "rejected": vocabulary.REJECTED,
}
STATUS_LABELS = {status: label for label, status in STATUS_FILTERS.items()}
ACTION_DONE = {"approve": "Approved", "reject": "Rejected", "edit": "Edited", "reset": "Back to pending"}
ROW_TEMPLATE = "datasets/review/_variant_row.html"
FLAGGED = ~Q(flags=[])


def sentence_case(message: str) -> str:
    finished = message.rstrip("”’\"')").endswith((".", "!", "?"))
    return message[:1].upper() + message[1:] + ("" if finished else ".")


def wants_json(request: HttpRequest) -> bool:
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


class QueueFilterForm(forms.Form):
    """The GET filters of the review queue; an invalid field is ignored."""

    collection = forms.ChoiceField(required=False)
    language = forms.ChoiceField(required=False)
    pending = forms.BooleanField(required=False, label="Has pending")
    flagged = forms.BooleanField(required=False, label="Has flagged")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["collection"].choices = collection_choices()
        self.fields["language"].choices = language_choices("Any language")

    def filter(self, queryset):
        self.is_valid()
        data = self.cleaned_data
        if collection := data.get("collection"):
            queryset = queryset.filter(collection__slug=collection)
        if language := data.get("language"):
            queryset = queryset.filter(language=language)
        if data.get("pending"):
            queryset = queryset.filter(pending__gt=0)
        if data.get("flagged"):
            queryset = queryset.filter(flagged__gt=0)
        return queryset


class VariantFilterForm(forms.Form):
    """The GET filters of a compound's review page; an invalid field is ignored."""

    status = forms.ChoiceField(
        required=False, choices=[("", "Any status")] + [(name, name.capitalize()) for name in STATUS_FILTERS]
    )
    kind = forms.ChoiceField(
        required=False, label="Probe kind", choices=[("", "Any kind"), *vocabulary.VARIANT_KIND_CHOICES]
    )
    flagged = forms.BooleanField(required=False, label="Flagged only")

    def clean_flagged(self) -> bool:
        return bool(self.cleaned_data.get("flagged"))

    @property
    def values(self) -> dict:
        self.is_valid()
        return {name: value for name, value in self.cleaned_data.items() if value}

    def filter(self, queryset):
        values = self.values
        if status := values.get("status"):
            queryset = queryset.filter(status=STATUS_FILTERS[status])
        if kind := values.get("kind"):
            queryset = queryset.filter(kind=kind)
        if values.get("flagged"):
            queryset = queryset.filter(FLAGGED)
        return queryset

    def query(self) -> str:
        """The valid filters as a query string, to come back to the same view of the page."""
        return urlencode({name: 1 if value is True else value for name, value in self.values.items()})


def queue_compounds():
    """Compounds that have variants, with their variants counted by status: one query."""
    variant = "sentences__variants"
    status = f"{variant}__status"
    pending = Q(**{status: vocabulary.GENERATED})
    return (
        Compound.objects.select_related("collection")
        .annotate(
            total=Count(variant),
            pending=Count(variant, filter=pending),
            flagged=Count(variant, filter=pending & ~Q(**{f"{variant}__flags": []})),
            approved=Count(variant, filter=Q(**{status: vocabulary.APPROVED})),
            edited=Count(variant, filter=Q(**{status: vocabulary.EDITED})),
            rejected=Count(variant, filter=Q(**{status: vocabulary.REJECTED})),
        )
        .filter(total__gt=0)
        .order_by(*COMPOUND_ORDER)
    )


def compounds_with_pending():
    pending = Variant.objects.filter(sentence__compound=OuterRef("pk"), status=vocabulary.GENERATED)
    return Compound.objects.filter(Exists(pending)).order_by(*COMPOUND_ORDER)


def next_pending_compound(compound: Compound) -> Compound | None:
    """The next compound in queue order with pending variants, starting again from the top at the end."""
    slug, language, key = compound.collection.slug, compound.language, compound.key
    after = (
        Q(collection__slug__gt=slug)
        | Q(collection__slug=slug, language__gt=language)
        | Q(collection__slug=slug, language=language, key__gt=key)
    )
    others = compounds_with_pending().exclude(pk=compound.pk)
    # One query: those after this compound first, then those before it.
    return (
        others.annotate(wrapped=Case(When(after, then=Value(0)), default=Value(1)))
        .order_by("wrapped", *COMPOUND_ORDER)
        .first()
    )


def split_flag(flag: str) -> tuple[str, str]:
    """ "agreement: 'uma' before 'aviso' …" -> ("agreement", "'uma' before 'aviso' …")."""
    code, colon, message = flag.partition(":")
    if not colon or " " in code.strip():
        return "", flag
    return code.strip(), message.strip()


def marked_text(variant: Variant) -> str:
    """The variant as a curator edits it: the replacement in [brackets] (an isolated variant as it is)."""
    if variant.isolated or not variant.has_span:
        return variant.text
    before, replacement, after = variant.parts()
    return f"{before}[{replacement}]{after}"


def changes_prefetch() -> Prefetch:
    return Prefetch("changes", queryset=VariantChange.objects.select_related("user").order_by("-at", "-id"))


def decorate(variant: Variant) -> Variant:
    """What the row template shows beyond the model's fields."""
    variant.status_label = STATUS_LABELS.get(variant.status, variant.status)
    variant.flag_items = [split_flag(flag) for flag in variant.flags]
    variant.resolved_flags = (variant.details or {}).get("resolved_flags", [])
    variant.marked_text = marked_text(variant)
    variant.history = list(variant.changes.all())
    return variant


def variant_order(variant: Variant) -> tuple:
    return VARIANT_KIND_ORDER.get(variant.kind, 99), variant.rank, variant.isolated


def compound_counts(compound: Compound) -> dict:
    variants = Variant.objects.filter(sentence__compound=compound).order_by()
    return variants.aggregate(
        total=Count("id"),
        pending=Count("id", filter=Q(status=vocabulary.GENERATED)),
        flagged=Count("id", filter=Q(status=vocabulary.GENERATED) & FLAGGED),
        approved=Count("id", filter=Q(status=vocabulary.APPROVED)),
        edited=Count("id", filter=Q(status=vocabulary.EDITED)),
        rejected=Count("id", filter=Q(status=vocabulary.REJECTED)),
    )


def review_context(compound: Compound, filters: VariantFilterForm, edit_error: dict | None = None) -> dict:
    """Everything the compound's review page shows, in a fixed number of queries."""
    variants = filters.filter(Variant.objects.order_by()).prefetch_related(changes_prefetch())
    sentences = list(
        Sentence.objects.filter(compound=compound).order_by().prefetch_related(Prefetch("variants", queryset=variants))
    )
    sentences.sort(key=lambda s: (SENTENCE_KIND_ORDER.get(s.kind, 99), s.slot))
    filtered = bool(filters.values)
    shown = []
    for sentence in sentences:
        sentence.variant_list = [decorate(x) for x in sorted(sentence.variants.all(), key=variant_order)]
        if sentence.variant_list or not filtered:
            shown.append(sentence)
    kind = filters.values.get("kind", "")
    return {
        "compound": compound,
        "language_name": vocabulary.language_name(compound.language),
        "sentences": shown,
        "counts": compound_counts(compound),
        "filters": filters,
        "filtered": filtered,
        "query": filters.query(),
        "kind_label": dict(vocabulary.VARIANT_KIND_CHOICES).get(kind, ""),
        "next_compound": next_pending_compound(compound),
        "edit_error": edit_error or {},
    }


def render_rows(request: HttpRequest, variants, query: str) -> dict[str, str]:
    """Each variant's row as the page shows it, by id (for review.js to swap in)."""
    return {
        str(variant.pk): render_to_string(ROW_TEMPLATE, {"variant": decorate(variant), "query": query}, request)
        for variant in variants.prefetch_related(changes_prefetch())
    }


def back_to_compound(compound_id: int, query: str, anchor: str = "") -> HttpResponse:
    url = reverse("review_compound", args=[compound_id]) + (f"?{query}" if query else "")
    return redirect(url + (f"#{anchor}" if anchor else ""))


@require_GET
@curator_required
def review_queue(request: HttpRequest) -> HttpResponse:
    """Compounds with their variants counted by status, filtered; each links to its review page."""
    form = QueueFilterForm(request.GET or None)
    compounds = form.filter(queue_compounds()) if form.is_bound else queue_compounds()
    page = Paginator(compounds, COMPOUNDS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "datasets/review/queue.html",
        {
            "form": form,
            "page": page,
            "filtered": form.is_bound and any(request.GET.get(name) for name in form.fields),
            "first_pending": compounds_with_pending().only("id").first(),
        },
    )


@require_GET
@curator_required
def review_compound(request: HttpRequest, pk: int) -> HttpResponse:
    """The compound's sentences, each with its variants to approve, edit, reject or reset."""
    compound = get_object_or_404(Compound.objects.select_related("collection"), pk=pk)
    return render(request, "datasets/review/compound.html", review_context(compound, VariantFilterForm(request.GET)))


@require_POST
@curator_required
def review_variant(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Approve, reject, edit or reset one variant; filters travel in the query string."""
    variant = get_object_or_404(Variant.objects.select_related("sentence__compound__collection"), pk=pk)
    compound = variant.sentence.compound
    filters = VariantFilterForm(request.GET)
    try:
        if action == "approve":
            approve_variant(variant, request.user)
        elif action == "reject":
            reject_variant(variant, request.user, request.POST.get("note", ""))
        elif action == "reset":
            reset_variant(variant, request.user)
        else:
            edit_variant(variant, request.user, request.POST.get("marked_text", ""))
    except ValueError as exc:
        error = sentence_case(str(exc))
        if wants_json(request):
            return JsonResponse({"error": error}, status=400)
        context = review_context(
            compound, filters, {"variant": variant.pk, "text": request.POST.get("marked_text", ""), "error": error}
        )
        return render(request, "datasets/review/compound.html", context, status=400)
    message = f"{ACTION_DONE[action]}: {variant.get_kind_display()} #{variant.rank}."
    if wants_json(request):
        rows = render_rows(request, Variant.objects.filter(pk=variant.pk), filters.query())
        return JsonResponse(
            {"message": message, "status": variant.status, "rows": rows, "counts": compound_counts(compound)}
        )
    messages.success(request, message)
    return back_to_compound(compound.pk, filters.query(), f"variant-{variant.pk}")


@require_POST
@curator_required
def review_approve_unflagged(request: HttpRequest, pk: int) -> HttpResponse:
    """Approve every pending variant without flags (of the filtered kind, if any)."""
    compound = get_object_or_404(Compound, pk=pk)
    filters = VariantFilterForm(request.GET)
    kind = filters.values.get("kind")
    count = approve_unflagged(compound, request.user, kinds=[kind] if kind else None)
    message = f"Approved {count} unflagged pending variant{'s' if count != 1 else ''}."
    if wants_json(request):
        # Every row the page may show: a compound has tens of variants, not thousands.
        variants = filters.filter(Variant.objects.filter(sentence__compound=compound))
        rows = render_rows(request, variants, filters.query())
        return JsonResponse({"message": message, "approved": count, "rows": rows, "counts": compound_counts(compound)})
    messages.success(request, message)
    return back_to_compound(compound.pk, filters.query())
