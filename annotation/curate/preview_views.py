"""A curator goes through the study as a worker would, and nothing is recorded.

The steps are a worker's: consent, instructions, the practice items, regular items in the order
workers get them with an attention check after every fifth, and the end. The pages are the
worker's own templates, shown with a preview banner; their forms only move to the next step (GET,
no CSRF token, no write): no annotator, assignment, rating or skip is created.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from annotation.crowd import journey as steps
from annotation.crowd.rating_views import item_page
from annotation.curate.study_setup import instruction_examples
from annotation.models import Campaign, Item
from core.permissions import curator_required

PREVIEW_ITEMS = 12  # regular items shown at most: enough to meet an attention check twice


def preview_steps(campaign: Campaign) -> list[tuple[str, Item | None]]:
    """(kind, item) of every page a worker meets, in order: consent, instructions, items, done."""
    counts = steps.campaign_counts(campaign)
    items = list(campaign.items.select_related("compound", "sentence").order_by("order_key"))
    training = [item for item in items if item.role == Item.Role.TRAINING]
    checks = iter(item for item in items if item.role == Item.Role.ATTENTION)
    regular = [item for item in items if item.role == Item.Role.REGULAR]
    regular = regular[: min(PREVIEW_ITEMS, steps.regular_per_worker(campaign, counts))]
    pages: list[tuple[str, Item | None]] = [("consent", None), ("instructions", None)]
    pages += [("item", item) for item in training]
    for n, item in enumerate(regular, 1):
        pages.append(("item", item))
        if n % steps.ATTENTION_EVERY == 0 and (check := next(checks, None)):
            pages.append(("item", check))
    pages.append(("done", None))
    return pages


@require_GET
@curator_required
def campaign_preview(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    pages = preview_steps(campaign)
    try:
        step = min(max(int(request.GET.get("step", 0)), 0), len(pages) - 1)
    except ValueError:
        step = 0
    kind, item = pages[step]
    url = reverse("curator:preview", args=[campaign.slug])
    preview = {
        "step": step + 1,
        "steps": len(pages),
        "url": url,
        "next": min(step + 1, len(pages) - 1),
        "back": f"{url}?step={step - 1}" if step else "",
        "exit": reverse("curator:dashboard", args=[campaign.slug]),
    }
    context = {"campaign": campaign, "preview": preview}
    if kind == "consent":
        context["estimate"] = steps.study_estimate(campaign, steps.campaign_counts(campaign))
        return render(request, "annotation/consent.html", context)
    if kind == "instructions":
        counts = steps.campaign_counts(campaign)
        context |= {
            "has_training": bool(counts.training),
            "examples": instruction_examples(campaign),
            "practice": steps.practice_rule(campaign, counts),
        }
        return render(request, "annotation/instructions.html", context)
    if kind == "done":
        return render(request, "annotation/curator/preview_end.html", context)
    counts = steps.campaign_counts(campaign)
    item_steps = [i for k, i in pages if k == "item" and i.role != Item.Role.TRAINING]
    training_steps = [i for k, i in pages if k == "item" and i.role == Item.Role.TRAINING]
    context |= item_page(campaign, item) | {
        "done": item_steps.index(item) if item in item_steps else 0,
        "total": steps.screens_per_worker(campaign, counts),
        "training_done": training_steps.index(item) if item in training_steps else 0,
        "training_total": counts.training,
        "remaining": "(a preview)",
        "practice": steps.practice_rule(campaign, counts),
    }
    return render(request, "annotation/rate.html", context)
