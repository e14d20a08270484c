"""Curator pages of a campaign's study setup: practice and attention items, worked examples, quality thresholds.

Curators only (``core.permissions``); every change is a POST and goes through ``annotation.curate.study_setup``.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation import setup_actions
from annotation.curate import study_setup
from annotation.curate.forms import (
    CheckItemForm,
    GoldForm,
    ItemFilterForm,
    ItemPickForm,
    QualityPolicyForm,
    WorkedExampleForm,
)
from annotation.models import Campaign, WorkedExample
from core.permissions import curator_required

PICK_PAGE_SIZE = 50


def _campaign(slug: str) -> Campaign:
    return get_object_or_404(Campaign.objects.select_related("collection"), slug=slug)


def _checks_page(request: HttpRequest, campaign: Campaign, check_form=None, example_form=None, status: int = 200):
    items = (
        campaign.items.filter(role__in=setup_actions.CHECK_ROLES)
        .select_related("compound", "sentence")
        .order_by("role", "order_key")
    )
    context = {
        "campaign": campaign,
        "checks": items,
        "examples": campaign.worked_examples.all(),
        "shown_examples": study_setup.instruction_examples(campaign),
        "check_form": check_form or CheckItemForm(campaign=campaign),
        "example_form": example_form or WorkedExampleForm(campaign=campaign),
    }
    return render(request, "annotation/curator/checks.html", context, status=status)


@require_GET
@curator_required
def checks(request: HttpRequest, slug: str) -> HttpResponse:
    return _checks_page(request, _campaign(slug))


@require_POST
@curator_required
def check_add(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign(slug)
    form = CheckItemForm(request.POST, campaign=campaign)
    if form.is_valid():
        data = form.cleaned_data
        try:
            item = setup_actions.add_check_item(campaign, data["target"], data["role"], form.gold(), data["feedback"])
        except setup_actions.SetupError as error:
            form.add_error("target", str(error))
        else:
            messages.success(request, f"{item.get_role_display()}: {item.compound.text} added.")
            return redirect("curator:checks", slug=campaign.slug)
    return _checks_page(request, campaign, check_form=form, status=400)


@require_http_methods(["GET", "POST"])
@curator_required
def check_edit(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    campaign = _campaign(slug)
    item = get_object_or_404(campaign.items.select_related("compound"), pk=item_id, role__in=setup_actions.CHECK_ROLES)
    initial = {name: getattr(item, name) for name in (*setup_actions.GOLD_FIELDS, "feedback")}
    form = GoldForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        setup_actions.update_check_item(item, form.gold(), form.cleaned_data["feedback"])
        messages.success(request, f"{item.compound.text} saved.")
        return redirect("curator:checks", slug=campaign.slug)
    title = f"{item.get_role_display()}: {item.compound.text}"
    return _form_page(request, campaign, form, title, status=400 if form.errors else 200)


@require_POST
@curator_required
def check_remove(request: HttpRequest, slug: str, item_id: int) -> HttpResponse:
    campaign = _campaign(slug)
    item = get_object_or_404(campaign.items.select_related("compound"), pk=item_id)
    try:
        setup_actions.remove_check_item(item)
    except setup_actions.SetupError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"{item.compound.text} removed.")
    return redirect("curator:checks", slug=campaign.slug)


@require_POST
@curator_required
def example_add(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign(slug)
    form = WorkedExampleForm(request.POST, campaign=campaign)
    if form.is_valid():
        example = setup_actions.save_worked_example(form.save(commit=False))
        messages.success(request, f"Worked example {example.compound} added.")
        return redirect("curator:checks", slug=campaign.slug)
    return _checks_page(request, campaign, example_form=form, status=400)


@require_http_methods(["GET", "POST"])
@curator_required
def example_edit(request: HttpRequest, slug: str, example_id: int) -> HttpResponse:
    campaign = _campaign(slug)
    example = get_object_or_404(WorkedExample, pk=example_id, campaign=campaign)
    form = WorkedExampleForm(request.POST or None, instance=example, campaign=campaign)
    if request.method == "POST" and form.is_valid():
        setup_actions.save_worked_example(form.save(commit=False))
        messages.success(request, f"Worked example {example.compound} saved.")
        return redirect("curator:checks", slug=campaign.slug)
    return _form_page(
        request, campaign, form, f"Worked example: {example.compound}", status=400 if form.errors else 200
    )


@require_POST
@curator_required
def example_remove(request: HttpRequest, slug: str, example_id: int) -> HttpResponse:
    campaign = _campaign(slug)
    setup_actions.remove_worked_example(get_object_or_404(WorkedExample, pk=example_id, campaign=campaign))
    messages.success(request, "Worked example removed.")
    return redirect("curator:checks", slug=campaign.slug)


@require_http_methods(["GET", "POST"])
@curator_required
def quality(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = _campaign(slug)
    form = QualityPolicyForm(request.POST or None, instance=study_setup.quality_policy(campaign))
    if request.method == "POST" and form.is_valid():
        setup_actions.save_quality_policy(form.save(commit=False))
        messages.success(request, "Quality thresholds saved: the dashboard, reports and payments use them now.")
        return redirect("curator:dashboard", slug=campaign.slug)
    status = 400 if form.errors else 200
    return _form_page(request, campaign, form, "Quality thresholds", status=status, back="curator:dashboard")


@require_http_methods(["GET", "POST"])
@curator_required
def items_pick(request: HttpRequest, slug: str) -> HttpResponse:
    """The items of the campaign's scope not yet in it, searched and filtered, to add one by one."""
    campaign = _campaign(slug)
    if request.method == "POST":
        form = ItemPickForm(request.POST, campaign=campaign)
        if not form.is_valid():
            messages.error(request, "Choose one or more items not yet in the campaign.")
            return redirect("curator:items_pick", slug=campaign.slug)
        items = setup_actions.add_missing_items(campaign, chosen=list(form.cleaned_data["targets"]))
        messages.success(request, f"{len(items)} item{'s' if len(items) != 1 else ''} added.")
        return redirect("curator:dashboard", slug=campaign.slug)
    filters = ItemFilterForm(request.GET or None)
    chosen_class, query = "", ""
    if filters.is_valid():
        chosen_class, query = filters.cleaned_data["item_class"], filters.cleaned_data["q"].strip()
    candidates = study_setup.pick_candidates(campaign, chosen_class or None, query)
    page = Paginator(candidates, PICK_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"campaign": campaign, "filters": filters, "page": page, "total": len(candidates)}
    return render(request, "annotation/curator/items_pick.html", context)


def _form_page(
    request: HttpRequest, campaign: Campaign, form, title: str, status: int = 200, back: str = "curator:checks"
) -> HttpResponse:
    context = {"campaign": campaign, "form": form, "title": title, "back": reverse(back, args=[campaign.slug])}
    return render(request, "annotation/curator/setup_form.html", context, status=status)
