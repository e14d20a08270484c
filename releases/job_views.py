"""The page of a release being built: progress while a worker builds it, then the release (or why it failed).

The release form answers at once (``releases.views.create_release_view``); this page polls the
job's JSON (``static/js/build_job.js``) and reloads when the job has finished: a finished job
opens the release page (or the publish confirmation, when the form asked to publish next), a
failed one says why, with the choices it was given and a link back to the form.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET

from core.permissions import curator_required
from releases.models import Release, ReleaseJob
from releases.views import publish_confirmation


@require_GET
@curator_required
def release_job(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(ReleaseJob.objects.select_related("created_by"), pk=pk)
    if job.status == ReleaseJob.Status.DONE:
        release = get_object_or_404(Release, version=job.version)
        if job.publish_next and not release.is_published:
            return publish_confirmation(request, release)
        messages.success(request, f"Release {release.version} created as a draft: check it, then publish it.")
        return redirect("release", version=release.version)
    return render(request, "datasets/releases/job.html", {"job": job, "options": _options(job.options)})


@require_GET
@curator_required
def release_job_json(request: HttpRequest, pk: int) -> JsonResponse:
    """What the job page polls (the fields ``build_job.js`` reads)."""
    job = get_object_or_404(ReleaseJob, pk=pk)
    done = int(job.status == ReleaseJob.Status.DONE)
    return JsonResponse(
        {
            "id": job.pk,
            "version": job.version,
            "status": job.status,
            "done": done,
            "total": 1,
            "progress": float(done),
            "message": job.message,
            "finished": job.is_finished,
        }
    )


def _options(options: dict) -> list[tuple[str, str]]:
    """The form's choices in words, for the page."""
    labels = {"languages": "Languages", "collections": "Collections", "campaigns": "Campaigns", "policy": "Policy"}
    return [
        (label, ", ".join(options[key]) if isinstance(options[key], list) else options[key])
        for key, label in labels.items()
        if options.get(key)
    ]
