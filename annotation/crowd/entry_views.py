"""The annotator's journey through a campaign: entry, consent, instructions, training, items, end.

Thin views over ``annotation.actions``: every write goes through an action. The annotator of a
campaign is remembered in the session (crowd workers have no account); a logged-in user without
an external id takes part as a local annotator.
"""

from __future__ import annotations

import secrets
from functools import wraps

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import add_never_cache_headers
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from annotation.actions import enrol, record_consent
from annotation.crowd import journey as steps
from annotation.curate.study_setup import instruction_examples
from annotation.models import Annotator, Campaign, Item
from annotation.platforms import MTURK_FRAMERS, mturk_submit_url
from annotation.protocol import question_pieces
from annotation.reads import ANNOTATOR_WITH_CAMPAIGN

# Query parameters of a crowd link, per platform: external id, then study/session/assignment ids.
CROWD_PARAMETERS = [
    (Annotator.Platform.PROLIFIC, "PROLIFIC_PID", {"study_id": "STUDY_ID", "session_id": "SESSION_ID"}),
    (Annotator.Platform.MTURK, "workerId", {"assignment_id": "assignmentId", "study_id": "hitId"}),
    (Annotator.Platform.GENERIC, "worker_id", {"study_id": "study_id", "session_id": "session_id"}),
]
# Carried from the link to the consent form too: where an MTurk worker's browser submits the HIT.
MTURK_SUBMIT_PARAMETER = "turkSubmitTo"
MAX_ID_LENGTH = 200
# Wrong resume codes a worker id may be tried with before it is locked for a while.
RESUME_ATTEMPTS = 5
RESUME_LOCK_SECONDS = 15 * 60


def session_key(slug: str) -> str:
    """Where the session keeps its annotator of the campaign ``slug`` (read before the campaign is loaded)."""
    return f"annotation:{slug}"


def mturk_session_key(slug: str) -> str:
    """Where the session keeps an MTurk worker's externalSubmit address for the campaign ``slug``."""
    return f"annotation:{slug}:mturk-submit"


def unavailable(request: HttpRequest, campaign: Campaign | None, title: str, text: str, status: int) -> HttpResponse:
    context = {"campaign": campaign, "title": title, "text": text}
    return render(request, "annotation/unavailable.html", context, status=status)


def closed_response(request: HttpRequest, campaign: Campaign) -> HttpResponse | None:
    """The page for a campaign that does not take annotations now, or None when it is open."""
    if campaign.status == Campaign.Status.OPEN:
        return None
    if campaign.status == Campaign.Status.CLOSED:
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
    annotator_id = request.session.get(session_key(campaign.slug))
    annotator = None
    if annotator_id is not None:
        annotator = Annotator.objects.filter(pk=annotator_id, campaign=campaign).first()
    if annotator is None and request.user.is_authenticated:
        annotator = Annotator.objects.filter(campaign=campaign, user=request.user).first()
    if annotator is not None:
        # The request's own campaign object: what a step works out about it (its item counts) is kept once.
        annotator.campaign = campaign
    return annotator


def journey(view=None, *, after_close: bool = False):
    """Load the campaign and the session's annotator; refuse closed campaigns and strangers.

    ``after_close``: the page stays visible to annotators who finished (their code).
    Every page is ``no-store``: a browser never shows a kept copy (Back, bfcache), it asks again.
    """
    if view is None:
        return lambda view: journey(view, after_close=after_close)

    @wraps(view)
    def wrapper(request: HttpRequest, slug: str, *args, **kwargs) -> HttpResponse:
        response = _journey_response(request, slug, view, after_close, *args, **kwargs)
        add_never_cache_headers(response)
        if request.session.get(mturk_session_key(slug)):
            framed_by_mturk(response)
        return response

    return wrapper


def framed_by_mturk(response: HttpResponse) -> HttpResponse:
    """Let MTurk's worker sites, and no other site, show the page in their iframe (an ExternalQuestion HIT)."""
    response._csp_replace = {"frame-ancestors": list(MTURK_FRAMERS)}
    response.xframe_options_exempt = True
    return response


def _journey_response(request: HttpRequest, slug: str, view, after_close: bool, *args, **kwargs) -> HttpResponse:
    # The session's annotator with its campaign in one query (every submit and every next item comes here).
    annotator = session_annotator(request.session.get(session_key(slug)), slug)
    if annotator is not None:
        campaign = annotator.campaign
    else:
        campaign = get_object_or_404(Campaign, slug=slug)
        annotator = current_annotator(request, campaign)
    finished = annotator is not None and annotator.status != Annotator.Status.ACTIVE
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


def session_annotator(annotator_id: int | None, slug: str) -> Annotator | None:
    """The session's annotator of the campaign ``slug``, with its campaign, in one query."""
    if not isinstance(annotator_id, int):
        return None
    return ANNOTATOR_WITH_CAMPAIGN.first(annotator_id, slug)


def crowd_identity(params) -> tuple[str, str, dict[str, str]] | None:
    """(platform, external id, study/session/assignment ids) of a crowd link's parameters, or None."""
    for platform, id_parameter, extra in CROWD_PARAMETERS:
        if external_id := params.get(id_parameter, "").strip():
            return platform, external_id, {field: params.get(name, "").strip() for field, name in extra.items()}
    return None


def link_parameters(params) -> list[tuple[str, str]]:
    """The crowd link's parameters that are present, to carry from the link to the consent form's POST."""
    names = [name for _, id_parameter, extra in CROWD_PARAMETERS for name in (id_parameter, *extra.values())]
    names.append(MTURK_SUBMIT_PARAMETER)
    return [(name, params[name]) for name in dict.fromkeys(names) if params.get(name)]


def consent_page(request: HttpRequest, campaign: Campaign, params, error: str = "", status: int = 200) -> HttpResponse:
    context = {"campaign": campaign, "link_parameters": link_parameters(params), "error": error}
    context["estimate"] = steps.study_estimate(campaign, steps.campaign_counts(campaign))
    return render(request, "annotation/consent.html", context, status=status)


def full_page(request: HttpRequest, campaign: Campaign, platform: str) -> HttpResponse:
    """No item is left: said before anyone agrees to take part, with the platform's return path (no code)."""
    return render(request, "annotation/full.html", steps.full_context(campaign, platform))


@never_cache
@require_http_methods(["GET", "POST"])
def start(request: HttpRequest, slug: str) -> HttpResponse:
    """Entry from a crowd link (Prolific, MTurk, generic worker id) or by a logged-in user.

    The link (GET) shows the consent form and changes nothing; agreeing (POST, with the link's
    parameters) enrols the annotator. An annotator of this browser session who agreed before goes
    straight on to the items.
    """
    params = request.POST if request.method == "POST" else request.GET
    response = _start(request, slug, params)
    if params.get("assignmentId") or params.get(MTURK_SUBMIT_PARAMETER):
        framed_by_mturk(response)
    return response


def _start(request: HttpRequest, slug: str, params) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    if response := closed_response(request, campaign):
        return response
    identity = crowd_identity(params)
    if identity is None and not request.user.is_authenticated:
        return unavailable(
            request,
            campaign,
            "This link is missing your worker id",
            "Open the study from your crowdsourcing platform, or log in to take part with your account.",
            400,
        )
    if identity and any(len(value) > MAX_ID_LENGTH for value in [identity[1], *identity[2].values()]):
        return unavailable(request, campaign, "This link is not valid", "An id in it is too long.", 400)
    if request.method == "GET":
        known = current_annotator(request, campaign)
        same = known is not None and (
            (known.platform, known.external_id) == identity[:2] if identity else known.user_id == request.user.pk
        )
        if same and known.consented_at is not None:
            return redirect("annotation:rate", slug=campaign.slug)
        if identity and not same and (other := enrolled_worker(campaign, identity)):
            return already_open(request, campaign, other, params)
        if not steps.campaign_has_open_items(campaign):
            return full_page(request, campaign, identity[0] if identity else Annotator.Platform.LOCAL)
        return consent_page(request, campaign, params)
    if "agree" not in request.POST:
        return consent_page(
            request, campaign, params, "Please tick the box to agree, or close this page to leave.", 400
        )
    if identity:
        platform, external_id, ids = identity
        annotator, created = enrol(campaign, platform=platform, external_id=external_id, **ids)
        if not created and request.session.get(session_key(campaign.slug)) != annotator.pk:
            # The id alone is no credential: another browser holds this worker's study.
            return already_open(request, campaign, annotator, params)
        remember_mturk_submit(request, campaign, annotator, params)
    else:
        annotator, _ = enrol(campaign, user=request.user)
    request.session[session_key(campaign.slug)] = annotator.pk
    if annotator.consented_at is not None:
        return redirect("annotation:rate", slug=campaign.slug)
    record_consent(annotator)
    return redirect("annotation:instructions", slug=campaign.slug)


def enrolled_worker(campaign: Campaign, identity: tuple[str, str, dict]) -> Annotator | None:
    """The campaign's annotator with this crowd link's platform id, if one enrolled already."""
    platform, external_id, _ = identity
    return Annotator.objects.filter(campaign=campaign, platform=platform, external_id=external_id).first()


def remember_mturk_submit(request: HttpRequest, campaign: Campaign, annotator: Annotator, params) -> None:
    """Keep where an MTurk worker's browser submits the HIT at the end (from the link's turkSubmitTo)."""
    if annotator.platform == Annotator.Platform.MTURK and (
        submit_url := mturk_submit_url(params.get(MTURK_SUBMIT_PARAMETER, ""))
    ):
        request.session[mturk_session_key(campaign.slug)] = submit_url


def already_open(
    request: HttpRequest, campaign: Campaign, annotator: Annotator, params, error: str = "", status: int = 409
) -> HttpResponse:
    """This worker's study is bound to another browser: continue here only with the worker's resume code."""
    context = {
        "campaign": campaign,
        "link_parameters": link_parameters(params),
        "error": error,
        "platform": annotator.platform,
        "finished": annotator.status != Annotator.Status.ACTIVE,
    }
    return render(request, "annotation/already_open.html", context, status=status)


@never_cache
@require_POST
def resume(request: HttpRequest, slug: str) -> HttpResponse:
    """Continue a crowd worker's study in this browser: the link's ids and the worker's own resume code."""
    campaign = get_object_or_404(Campaign, slug=slug)
    if response := closed_response(request, campaign):
        return response
    identity = crowd_identity(request.POST)
    annotator = enrolled_worker(campaign, identity) if identity else None
    if annotator is None:
        return unavailable(request, campaign, "This link is not valid", "Open the study from your platform again.", 400)
    failures_key = f"annotation:resume-failures:{annotator.pk}"
    if cache.get(failures_key, 0) >= RESUME_ATTEMPTS:
        error = "Too many wrong codes. Please wait 15 minutes, or return the study on your platform."
        return already_open(request, campaign, annotator, request.POST, error, status=429)
    given = request.POST.get("resume_code", "").upper().replace("-", "").replace(" ", "")
    if not secrets.compare_digest(given.encode(), annotator.resume_code.encode()):
        if not cache.add(failures_key, 1, RESUME_LOCK_SECONDS):
            cache.incr(failures_key)
        error = "That is not the resume code of this study: it was shown on your instructions page."
        return already_open(request, campaign, annotator, request.POST, error, status=400)
    cache.delete(failures_key)
    request.session.cycle_key()
    request.session[session_key(campaign.slug)] = annotator.pk
    remember_mturk_submit(request, campaign, annotator, request.POST)
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
        record_consent(annotator)
        return redirect("annotation:instructions", slug=campaign.slug)
    if annotator.consented_at is not None:
        return redirect("annotation:rate", slug=campaign.slug)
    if not steps.has_open_items(annotator):
        return redirect("annotation:full", slug=campaign.slug)
    estimate = steps.study_estimate(campaign, steps.campaign_counts(campaign))
    return render(request, "annotation/consent.html", {"campaign": campaign, "estimate": estimate})


@journey
def instructions(request: HttpRequest, campaign: Campaign, annotator: Annotator) -> HttpResponse:
    if annotator.consented_at is None:
        return redirect("annotation:consent", slug=campaign.slug)
    counts = steps.campaign_counts(campaign)
    context = {"campaign": campaign, "has_training": bool(counts.training), "examples": instruction_examples(campaign)}
    context["practice"] = steps.practice_rule(campaign, counts)
    context["resume_code"] = annotator.resume_code if annotator.external_id else ""
    return render(request, "annotation/instructions.html", context)


def questions(campaign: Campaign, item: Item) -> list[dict]:
    """The protocol's three questions about this item's compound, as (before, NC, after) pieces."""
    compound = item.compound
    return question_pieces(compound.text, campaign.language, compound.head, compound.modifier)
