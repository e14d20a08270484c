"""Curator pages of a campaign's payments: the decisions, the platforms' files, and Prolific's API (curators only)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_POST

from annotation.models import Campaign
from annotation.payments import decisions as payments
from annotation.payments.prolific import TOKEN_ENV, ProlificClient, ProlificError
from annotation.payments.reconciliation import DECISIONS, valid_id
from core.permissions import curator_required


def _page(request: HttpRequest, campaign: Campaign, results=None, studies=None, status: int = 200) -> HttpResponse:
    decided = payments.decisions(campaign)
    context = {
        "campaign": campaign,
        "decisions": decided,
        "counts": {name: sum(d.status == name for d in decided) for name in DECISIONS},
        "files": list(payments.FILES),
        "studies": " ".join(studies if studies is not None else payments.prolific_studies(campaign)),
        "results": results,
        "token_env": TOKEN_ENV,
    }
    return render(request, "annotation/curator/payments.html", context, status=status)


@require_GET
@curator_required
def payments_page(request: HttpRequest, slug: str) -> HttpResponse:
    return _page(request, get_object_or_404(Campaign, slug=slug))


@require_GET
@curator_required
def payment_download(request: HttpRequest, slug: str, name: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    if name not in payments.FILES:
        raise Http404("No such file.")
    content_type, text = payments.payment_file(campaign, name)
    response = HttpResponse(text, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{campaign.slug}-{name}"'
    return response


@require_POST
@curator_required
def prolific_reconcile(request: HttpRequest, slug: str) -> HttpResponse:
    """Preview (``preview``) or send (``send``) the approvals and rejections of the campaign's Prolific submissions."""
    campaign = get_object_or_404(Campaign, slug=slug)
    studies = request.POST.get("studies", "").split()
    if not studies or not all(valid_id(s) for s in studies):
        messages.error(request, "Give the Prolific study ids, separated by spaces.")
        return _page(request, campaign, studies=studies, status=400)
    send = request.POST.get("action") == "send"
    try:
        results = payments.reconcile_prolific(campaign, ProlificClient.from_environment(), studies, send=send)
    except ProlificError as error:
        messages.error(request, f"Prolific: {error}")
        return _page(request, campaign, studies=studies, status=502)
    if send:
        sent = sum(len(result.transitions) for result in results)
        failed = sum(len(result.failed) for result in results)
        messages.success(request, f"Sent to Prolific: {sent} approval(s) and rejection(s); {failed} failed.")
    return _page(request, campaign, results=results, studies=studies)
