"""The annotator's journey through a campaign: entry, consent, instructions, training, items, end.

Thin views over ``annotation.actions``: every write goes through an action. The annotator of a
campaign is remembered in the session (crowd workers have no account); a logged-in user without
an external id takes part as a local annotator.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from annotation.actions import claim_check_item, claim_next_item, enter_campaign, submit_rating
from annotation.models import Annotator, Assignment, Campaign, Item, Rating
from annotation.protocol import MAX_PARAPHRASES, QUESTIONS, gold_correct, validate_answers

# Query parameters of a crowd link, per platform: external id, then study/session/assignment ids.
CROWD_PARAMETERS = [
    (Annotator.PROLIFIC, "PROLIFIC_PID", {"study_id": "STUDY_ID", "session_id": "SESSION_ID"}),
    (Annotator.MTURK, "workerId", {"assignment_id": "assignmentId", "study_id": "hitId"}),
    (Annotator.GENERIC, "worker_id", {"study_id": "study_id", "session_id": "session_id"}),
]
MAX_ID_LENGTH = 200
ATTENTION_EVERY = 5
SCALE = range(6)


def session_key(campaign: Campaign) -> str:
    return f"annotation:{campaign.slug}"


def unavailable(request: HttpRequest, campaign: Campaign | None, title: str, text: str, status: int) -> HttpResponse:
    context = {"campaign": campaign, "title": title, "text": text}
    return render(request, "annotation/unavailable.html", context, status=status)


def closed_response(request: HttpRequest, campaign: Campaign) -> HttpResponse | None:
    """The page for a campaign that does not take annotations now, or None when it is open."""
    if campaign.status == Campaign.OPEN:
        return None
    if campaign.status == Campaign.CLOSED:
        return unavailable(
            request, campaign, "This study has ended", "It no longer accepts answers. Thank you for your interest.", 410
        )
    return unavailable(
        request,
        campaign,
        "This study is not open at the moment",
        "It does not accept answers right now. Please try again later or contact the researchers.",
        403,
    )


def current_annotator(request: HttpRequest, campaign: Campaign) -> Annotator | None:
    annotator_id = request.session.get(session_key(campaign))
    if annotator_id is not None:
        annotator = Annotator.objects.filter(pk=annotator_id, campaign=campaign).select_related("campaign").first()
        if annotator is not None:
            return annotator
    if request.user.is_authenticated:
        return Annotator.objects.filter(campaign=campaign, user=request.user).select_related("campaign").first()
    return None


def journey(view=None, *, after_close: bool = False):
    """Load the campaign and the session's annotator; refuse closed campaigns and strangers.

    ``after_close``: the page stays visible to annotators who finished (their completion code).
    """
    if view is None:
        return lambda view: journey(view, after_close=after_close)

    def wrapper(request: HttpRequest, slug: str, *args, **kwargs) -> HttpResponse:
        campaign = get_object_or_404(Campaign, slug=slug)
        annotator = current_annotator(request, campaign)
        finished = annotator is not None and annotator.completed_at is not None
        if not (after_close and finished) and (response := closed_response(request, campaign)):
            return response
        if annotator is None:
            return unavailable(
                request,
                campaign,
                "Please use your study link",
                "We could not tell who you are. Open the link from your study platform again to continue.",
                403,
            )
        return view(request, campaign, annotator, *args, **kwargs)

    wrapper.__name__ = view.__name__
    wrapper.__doc__ = view.__doc__
    return wrapper


def start(request: HttpRequest, slug: str) -> HttpResponse:
    """Entry from a crowd link (Prolific, MTurk, generic worker id) or by a logged-in user."""
    campaign = get_object_or_404(Campaign, slug=slug)
    if response := closed_response(request, campaign):
        return response
    params = request.GET
    for platform, id_parameter, extra in CROWD_PARAMETERS:
        external_id = params.get(id_parameter, "").strip()
        if external_id:
            values = {field: params.get(name, "").strip() for field, name in extra.items()}
            if any(len(value) > MAX_ID_LENGTH for value in [external_id, *values.values()]):
                return unavailable(request, campaign, "This link is not valid", "An id in it is too long.", 400)
            annotator = enter_campaign(campaign, platform=platform, external_id=external_id, **values)
            break
    else:
        if not request.user.is_authenticated:
            return unavailable(
                request,
                campaign,
                "This link is missing your worker id",
                "Open the study from your crowdsourcing platform, or log in to take part with your account.",
                400,
            )
        annotator = enter_campaign(campaign, user=request.user)
    request.session[session_key(campaign)] = annotator.pk
    return redirect("annotation:rate", slug=campaign.slug)


@require_http_methods(["GET", "POST"])
@journey
def consent(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    if request.method == "POST":
        if "agree" not in request.POST:
            return render(
                request,
                "annotation/consent.html",
                {"campaign": campaign, "error": "Please tick the box to agree, or close this page to leave."},
                status=400,
            )
        if annotator.consented_at is None:
            Annotator.objects.filter(pk=annotator.pk, consented_at__isnull=True).update(consented_at=timezone.now())
        return redirect("annotation:instructions", slug=campaign.slug)
    if annotator.consented_at is not None:
        return redirect("annotation:rate", slug=campaign.slug)
    return render(request, "annotation/consent.html", {"campaign": campaign})


@journey
def instructions(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    if annotator.consented_at is None:
        return redirect("annotation:consent", slug=campaign.slug)
    has_training = campaign.items.filter(role=Item.TRAINING).exists()
    return render(request, "annotation/instructions.html", {"campaign": campaign, "has_training": has_training})


def training_result(annotator: Annotator) -> bool | None:
    """True or False once every training item is answered (pass mark reached or not), else None."""
    campaign = annotator.campaign
    total = campaign.items.filter(role=Item.TRAINING).count()
    ratings = list(Rating.objects.filter(annotator=annotator, item__role=Item.TRAINING).select_related("item"))
    if len(ratings) < total:
        return None
    right = sum(all(check.values()) for check in map(gold_checks, ratings))
    return right / total >= campaign.training_pass_mark if total else True


def gold_checks(rating: Rating) -> dict[str, bool]:
    tolerance = rating.item.campaign.gold_tolerance
    return {
        "head_score": gold_correct(rating.head_score, rating.item.gold_head, tolerance),
        "modifier_score": gold_correct(rating.modifier_score, rating.item.gold_modifier, tolerance),
        "compound_score": gold_correct(rating.compound_score, rating.item.gold_compound, tolerance),
    }


def next_assignment(annotator: Annotator) -> Assignment | str:
    """The assignment to show now, or the name of the page that comes instead."""
    campaign = annotator.campaign
    if annotator.consented_at is None:
        return "annotation:consent"
    if annotator.training_passed is False:
        return "annotation:training_failed"
    if annotator.completed_at is not None:
        return "annotation:done"
    if annotator.training_passed is None and campaign.items.filter(role=Item.TRAINING).exists():
        if assignment := claim_check_item(annotator, Item.TRAINING):
            return assignment
        passed = training_result(annotator)
        Annotator.objects.filter(pk=annotator.pk).update(training_passed=passed)
        annotator.training_passed = passed
        if not passed:
            return "annotation:training_failed"
    current = annotator.assignments.filter(status=Assignment.RESERVED, expires_at__gte=timezone.now())
    if assignment := current.select_related("item").first():
        return assignment
    done = regular_done(annotator)
    attention_shown = annotator.assignments.filter(item__role=Item.ATTENTION).count()
    if done // ATTENTION_EVERY > attention_shown and (check := claim_check_item(annotator, Item.ATTENTION)):
        return check
    if assignment := claim_next_item(annotator):
        return assignment
    Annotator.objects.filter(pk=annotator.pk, completed_at__isnull=True).update(completed_at=timezone.now())
    return "annotation:done"


def regular_done(annotator: Annotator) -> int:
    return Rating.objects.filter(annotator=annotator, item__role=Item.REGULAR).count()


def regular_total(campaign: Campaign) -> int:
    total = campaign.items.filter(role=Item.REGULAR).count()
    if campaign.max_items_per_annotator is not None:
        total = min(total, campaign.max_items_per_annotator)
    return total


def article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def questions(campaign: Campaign, item: Item) -> list[dict]:
    """The protocol's three questions about this item's compound, as (before, NC, after) pieces."""
    compound = item.compound
    words = compound.text.split()
    head = compound.head or (words[-1] if words else compound.text)
    modifier = compound.modifier or (" ".join(words[:-1]) or compound.text)
    nc = compound.text
    english = campaign.language.split("-")[0] == "en"
    head_q = (
        (f"How literally is {article(nc)} ", f" {article(head)} {head}?")
        if english
        else ("How literally is ", f" a {head}?")
    )
    if english:
        modifier_q = (f"How literal is the use of “{modifier}” in ", "?")
    else:
        modifier_q = ("How literally is ", f" {modifier}?")
    texts = {
        "head_score": head_q,
        "modifier_score": modifier_q,
        "compound_score": ("How literal is the whole compound ", "?"),
    }
    return [{"name": name, "before": texts[name][0], "nc": nc, "after": texts[name][1]} for name in QUESTIONS]


def item_sentences(item: Item) -> list:
    """The sentence of a token-level item, or the compound's available naturalistic sentences."""
    if item.sentence_id:
        return [item.sentence]
    return list(item.compound.sentences.filter(kind="naturalistic", available=True).order_by("slot")[:3])


def rating_context(campaign: Campaign, annotator: Annotator, assignment: Assignment, data=None, errors=None) -> dict:
    item = assignment.item
    data = data or {}
    errors = errors or {}
    fields = []
    for question in questions(campaign, item):
        name = question["name"]
        value = str(data.get(name, "")).strip()
        fields.append(question | {"value": value, "error": errors.get(name), "scale": [str(i) for i in SCALE]})
    paraphrases = [str(data.get(f"paraphrase_{i}", "")) for i in range(1, MAX_PARAPHRASES + 1)]
    sentences = item_sentences(item)
    training_total = campaign.items.filter(role=Item.TRAINING).count()
    return {
        "campaign": campaign,
        "assignment": assignment,
        "item": item,
        "sentences": sentences,
        "fields": fields,
        "paraphrases": paraphrases,
        "errors": errors,
        "done": regular_done(annotator),
        "total": regular_total(campaign),
        "training_done": Rating.objects.filter(annotator=annotator, item__role=Item.TRAINING).count(),
        "training_total": training_total,
    }


@require_http_methods(["GET", "POST"])
@journey
def rate(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    """The current item (GET) or a submitted rating (POST, then redirect: post/redirect/get)."""
    if request.method == "POST":
        return submit(request, campaign, annotator)
    target = next_assignment(annotator)
    if isinstance(target, str):
        return redirect(target, slug=campaign.slug)
    return render(request, "annotation/rate.html", rating_context(campaign, annotator, target))


def submit(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    token = request.POST.get("token", "")
    try:
        assignment = annotator.assignments.select_related("item__compound", "item__sentence").get(token=token)
    except (Assignment.DoesNotExist, ValueError, ValidationError):
        messages.warning(request, "That item is not assigned to you; here is your current one.")
        return redirect("annotation:rate", slug=campaign.slug)
    if assignment.status == Assignment.SUBMITTED:
        # A repeated submission (double click, back button): the rating is stored; move on.
        return redirect("annotation:rate", slug=campaign.slug)
    answers, errors = validate_answers(request.POST)
    if errors:
        context = rating_context(campaign, annotator, assignment, request.POST, errors)
        return render(request, "annotation/rate.html", context, status=400)
    if assignment.status == Assignment.EXPIRED and assignment.item.role != Item.REGULAR:
        # Check items are everyone's: a late answer renews the reservation instead of competing for N.
        Assignment.objects.filter(pk=assignment.pk, status=Assignment.EXPIRED).update(status=Assignment.RESERVED)
    outcome = submit_rating(annotator, token, answers)
    if outcome.errors:
        messages.warning(request, outcome.errors.get("token", "Your answer could not be stored."))
        return redirect("annotation:rate", slug=campaign.slug)
    if assignment.item.role == Item.TRAINING and not outcome.repeated:
        return redirect("annotation:feedback", slug=campaign.slug, token=assignment.token)
    return redirect("annotation:rate", slug=campaign.slug)


@journey
def feedback(request: HttpRequest, campaign: Campaign, annotator: Annotator, token) -> HttpResponse:
    """What the gold answers of a training item were, next to the annotator's."""
    rating = get_object_or_404(
        Rating.objects.select_related("item__campaign", "item__compound", "item__sentence"),
        assignment__token=token,
        annotator=annotator,
        item__role=Item.TRAINING,
    )
    checks = gold_checks(rating)
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


@journey
def training_failed(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    if annotator.training_passed is not False:
        return redirect("annotation:rate", slug=campaign.slug)
    return render(request, "annotation/training_failed.html", {"campaign": campaign})


@journey(after_close=True)
def done(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    if annotator.completed_at is None:
        return redirect("annotation:rate", slug=campaign.slug)
    context = {"campaign": campaign, "annotator": annotator, "rated": regular_done(annotator)}
    return render(request, "annotation/done.html", context)
