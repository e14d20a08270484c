"""Curation pages: the review queue, and one review page per compound (curators only).

The views translate requests into the actions of ``building.variants.curation``. Every POST works without
JavaScript: it redirects back to the compound's page with its filters and page, at the variant's anchor. With
``Accept: application/json`` (review.js) it answers with the changed rows re-rendered instead, so the
page is updated in place from the same template.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from building.pages.review import (
    COMPOUNDS_PER_PAGE,
    STATUS_LABELS,
    QueueFilterForm,
    VariantFilterForm,
    changes_prefetch,
    compound_counts,
    compound_sentences,
    compounds_with_pending,
    matching_count,
    neighbour_compound,
    queue_compounds,
    total_counts,
    variant_page,
)
from building.variants.curation import approve_unflagged, approve_variant, edit_variant, reject_variant, reset_variant
from core.permissions import curator_required
from datasets import vocabulary
from datasets.models import Compound, Variant

ACTION_DONE = {"approve": "Approved", "reject": "Rejected", "edit": "Edited", "reset": "Back to pending"}
ROW_TEMPLATE = "datasets/review/_variant_row.html"


def sentence_case(message: str) -> str:
    finished = message.rstrip("”’\"')").endswith((".", "!", "?"))
    return message[:1].upper() + message[1:] + ("" if finished else ".")


def wants_json(request: HttpRequest) -> bool:
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


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


def ranking_rows(details: dict) -> list[dict]:
    """Each replaced word's source and score parts as the generator stored them (``details["ranking"]``),
    largest contribution first; empty for a variant ranked before the scoring existed or not ranked."""
    ranking = (details or {}).get("ranking") or {}
    rows = []
    for side in ("modifier", "head"):
        score = ranking.get(side)
        if not isinstance(score, dict):
            continue
        parts = sorted((score.get("parts") or {}).items(), key=lambda item: (-abs(item[1]), item[0]))
        word = (details.get(side) or {}).get("synonym", "")
        rows.append({"side": side, "word": word, "source": score.get("source", ""), "parts": parts,
                     "total": score.get("total")})  # fmt: skip
    return rows


def decorate(variant: Variant) -> Variant:
    """What the row template shows beyond the model's fields."""
    variant.status_label = STATUS_LABELS.get(variant.status, variant.status)
    variant.ranking = ranking_rows(variant.details)
    variant.ranking_total = ((variant.details or {}).get("ranking") or {}).get("total")
    variant.flag_items = [split_flag(flag) for flag in variant.flags]
    variant.resolved_flags = (variant.details or {}).get("resolved_flags", [])
    variant.marked_text = marked_text(variant)
    variant.history = list(variant.changes.all())
    return variant


def review_url(compound_id: int, query: str, anchor: str = "") -> str:
    url = reverse("review_compound", args=[compound_id]) + (f"?{query}" if query else "")
    return url + (f"#{anchor}" if anchor else "")


def page_links(compound: Compound, filters: VariantFilterForm, page: Page) -> dict:
    """Previous and next: the neighbouring page of this compound, else the neighbouring compound, filters kept.

    The compound's neighbours are those with a variant matching the filters (pending ones when no status
    is chosen). The anchors (#first-row, #last-row) tell review.js where j and k go on from.
    """
    links: dict = dict.fromkeys(["next_compound_url", "previous_compound_url"], "")
    condition = filters.variant_q(default_status="pending")
    for name, forward in (("next", True), ("previous", False)):
        neighbour = neighbour_compound(compound, condition, forward)
        links[f"{name}_compound"] = neighbour
        if neighbour is not None:
            links[f"{name}_compound_url"] = review_url(neighbour.pk, filters.query(keep_sentence=False), "first-row")
    if page.has_next():
        links["next_url"] = review_url(compound.pk, filters.query(page=page.next_page_number()), "first-row")
    else:
        links["next_url"] = links["next_compound_url"]
    if page.has_previous():
        number = page.previous_page_number()
        links["previous_url"] = review_url(compound.pk, filters.query(page=number if number > 1 else None), "last-row")
    else:
        links["previous_url"] = links["previous_compound_url"]
    return links


def review_context(compound: Compound, filters: VariantFilterForm, page_number, edit_error: dict | None = None) -> dict:
    """The compound's sentences with counts and one page of its filtered variants, in a fixed number of queries."""
    sentences = compound_sentences(compound, filters)
    page = variant_page(compound, filters, page_number, matching_count(sentences, filters))
    by_pk = {sentence.pk: sentence for sentence in sentences}
    groups: list[dict] = []
    for variant in page.object_list:
        if not groups or groups[-1]["sentence"].pk != variant.sentence_id:
            groups.append({"sentence": by_pk[variant.sentence_id], "variants": []})
        groups[-1]["variants"].append(decorate(variant))
    values = filters.values
    kind = values.get("kind", "")
    return {
        "compound": compound,
        "language_name": vocabulary.language_name(compound.language),
        "sentences": sentences,
        "current_sentence": by_pk.get(values.get("sentence")),
        "groups": groups,
        "page": page,
        "counts": total_counts(sentences),
        "filters": filters,
        "filtered": bool(values),
        # What the neighbouring compounds have: variants matching the filters, or pending ones.
        "neighbours_have": "matching" if set(values) - {"sentence"} else "pending",
        "query": filters.query(page=page.number if page.number > 1 else None),
        "filter_query": filters.query(keep_sentence=False),
        "kind_label": dict(vocabulary.VARIANT_KIND_CHOICES).get(kind, ""),
        "edit_error": edit_error or {},
        **page_links(compound, filters, page),
    }


def render_rows(request: HttpRequest, variants, query: str) -> dict[str, str]:
    """Each variant's row as the page shows it, by id (for review.js to swap in)."""
    return {
        str(variant.pk): render_to_string(ROW_TEMPLATE, {"variant": decorate(variant), "query": query}, request)
        for variant in variants.prefetch_related(changes_prefetch())
    }


def back_to_compound(compound_id: int, query: str, anchor: str = "") -> HttpResponse:
    return redirect(review_url(compound_id, query, anchor))


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
    """The compound's sentences with counts, and a page of its filtered variants to approve, edit, reject or reset."""
    compound = get_object_or_404(Compound.objects.select_related("collection"), pk=pk)
    context = review_context(compound, VariantFilterForm(request.GET), request.GET.get("page"))
    return render(request, "datasets/review/compound.html", context)


def place(request: HttpRequest, filters: VariantFilterForm) -> str:
    """The filters and the page number a POST came from, to go back to the same view of the page."""
    number = request.GET.get("page", "")
    return filters.query(page=number if number.isdigit() and int(number) > 1 else None)


@require_POST
@curator_required
def review_variant(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Approve, reject, edit or reset one variant; filters and page travel in the query string."""
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
        edit_error = {"variant": variant.pk, "text": request.POST.get("marked_text", ""), "error": error}
        context = review_context(compound, filters, request.GET.get("page"), edit_error)
        return render(request, "datasets/review/compound.html", context, status=400)
    message = f"{ACTION_DONE[action]}: {variant.get_kind_display()} #{variant.rank}."
    if wants_json(request):
        rows = render_rows(request, Variant.objects.filter(pk=variant.pk), place(request, filters))
        return JsonResponse(
            {"message": message, "status": variant.status, "rows": rows, "counts": compound_counts(compound)}
        )
    messages.success(request, message)
    return back_to_compound(compound.pk, place(request, filters), f"variant-{variant.pk}")


@require_POST
@curator_required
def review_approve_unflagged(request: HttpRequest, pk: int) -> HttpResponse:
    """Approve every pending variant of the compound without flags (of the filtered kind, if any)."""
    compound = get_object_or_404(Compound, pk=pk)
    filters = VariantFilterForm(request.GET)
    kind = filters.values.get("kind")
    count = approve_unflagged(compound, request.user, kinds=[kind] if kind else None)
    message = f"Approved {count} unflagged pending variant{'s' if count != 1 else ''}."
    if wants_json(request):
        # The rows the page shows (review.js sends their ids), not every variant of the compound.
        shown = [int(pk) for pk in request.POST.getlist("shown") if pk.isdigit()]
        variants = Variant.objects.filter(sentence__compound=compound, pk__in=shown)
        rows = render_rows(request, variants, place(request, filters))
        return JsonResponse({"message": message, "approved": count, "rows": rows, "counts": compound_counts(compound)})
    messages.success(request, message)
    return back_to_compound(compound.pk, place(request, filters))
