"""The study planner's page (``/curate/SLUG/planner/``): simulate fixed and adaptive designs before paying for them.

A GET with no query shows the form with the campaign's settings filled in; a GET with one runs the plan
(reads only, nothing is stored, so the page's address is the plan: shareable, and the same every time
for the same seed). A bad input is a 400 naming the field.
"""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from annotation import planning
from annotation.models import Campaign
from core.permissions import curator_required

PILOT, PUBLISHED = "pilot", "published"


class PlannerForm(forms.Form):
    source = forms.ChoiceField(
        choices=[
            (PILOT, "This campaign's ratings (a pilot): each item's mean and spread"),
            (PUBLISHED, "The collection's published means (type and sentence scores), spread fitted to them"),
        ],
        initial=PILOT,
    )
    fixed = forms.CharField(initial="3, 5, 10", required=False, help_text="Fixed designs: ratings per item.")
    adaptive = forms.CharField(
        initial="3-10:1.5, 3-20:1.2",
        required=False,
        help_text="Adaptive designs as n_min-n_max:precision (the 95% interval's width at which an item stops).",
    )
    budget = forms.IntegerField(min_value=1, required=False, help_text="Ratings the adaptive designs may spend.")
    careless = forms.FloatField(
        min_value=0,
        max_value=1,
        required=False,
        help_text="Share of answers given at random (0-1). Blank: 0 for a pilot (its careless workers are in its "
        "spreads already), 0.1 for published means.",
    )
    pay_per_rating = forms.DecimalField(min_value=0, max_digits=8, decimal_places=2, required=False, initial=0)
    r = forms.FloatField(
        min_value=-1, max_value=1, initial=0.3, label="Correlation to detect", help_text="Power is for this size."
    )
    simulations = forms.IntegerField(min_value=10, max_value=1000, initial=100)
    seed = forms.IntegerField(min_value=0, initial=0)


@require_GET
@curator_required
def planner_page(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("collection"), slug=slug)
    initial = {"pay_per_rating": campaign.pay_per_rating or 0, "seed": campaign.seed}
    if campaign.adaptive:
        policy = f"{campaign.min_ratings_per_item}-{campaign.ratings_per_item}:{campaign.precision:g}"
        initial |= {"adaptive": policy, "budget": campaign.rating_budget}
    form = PlannerForm(request.GET or None, initial=initial)
    context = {"campaign": campaign, "form": form, "results": None}
    if not request.GET:
        return render(request, "annotation/curator/planner.html", context)
    if not form.is_valid():
        return render(request, "annotation/curator/planner.html", context, status=400)
    data = form.cleaned_data
    if data["careless"] is None:
        data["careless"] = planning.DEFAULT_CARELESS[data["source"]]
    try:
        designs = planning.parse_designs(data["fixed"], data["adaptive"], data["budget"])
        if data["source"] == PILOT:
            source = planning.pilot(campaign)
        else:
            source = planning.published(campaign.collection_id, campaign.language, data["careless"], data["seed"])
        results = planning.run(
            source,
            designs,
            careless=data["careless"],
            pay_per_rating=float(data["pay_per_rating"] or 0),
            r=data["r"],
            simulations=data["simulations"],
            seed=data["seed"],
        )
    except planning.PlanError as error:
        form.add_error(error.field if error.field in form.fields else None, str(error))
        return render(request, "annotation/curator/planner.html", context, status=400)
    context |= {"results": results, "source": source}
    return render(request, "annotation/curator/planner.html", context)
