"""Curator pages for dataset-building jobs: counting a corpus, frequency tables, and any BuildJob's progress."""

from __future__ import annotations

import json
import os
from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import escape
from django.views.decorators.http import require_POST

from building.counts.actions import (
    GZIP_NOTE,
    MAX_CHUNKS,
    apply_frequency_table,
)
from building.counts.corpus.readers import FORMATS
from building.jobs import cancel_build_job
from building.models import BuildJob, FrequencyTable
from building.storage import store_upload
from building.tasks import start_corpus_count
from core.paths import inside_any
from core.permissions import curator_required
from datasets.forms import collection_choices, language_choices
from datasets.models import Collection

UPLOAD_DIR = "corpora"
JOBS_SHOWN = 100
SMALL_VALUE = 200  # characters of JSON: larger lists and dicts are shown as a count of entries


def summary(data: dict) -> dict:
    """A job's options or result fit for a page: scalars as they are, big lists and dicts as a count.

    Keys starting with "_" are the job's working state (partial sums, say) and are left out.
    """
    shown = {}
    for key, value in (data or {}).items():
        if key.startswith("_"):
            continue
        if isinstance(value, list | dict) and len(json.dumps(value)) > SMALL_VALUE:
            value = f"{len(value):,} entries"
        shown[key] = value
    return shown


def rows(data: dict) -> list[tuple[str, object]]:
    """The summary as (label, value) rows for a key/value table; whole numbers with thousands separators."""
    return [
        (key.replace("_", " ").capitalize(), f"{value:,}" if type(value) is int else value)
        for key, value in summary(data).items()
    ]


class CorpusCountForm(forms.Form):
    """A corpus (an upload or a path on the server) and how to count it."""

    corpus_file = forms.FileField(required=False, label="Upload a corpus file")
    server_path = forms.CharField(
        required=False,
        max_length=500,
        label="…or a path on the server",
        help_text="Read by the Celery workers; only inside the folders an administrator lists.",
    )
    language = forms.ChoiceField()
    collection = forms.ChoiceField(
        required=False, help_text="Whose compounds to count (all of the language by default)."
    )
    name = forms.CharField(
        required=False, max_length=150, help_text="Name of the frequency table (default: file name)."
    )
    format = forms.ChoiceField(
        required=False,
        choices=[("", "Detect from the file"), *((fmt, fmt) for fmt in FORMATS)],
        help_text=escape(
            "text: plain text, a line is a unit; conll: one token per line, blank line between sentences "
            "(CoNLL-U, brWaC); vertical: ukWaC-style XML, one token per line, sentences in <s> … </s>."
        ),
    )
    chunks = forms.IntegerField(
        min_value=1,
        max_value=MAX_CHUNKS,
        initial=8,
        help_text=f"Parts counted in parallel by the workers. A .gz file is one chunk: {GZIP_NOTE}.",
    )
    extra = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        label="Extra words or n-grams",
        help_text="One per line (candidate words, say), counted along with the compounds.",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].choices = language_choices()
        self.fields["collection"].choices = collection_choices()

    def clean_corpus_file(self) -> UploadedFile | None:
        upload = self.cleaned_data.get("corpus_file")
        if upload is not None and upload.size == 0:
            raise forms.ValidationError("The uploaded file is empty.")
        return upload

    def clean_server_path(self) -> Path | None:
        """A file inside WORKBENCH_CORPUS_ROOTS (real path), refused before anything reads it."""
        text = self.cleaned_data["server_path"].strip()
        if not text:
            return None
        path = inside_any(text, settings.WORKBENCH_CORPUS_ROOTS) if os.path.isabs(text) else None
        if path is None or not path.is_file():
            # One answer for "outside the folders" and "not there": nothing is learnt about other files.
            raise forms.ValidationError(
                f"No corpus file at {text} in the folders an administrator lets curators read "
                "(WORKBENCH_CORPUS_ROOTS); upload the file instead."
            )
        return path

    def clean(self) -> dict:
        data = super().clean()
        has_upload, has_path = bool(data.get("corpus_file")), data.get("server_path") is not None
        if has_upload == has_path and not self.errors.get("corpus_file") and not self.errors.get("server_path"):
            raise forms.ValidationError("Upload a file or give a server path (one of the two).")
        return data


@curator_required
def corpus_count(request: HttpRequest) -> HttpResponse:
    """Start counting a corpus; list the frequency tables made so far."""
    form = CorpusCountForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        upload = data["corpus_file"]
        # An upload goes to the storage every worker reads; a server path is read where each worker runs.
        corpus = store_upload(upload, UPLOAD_DIR) if upload else data["server_path"]
        try:
            job = start_corpus_count(
                corpus,
                data["language"],
                data["name"] or Path(upload.name if upload else corpus).name,
                fmt=data["format"] or None,
                chunks=data["chunks"],
                collection=data["collection"] or None,
                extra=[line for line in data["extra"].splitlines() if line.strip()],
                user=request.user,
            )
        except ValueError as exc:
            form.add_error(None, str(exc).capitalize() + ".")
        else:
            return redirect("build_job", pk=job.pk)
    tables = list(FrequencyTable.objects.defer("counts").select_related("job"))
    for table in tables:
        table.targets_found = (table.job.result or {}).get("targets_found") if table.job else None
    return render(
        request,
        "datasets/build/corpus.html",
        {"form": form, "tables": tables, "collections": Collection.objects.all()},
    )


@require_POST
@curator_required
def apply_frequency_table_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Write a table's frequencies and PMI to the compounds of its language (optionally one collection)."""
    table = get_object_or_404(FrequencyTable, pk=pk)
    collection = request.POST.get("collection") or None
    changed = apply_frequency_table(table, collection)
    messages.success(request, f"Frequencies and PMI from {table.name} written to {changed} compounds.")
    return redirect("corpus_count")


@curator_required
def build_jobs(request: HttpRequest) -> HttpResponse:
    jobs = BuildJob.objects.select_related("created_by").defer("options")[:JOBS_SHOWN]
    return render(request, "datasets/build/jobs.html", {"jobs": jobs, "shown": JOBS_SHOWN})


@curator_required
def build_job(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(BuildJob.objects.select_related("created_by"), pk=pk)
    return render(
        request,
        "datasets/build/job.html",
        {"job": job, "result": rows(job.result), "options": rows(job.options), "percent": round(job.progress * 100)},
    )


@curator_required
def build_job_json(request: HttpRequest, pk: int) -> JsonResponse:
    """What the job page polls: status, progress and a summary of the result."""
    job = get_object_or_404(BuildJob, pk=pk)
    return JsonResponse(
        {
            "id": job.pk,
            "kind": job.kind,
            "status": job.status,
            "done": job.done,
            "total": job.total,
            "progress": job.progress,
            "message": job.message,
            "result": summary(job.result),
            "finished": job.is_finished,
        }
    )


@require_POST
@curator_required
def cancel_build_job_view(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(BuildJob, pk=pk)
    if cancel_build_job(job.pk):
        messages.success(request, f"{job} cancelled: its remaining tasks will exit without work.")
    else:
        messages.error(request, f"{job} had already finished.")
    return redirect("build_job", pk=job.pk)
