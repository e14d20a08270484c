"""Curator pages: campaigns (list, create, edit, items, status), dashboards and exports.

Every view requires a curator (``core.permissions``): anonymous visitors are sent to the
login page and other accounts get 403.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.crowd.journey import intake_problem
from annotation.curate import exports
from annotation.curate.campaign_forms import PICK, CampaignCreateForm, CampaignForm, ItemChoiceForm
from annotation.curate.dashboard import campaign_dashboard, campaigns_with_counts
from annotation.curate.forms import ItemPickForm
from annotation.models import Annotator, Assignment, Campaign
from annotation.platforms import study_links
from annotation.setup_actions import SetupError, add_missing_items, change_status, create_campaign, save_campaign
from core.permissions import curator_required

# What pausing or closing does to the workers in the middle of the study: said before it happens.
CONFIRM_ACTIONS = {
    "pause": "Workers in the middle of the study see that it is not open at the moment, and cannot go on until "
    "you open it again.",
    "close": "Workers in the middle of the study are told it has ended; nobody can answer any more.",
    "draft": "The study link refuses workers until you open the campaign again. Nobody has entered yet, so "
    "nothing is lost: use it to change the set-up before the study starts.",
}
# The buttons' words, and what each does, for the dashboard.
ACTION_LABELS = {
    "open": ("Open to workers", "The study link takes workers."),
    "pause": ("Pause", "Workers cannot go on until you open it again."),
    "close": ("Close", "The study ends for everyone."),
    "draft": ("Back to draft", "Only before anyone has entered: the study link refuses workers again."),
}
STATUS_ACTIONS = {
    "open": Campaign.Status.OPEN,
    "pause": Campaign.Status.PAUSED,
    "close": Campaign.Status.CLOSED,
    "draft": Campaign.Status.DRAFT,
}


@require_GET
@curator_required
def campaign_list(request: HttpRequest) -> HttpResponse:
    rows = []
    for campaign in campaigns_with_counts():
        target = campaign.item_count * campaign.ratings_per_item
        rows.append((campaign, round(100 * min(campaign.rating_count / target, 1), 1) if target else 0))
    return render(request, "annotation/curator/campaign_list.html", {"rows": rows})


@require_http_methods(["GET", "POST"])
@curator_required
def campaign_create(request: HttpRequest) -> HttpResponse:
    form = CampaignCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        campaign = form.save(commit=False)
        item_class = form.cleaned_data["item_class"]
        targets = [] if item_class == PICK else None
        campaign, items = create_campaign(campaign, created_by=request.user, item_class=item_class, targets=targets)
        messages.success(request, f"Campaign {campaign.name} created with {len(items)} items.")
        return redirect("curator:items_pick" if item_class == PICK else "curator:dashboard", slug=campaign.slug)
    return render(request, "annotation/curator/campaign_form.html", {"form": form, "campaign": None})


@require_http_methods(["GET", "POST"])
@curator_required
def campaign_edit(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    form = CampaignForm(request.POST or None, instance=campaign)
    if request.method == "POST" and form.is_valid():
        campaign = save_campaign(form.save(commit=False))
        messages.success(request, f"Campaign {campaign.name} saved.")
        return redirect("curator:dashboard", slug=campaign.slug)
    return render(
        request,
        "annotation/curator/campaign_form.html",
        {
            "form": form,
            "campaign": campaign,
            "item_form": ItemChoiceForm(),
            "pick_form": ItemPickForm(campaign=campaign),
        },
    )


@require_POST
@curator_required
def campaign_items(request: HttpRequest, slug: str) -> HttpResponse:
    """Add the campaign's items not yet in it (of one class, or all)."""
    campaign = get_object_or_404(Campaign, slug=slug)
    form = ItemChoiceForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a compositionality class or any class.")
        return redirect("curator:edit", slug=campaign.slug)
    items = add_missing_items(campaign, form.cleaned_data["item_class"])
    messages.success(request, f"{len(items)} item{'s' if len(items) != 1 else ''} added.")
    return redirect("curator:dashboard", slug=campaign.slug)


@require_POST
@curator_required
def campaign_status(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    action = request.POST.get("action", "")
    if action not in STATUS_ACTIONS:
        messages.error(request, f"Unknown action {action!r}.")
        return redirect("curator:dashboard", slug=campaign.slug)
    if action in CONFIRM_ACTIONS and request.POST.get("confirm") != "yes":
        return render(request, "annotation/curator/confirm_status.html", _confirmation(campaign, action))
    try:
        change_status(campaign, STATUS_ACTIONS[action])
    except SetupError as error:
        messages.error(request, f"{str(error)[:1].upper()}{str(error)[1:]}.")
        return redirect("curator:dashboard", slug=campaign.slug)
    messages.success(request, f"Campaign {campaign.name} is now {campaign.get_status_display().lower()}.")
    return redirect("curator:dashboard", slug=campaign.slug)


@require_GET
@curator_required
def campaign_dashboard_view(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), slug=slug)
    dashboard = campaign_dashboard(campaign)
    busiest = max((bucket["ratings"] for bucket in dashboard.ratings_per_hour), default=0)
    return render(
        request,
        "annotation/curator/dashboard.html",
        {
            "campaign": campaign,
            "dashboard": dashboard,
            "busiest_hour": busiest,
            "quiet_hours": sum(1 for bucket in dashboard.ratings_per_hour if not bucket["ratings"]),
            "study_links": study_links(request.build_absolute_uri(reverse("annotation:start", args=[campaign.slug]))),
            "intake_problem": intake_problem(campaign),
            "exports": [(table, fmt) for table in exports.TABLES for fmt in exports.FORMATS],
            "status_actions": [
                (action, *ACTION_LABELS[action])
                for action, status in STATUS_ACTIONS.items()
                if status != campaign.status and (action != "draft" or not dashboard.annotators)
            ],
        },
    )


@require_GET
@curator_required
def campaign_export(request: HttpRequest, slug: str, table: str, fmt: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    if table not in exports.TABLES or fmt not in exports.FORMATS:
        raise Http404("No such export.")
    return exports.streaming_response(campaign, table, fmt)


def _confirmation(campaign: Campaign, action: str) -> dict:
    """What the confirmation step says before a pause or a close: who is affected, and how."""
    now = timezone.now()
    return {
        "campaign": campaign,
        "action": action,
        "consequence": CONFIRM_ACTIONS[action],
        "working": Annotator.objects.filter(
            campaign=campaign, consented_at__isnull=False, status=Annotator.Status.ACTIVE
        ).count(),
        "reserved": Assignment.objects.filter(
            item__campaign=campaign, status=Assignment.Status.RESERVED, expires_at__gte=now
        ).count(),
    }
