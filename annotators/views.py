"""The curator's page of a campaign's machine annotators: attach a model, follow its jobs, cancel or resume them."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation.models import Campaign
from annotators.actions import AnnotatorError, cancel_job
from annotators.forms import AttachModelForm
from annotators.models import AnnotationJob
from annotators.tasks import resume, start_job
from core.permissions import curator_required


@require_http_methods(["GET", "POST"])
@curator_required
def machine_annotators(request: HttpRequest, slug: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign, slug=slug)
    form = AttachModelForm(request.POST or None)
    code = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                job = start_job(
                    campaign, data["model"], data["template"] or None, data["samples"], form.settings(), request.user
                )
            except AnnotatorError as error:
                form.add_error(error.field if error.field in form.fields else None, str(error))
            else:
                messages.success(
                    request, f"Job {job.pk} started: {job.items_total} answers to ask of {job.model.name}."
                )
                return redirect("annotators:campaign", slug=campaign.slug)
        code = 400
    jobs = (
        AnnotationJob.objects.filter(campaign=campaign).select_related("model").prefetch_related("machine_annotators")
    )
    context = {"campaign": campaign, "form": form, "jobs": jobs, "refresh": any(not j.is_finished for j in jobs)}
    return render(request, "annotators/campaign.html", context, status=code)


@require_POST
@curator_required
def job_action(request: HttpRequest, slug: str, job_id: int, verb: str) -> HttpResponse:
    job = get_object_or_404(AnnotationJob, pk=job_id, campaign__slug=slug)
    if verb not in ("cancel", "resume"):
        raise Http404("No such action.")
    if verb == "cancel":
        cancel_job(job)
        messages.success(request, f"Job {job.pk} cancelled; its answers so far are kept.")
    else:
        try:
            pending = resume(job)
        except AnnotatorError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, f"Job {job.pk} resumed: {len(pending)} shard(s) sent again.")
    return redirect("annotators:campaign", slug=slug)
