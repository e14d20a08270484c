"""Report pages: a campaign's report for curators, and the public type/token report of a language."""

from __future__ import annotations

import json
from datetime import datetime

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from annotation.analysis.agreement import QUESTIONS
from annotation.analysis.wording import policy_words
from annotation.models import Campaign, FilterPolicy
from annotation.protocol import QUESTION_PARTS
from annotation.reports import build as reporting
from annotation.reports import svg
from annotation.reports.build import NO_POLICY, policy_parameters
from annotation.reports.stamp import report_stamp
from core.permissions import curator_required
from datasets.models import Compound
from datasets.vocabulary import CLASS_LABELS_AND_UNCLASSIFIED

DOWNLOADS = ("json", "items.csv", "compounds.csv")
# While a campaign is open its report asks every POLL_SECONDS whether anything changed (a short JSON),
# and only then fetches the page and replaces the sections that differ (static/js/report_live.js).
POLL_SECONDS = 30
CLASS_LABELS = CLASS_LABELS_AND_UNCLASSIFIED


def _policy(request: HttpRequest) -> FilterPolicy | None:
    name = request.GET.get("policy", "").strip()
    if not name or name == NO_POLICY:
        return None  # nobody removed, whether or not the "none" row exists
    policy = FilterPolicy.objects.filter(name=name).first()
    if policy is None:
        raise Http404(f"No filter policy {name!r}.")
    return policy


def _download(report: dict, kind: str, slug: str) -> HttpResponse:
    policy = report["policy"]["name"]
    if kind == "json":
        response = HttpResponse(json.dumps(report, indent=2), content_type="application/json")
        filename = f"{slug}-report.json"
    else:
        table = kind.removesuffix(".csv")
        body = reporting.items_csv(report) if table == "items" else reporting.compounds_csv(report)
        response = HttpResponse(body, content_type="text/csv; charset=utf-8")
        filename = f"{slug}-{table}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Filter-Policy"] = policy
    return response


@require_GET
@curator_required
def campaign_report_view(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), slug=slug)
    policy = _policy(request)
    download = request.GET.get("download", "")
    if download and download not in DOWNLOADS:
        raise Http404("No such download.")
    # The stamp before the report: a rating that lands in between makes the live page fetch again, not miss it.
    stamp = report_stamp(campaign)
    report = reporting.campaign_report(campaign, policy)
    if download:
        return _download(report, download, campaign.slug)
    charts = [
        {
            "class": cls,
            "label": CLASS_LABELS.get(cls, cls),
            "charts": [
                {
                    "question": QUESTION_PARTS[q],
                    "svg": svg.bar_chart(
                        by_question[q], [str(s) for s in report["distributions"]["scores"]], f"{cls}: {q} scores"
                    ),
                    "n": sum(by_question[q]),
                }
                for q in QUESTIONS
            ],
        }
        for cls, by_question in report["distributions"]["classes"].items()
    ]
    for machine in report["machine_annotators"]:
        points = [
            {"x": p["human"], "y": p["machine"], "label": p["text"] or str(p["compound"]), "class": p["class"]}
            for p in machine["points"]
        ]
        machine["figure"] = svg.scatter(points, f"{machine['label']}: compound scores", "people (mean)", "model")
        found = machine["comparison"] or {}
        machine["rows"] = [
            {"question": q, **s, "alpha": found["alpha"][q], "reliability": found["reliability"][q]}
            for q, s in found.get("scores", {}).items()
        ]
    query = f"&policy={policy.name}" if policy else ""
    policies = list(FilterPolicy.objects.order_by("name"))
    if NO_POLICY not in {choice.name for choice in policies}:
        policies.insert(0, FilterPolicy(name=NO_POLICY, min_items=0))  # always offered: keeping everyone needs no row
    for choice in policies:
        choice.words = "; ".join(policy_words(policy_parameters(choice)))
    return render(
        request,
        "annotation/curator/report.html",
        {
            "campaign": campaign,
            "report": report,
            "charts": charts,
            "policies": policies,
            "selected": policy.name if policy else NO_POLICY,
            "policy_words": policy_words(report["policy"]),
            "policy_query": query,
            "computed_at": datetime.fromisoformat(report["computed_at"]),
            "stamp": stamp,
            "poll_seconds": POLL_SECONDS if report["live"] else None,
            "compound_rows": [
                r | {"class_label": CLASS_LABELS.get(r["class"], "Unclassified" if not r["class"] else r["class"])}
                for r in report["compounds"]["rows"]
                if r["question"] == "compound_score"
            ],
        },
    )


@require_GET
@curator_required
def campaign_report_stamp(request: HttpRequest, slug: str) -> JsonResponse:
    """What the live report polls: whether the campaign is still open and a stamp that changes with its ratings."""
    campaign = get_object_or_404(Campaign, slug=slug)
    return JsonResponse({"stamp": report_stamp(campaign), "live": campaign.status == Campaign.Status.OPEN})


@require_GET
@curator_required
def language_report_view(request: HttpRequest, language: str) -> HttpResponse:
    if not Compound.objects.filter(language=language).exists():
        raise Http404(f"No compounds in {language!r}.")
    report = reporting.reference_report(language)
    points = [
        {"x": p["type_score"], "y": p["token_mean"], "label": p["compound"], "class": p["class"]}
        for p in reporting.reference_points(language)
    ]
    class_means = []
    if report:
        for cls, means in report["class_means"].items():
            class_means.append({"class": cls, "label": CLASS_LABELS.get(cls, cls), "means": means})
    return render(
        request,
        "annotation/language_report.html",
        {
            "language": language,
            "report": report,
            "class_means": class_means,
            "correlations": [
                {"label": "All" if key == "all" else CLASS_LABELS.get(key, key), **value}
                for key, value in (report["correlations"].items() if report else [])
            ],
            "scatter": svg.scatter(points, f"{language}: token mean against type score", "type score", "token mean")
            if points
            else None,
        },
    )
