"""The rating loop and the ends of an annotator's journey: items, practice feedback, wait, full, screened out, done.

Thin views over ``annotation.crowd.journey`` (what comes next) and ``annotation.actions`` (every write).
A rating page can only store what was chosen on it: the page is never kept by the browser
(``no-store``, ``autocomplete=off``, rate.js resets a restored form), and a submission for
anything but the worker's current item is refused with a message before it is looked at.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.cache import caches
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from annotation.actions import NOT_YOURS, not_current, skip_item, submit_rating
from annotation.crowd import journey as steps
from annotation.crowd.entry_views import journey, mturk_session_key, questions
from annotation.curate.study_setup import instruction_examples
from annotation.models import Annotator, Assignment, Campaign, Item, Rating, Skip
from annotation.platforms import origin, prolific_completion_url
from annotation.protocol import MAX_PARAPHRASES, validate_answers
from annotation.reads import item_sentences

SCALE = tuple(str(i) for i in range(6))  # the answers' values, as the form sends them
# How often the waiting page asks again for an item (a meta refresh: works without JavaScript).
WAIT_RETRY_SECONDS = 15
EXAMPLES_CACHE_SECONDS = 60


def cached_examples(campaign: Campaign) -> list[dict]:
    """The worked examples for the instructions each item can open (cached in the process: they are on every item)."""
    key = f"annotation:examples:{campaign.pk}"
    return caches["local"].get_or_set(key, lambda: instruction_examples(campaign), EXAMPLES_CACHE_SECONDS)


def rating_context(campaign: Campaign, annotator: Annotator, assignment: Assignment, data=None, errors=None) -> dict:
    counts = steps.campaign_counts(campaign)
    done = steps.progress(annotator)
    return item_page(campaign, assignment.item, data, errors) | {
        "assignment": assignment,
        "done": done.screens_done,
        "total": steps.screens_per_worker(campaign, counts),
        "training_done": done.training_rated,
        "training_total": counts.training,
        "remaining": steps.remaining_estimate(campaign, counts, done),
        "practice": steps.practice_rule(campaign, counts),
    }


def item_page(campaign: Campaign, item: Item, data=None, errors=None) -> dict:
    """What the rating page shows of one item, whoever looks (a worker, or a curator's preview)."""
    data = data or {}
    errors = errors or {}
    fields = []
    for question in questions(campaign, item):
        name = question["name"]
        value = str(data.get(name, "")).strip()
        # The first option of the first question takes the focus, unless an error is shown.
        autofocus = not fields and not errors
        fields.append(question | {"value": value, "error": errors.get(name), "scale": SCALE, "autofocus": autofocus})
    paraphrases = [str(data.get(f"paraphrase_{i}", "")) for i in range(1, MAX_PARAPHRASES + 1)]
    return {
        "campaign": campaign,
        "item": item,
        "sentences": item_sentences(item),
        "fields": fields,
        "paraphrases": paraphrases,
        "errors": errors,
        "skip_reason": Skip.Reason.UNKNOWN_EXPRESSION,
        "examples": cached_examples(campaign),
    }


@require_http_methods(["GET", "POST"])
@journey
def rate(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    """The current item (GET) or a submitted rating or skip (POST, then redirect: post/redirect/get)."""
    if request.method == "POST":
        return submit(request, campaign, annotator)
    target = steps.next_step(annotator)
    if target == steps.WAIT:
        context = {"campaign": campaign, "retry_seconds": WAIT_RETRY_SECONDS}
        return render(request, "annotation/wait.html", context)
    if isinstance(target, str):
        return redirect(target, slug=campaign.slug)
    return render(request, "annotation/rate.html", rating_context(campaign, annotator, target))


def submit(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    """Store the answers (or the skip) of the annotator's current item; anything else is refused, saying why."""
    token = request.POST.get("token", "")
    answers, errors = validate_answers(request.POST)
    if "skip" in request.POST or errors:
        return skip_or_show_errors(request, campaign, annotator, token, errors)
    # The usual case: submit_rating checks under its row lock that the item is the annotator's current one.
    outcome = submit_rating(annotator, token, answers)
    if outcome.repeated:
        messages.warning(request, f"{not_current(outcome.rating.assignment)} Here is your current item.")
        return redirect("annotation:rate", slug=campaign.slug)
    if outcome.errors:
        reason = outcome.errors.get("token", "Your answer could not be stored.")
        if reason == NOT_YOURS:
            reason = f"{NOT_YOURS} Here is your current one."
        elif outcome.stale:
            # A page kept from before (Back, a second tab): never stored as the answer to another item.
            reason = f"{reason} Here is your current item."
        messages.warning(request, reason)
        return redirect("annotation:rate", slug=campaign.slug)
    rating = outcome.rating
    if rating.item.role == Item.Role.TRAINING:
        return redirect("annotation:feedback", slug=campaign.slug, token=rating.assignment.token)
    return redirect("annotation:rate", slug=campaign.slug)


def skip_or_show_errors(
    request: HttpRequest, campaign: Campaign, annotator: Annotator, token: str, errors: dict
) -> HttpResponse:
    """A skip, or answers with errors shown again on the item's page (a stale page is refused first)."""
    try:
        assignment = annotator.assignments.select_related("item__compound", "item__sentence").get(token=token)
    except (Assignment.DoesNotExist, ValueError, ValidationError):
        messages.warning(request, f"{NOT_YOURS} Here is your current one.")
        return redirect("annotation:rate", slug=campaign.slug)
    if reason := not_current(assignment):
        # A page kept from before (Back, a second tab): never store it as the answer to another item.
        messages.warning(request, f"{reason} Here is your current item.")
        return redirect("annotation:rate", slug=campaign.slug)
    if "skip" in request.POST:
        outcome = skip_item(annotator, token, Skip.Reason.UNKNOWN_EXPRESSION)
        if outcome.errors:
            messages.warning(request, outcome.errors["token"])
        else:
            messages.info(request, "Skipped: you will not be shown that item again.")
        return redirect("annotation:rate", slug=campaign.slug)
    context = rating_context(campaign, annotator, assignment, request.POST, errors)
    return render(request, "annotation/rate.html", context, status=400)


@journey
def feedback(request: HttpRequest, campaign: Campaign, annotator: Annotator, token) -> HttpResponse:
    """What the gold answers of a practice item were, next to the annotator's."""
    rating = get_object_or_404(
        Rating.objects.select_related("item__campaign", "item__compound", "item__sentence"),
        assignment__token=token,
        annotator=annotator,
        item__role=Item.Role.TRAINING,
    )
    checks = steps.gold_checks(rating)
    item = rating.item
    golds = {"head_score": item.gold_head, "modifier_score": item.gold_modifier, "compound_score": item.gold_compound}
    rows = [
        question
        | {"yours": getattr(rating, question["name"]), "gold": golds[question["name"]], "ok": checks[question["name"]]}
        for question in questions(campaign, item)
    ]
    context = {
        "campaign": campaign,
        "item": item,
        "sentences": item_sentences(item),
        "rows": rows,
        "correct": all(checks.values()),
    }
    return render(request, "annotation/feedback.html", context)


def end_page(request: HttpRequest, template: str, campaign: Campaign, annotator: Annotator, context: dict):
    """An end page; an MTurk worker's ends with a form that posts the assignment to MTurk (and the CSP allows it)."""
    submit_url = request.session.get(mturk_session_key(campaign.slug))
    mturk = annotator.platform == Annotator.Platform.MTURK and submit_url and annotator.assignment_id
    if mturk:
        context["mturk"] = {"url": submit_url, "assignment_id": annotator.assignment_id}
    response = render(request, template, {"campaign": campaign, "annotator": annotator} | context)
    if mturk:
        response._csp_update = {"form-action": [origin(submit_url)]}
    return response


@journey(after_close=True)
def screened_out(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    """Screened out (practice items, too many skips): the screen-out code or return path, never the completion code."""
    if annotator.status != Annotator.Status.SCREENED_OUT:
        return redirect("annotation:rate", slug=campaign.slug)
    url = campaign.screen_out_url
    if not url and campaign.screen_out_code and annotator.platform == Annotator.Platform.PROLIFIC:
        url = prolific_completion_url(campaign.screen_out_code)
    context = {"return_url": url, "skips": annotator.screen_out_reason == Annotator.ScreenOut.SKIPS}
    return end_page(request, "annotation/screened_out.html", campaign, annotator, context)


@journey(after_close=True)
def full(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    """No item is left for this worker: say so and give the platform's return path (never the completion code)."""
    if annotator.status != Annotator.Status.ACTIVE or steps.has_open_items(annotator):
        return redirect("annotation:rate", slug=campaign.slug)
    return render(request, "annotation/full.html", steps.full_context(campaign, annotator.platform))


@journey(after_close=True)
def done(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    if annotator.status != Annotator.Status.COMPLETED:
        return redirect("annotation:rate", slug=campaign.slug)
    return end_page(request, "annotation/done.html", campaign, annotator, {"rated": steps.progress(annotator).rated})
