"""Bring your own compounds and sentences: upload, a dry-run preview, then a confirmed import (curators).

Thin views over ``datasets.uploads``: the upload is kept under a token that only this session
knows; the preview imports nothing (a dry run), and says what would be created and every bad row
with its file, line and reason; the import is a POST from the preview.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from core.permissions import curator_required
from datasets import uploads
from datasets.formats.records import InputError
from datasets.forms import UploadForm


def session_key(token: str) -> str:
    return f"datasets:upload:{token}"


@require_http_methods(["GET", "POST"])
@curator_required
def upload(request: HttpRequest) -> HttpResponse:
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        fmt = uploads.FORMATS[form.cleaned_data["format"]]
        try:
            token = uploads.save_upload(fmt, form.cleaned_data["files"])
        except uploads.UploadError as error:
            form.add_error("files", str(error))
        else:
            request.session[session_key(token)] = {
                "format": fmt.key,
                "language": form.cleaned_data["language"],
                "collection": form.cleaned_data["collection"],
            }
            return redirect("datasets_upload_preview", token=token)
    status = 400 if form.errors else 200
    return render(request, "datasets/upload.html", {"form": form, "formats": uploads.FORMATS}, status=status)


@require_http_methods(["GET", "POST"])
@curator_required
def upload_preview(request: HttpRequest, token: str) -> HttpResponse:
    """GET: what the import would do (a dry run). POST: import it, or discard it."""
    chosen = request.session.get(session_key(token))
    if chosen is None:
        raise Http404("No such upload in this session.")
    fmt = uploads.FORMATS[chosen["format"]]
    if request.method == "POST" and "discard" in request.POST:
        uploads.discard(token)
        del request.session[session_key(token)]
        messages.info(request, "The upload was discarded: nothing was imported.")
        return redirect("datasets_upload")
    dry_run = request.method != "POST"
    context = {"fmt": fmt, "chosen": chosen, "token": token, "dry_run": dry_run}
    try:
        summary = uploads.run_import(fmt, token, chosen["language"], chosen["collection"], dry_run=dry_run)
    except InputError as error:
        # The files must be fixed and uploaded again: these are of no further use.
        uploads.discard(token)
        del request.session[session_key(token)]
        context["errors"] = error.problems
        return render(request, "datasets/upload_preview.html", context, status=400)
    except uploads.UploadError as error:
        messages.error(request, str(error))
        return redirect("datasets_upload")
    if dry_run:
        context["summary"] = summary
        return render(request, "datasets/upload_preview.html", context)
    uploads.discard(token)
    del request.session[session_key(token)]
    created = summary.tallies["compounds"].created
    messages.success(
        request,
        f"Imported into {chosen['collection']}: {created} new compound{'s' if created != 1 else ''}, "
        f"{summary.tallies['sentences'].created} new sentences (import run {summary.import_run_id}).",
    )
    return redirect(f"{reverse('home')}?collection={chosen['collection']}")
