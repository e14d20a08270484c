"""Probe run pages: the runs (and a curator's form to start one), one report page per run, downloads, comparison.

Anyone reads runs and reports, as anyone reads the published releases they measure; curators start,
cancel and resume runs. The numbers come from ``probing.reporting.run_report``; the tables are
shaped in ``probing.report_tables`` and the figures drawn in ``probing.figures``.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from annotation.permissions import curator_required, is_curator
from datasets.release_models import Release, version_key
from probing import actions, figures, reporting
from probing import report_tables as tables
from probing.loading import estimate_cost
from probing.models import EmbeddingModel, ProbeRun

MAX_COMPARED = 8
RUNS_PER_PAGE = 50


class StartRunForm(forms.Form):
    """A published release, a registered model and optional overrides of the model's config."""

    release = forms.ModelChoiceField(Release.objects.none(), to_field_name="version", empty_label=None)
    model = forms.ModelChoiceField(EmbeddingModel.objects.order_by("name"), to_field_name="name", empty_label=None)
    layers = forms.CharField(
        required=False,
        max_length=100,
        help_text="Hidden-state layers averaged, such as -4,-3,-2,-1 (blank: the model's default).",
    )
    include_special_tokens = forms.TypedChoiceField(
        required=False,
        choices=[("", "Model default"), ("yes", "Yes"), ("no", "No")],
        coerce=lambda value: {"yes": True, "no": False}.get(value),
        empty_value=None,
        label="Special tokens in the sentence mean",
    )
    batch_size = forms.IntegerField(required=False, min_value=1, max_value=4096)
    max_length = forms.IntegerField(required=False, min_value=8, max_value=32768)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        releases = sorted(Release.objects.published().defer("manifest"), key=lambda r: version_key(r.version))
        self.fields["release"].queryset = Release.objects.published()
        self.fields["release"].choices = [(r.version, f"{r.version} {r.title}".strip()) for r in reversed(releases)]

    def clean_layers(self) -> list[int] | None:
        text = self.cleaned_data["layers"].strip()
        if not text:
            return None
        try:
            return [int(part) for part in text.replace(" ", ",").split(",") if part]
        except ValueError:
            raise forms.ValidationError("Whole numbers separated by commas, such as -4,-3,-2,-1.") from None

    def overrides(self) -> dict:
        """The config values given (the rest comes from the model's defaults)."""
        data = self.cleaned_data
        names = ["layers", "include_special_tokens", "batch_size", "max_length"]
        return {name: data[name] for name in names if data.get(name) is not None}


@require_http_methods(["GET", "HEAD", "POST"])
def probe_runs(request: HttpRequest) -> HttpResponse:
    """Every run, newest first, and the registered models; a curator's POST starts a run."""
    if request.method == "POST":
        return start_run_view(request)
    return _runs_page(request, StartRunForm() if is_curator(request.user) else None)


def _runs_page(request: HttpRequest, form: StartRunForm | None, status: int = 200) -> HttpResponse:
    runs = ProbeRun.objects.select_related("release", "model", "created_by").defer("report", "release__manifest")
    page = Paginator(runs, RUNS_PER_PAGE).get_page(request.GET.get("page"))
    runs = list(page.object_list)
    models = list(EmbeddingModel.objects.order_by("name"))
    identities: dict[int, dict] = {}
    for run in runs:  # newest first: a model's identity is the one its latest run loaded
        run.duration = _duration(run) or "–"
        if identity := (run.provenance or {}).get("model_identity"):
            identities.setdefault(run.model_id, identity)
    current = Release.objects.current()
    for model in models:
        identity = identities.get(model.pk) or {}
        model.identity = [(key, str(value)) for key, value in identity.items() if key not in ("kind", "name")]
        # A paid API's cost is shown before anyone starts a run with it.
        model.cost = estimate_cost(current, model) if current is not None and model.kind == "openai" else None
    return render(
        request,
        "probing/runs.html",
        {
            "runs": runs,
            "page": page,
            "models": models,
            "form": form,
            "current_version": current.version if current else "",
        },
        status=status,
    )


@curator_required
def start_run_view(request: HttpRequest) -> HttpResponse:
    form = StartRunForm(request.POST)
    if not form.is_valid():
        return _runs_page(request, form, status=400)
    try:
        run = actions.start_probe_run(
            form.cleaned_data["release"], form.cleaned_data["model"], config=form.overrides(), user=request.user
        )
    except ValueError as error:
        form.add_error(None, str(error))
        return _runs_page(request, form, status=400)
    messages.success(request, f"Probe run #{run.pk} started.")
    return redirect("probe_run", pk=run.pk)


def get_run(pk: int) -> ProbeRun:
    return get_object_or_404(ProbeRun.objects.select_related("release", "model", "created_by"), pk=pk)


@require_GET
def probe_run(request: HttpRequest, pk: int) -> HttpResponse:
    """Live progress while the run works; its tables and figures once it has numbers."""
    run = get_run(pk)
    report = reporting.run_report(run)
    per_compound = report.get("per_compound") or []
    show_all = request.GET.get("all") == "1"
    sort = request.GET.get("sort", "")
    chosen = {name: _chosen(request, name, values) for name, values in tables.compound_filters(per_compound).items()}
    progress = run.progress()
    return render(
        request,
        "probing/run.html",
        {
            "run": run,
            "progress": progress,
            "percent": round(100 * progress["fraction"]),
            "eta": tables.format_duration(progress["eta_seconds"]) if not run.is_finished else "–",
            "duration": _duration(run),
            "provenance": tables.provenance_rows(report.get("provenance") or {}),
            "has_results": bool(per_compound or report.get("summary") or report.get("correlations")),
            "summary": tables.summary_tables(report.get("summary") or []),
            "correlations": tables.correlation_tables(report.get("correlations") or [], show_all),
            "show_all": show_all,
            "query_with_all": _query(request, all="1"),
            "query_without_all": _query(request, all=None),
            "compounds": tables.compound_cells(tables.compound_rows(per_compound, sort=sort, **chosen)),
            "compound_columns": _sortable_columns(request, sort),
            "filters": [
                {"name": name, "options": [(value, value == chosen[name]) for value in values]}
                for name, values in tables.compound_filters(per_compound).items()
            ],
            "sort": sort,
            "extra_tables": _extra_tables(report, show_all),
            "distributions": figures.distribution_figures(per_compound),
            "class_figures": figures.class_figures(per_compound),
            "downloads": [(name, reverse("probe_run_csv", args=[run.pk, name])) for name in reporting.TABLES],
            "can_manage": is_curator(request.user),
        },
    )


def _duration(run: ProbeRun) -> str:
    if run.started_at is None:
        return ""
    if run.finished_at is None:
        return "running for " + tables.format_duration((timezone.now() - run.started_at).total_seconds())
    return tables.format_duration((run.finished_at - run.started_at).total_seconds())


def _query(request: HttpRequest, **changes: str | None) -> str:
    """The page's query string with ``changes`` applied (None removes a key)."""
    query = request.GET.copy()
    for key, value in changes.items():
        if value is None:
            query.pop(key, None)
        else:
            query[key] = value
    return query.urlencode()


def _chosen(request: HttpRequest, name: str, values: list[str]) -> str:
    """The filter value asked for; by default the NC level and naturalistic sentences, like table 8."""
    if name in request.GET:
        value = request.GET[name]
        return value if value in values else ""
    default = {"level": "nc", "condition": "naturalistic"}.get(name, "")
    return default if default in values else ""


def _sortable_columns(request: HttpRequest, sort: str) -> list[dict]:
    """Headers of the per-compound table, each a link sorting on it (again: the other way round)."""
    query = request.GET.copy()
    columns = []
    for key in tables.COMPOUND_COLUMNS:
        descending = sort == key  # a second click sorts descending
        query["sort"] = f"-{key}" if descending else key
        columns.append(
            {
                "key": key,
                "label": tables.MEASURE_LABELS.get(key, key.capitalize()),
                "href": f"?{query.urlencode()}#per-compound",
                "sorted": "ascending" if sort == key else "descending" if sort == f"-{key}" else "",
                "numeric": key not in ("compound", "language", "condition", "level", "class"),
            }
        )
    return columns


# The tables shown as they come, beyond the papers' tables above: (report key, title).
EXTRA_TABLES = [
    ("length_correlations", "Similarity and sentence length (EACL table 5)"),
    ("context_correlations", "NC in and out of context (EACL P4, ACL NC_out and NC_outComp, table 5)"),
    ("context", "NC in and out of context: similarities per compound"),
]
EXTRA_FIRST_COLUMNS = ["language", "compound", "condition", "level", "probe", "granularity", "against", "measure"]


def _extra_tables(report: dict, show_all: bool) -> list[dict]:
    """The length and context tables, as plain tables (their shape follows ``probing.analysis``)."""
    return [
        {
            "key": key,
            "title": title,
            **tables.plain_table(tables.significant_only(report.get(key) or [], show_all), EXTRA_FIRST_COLUMNS),
        }
        for key, title in EXTRA_TABLES
    ]


@require_GET
def probe_run_json(request: HttpRequest, pk: int) -> JsonResponse:
    """Progress for the run page's poller; ``?full=1`` the whole report with its provenance."""
    run = get_run(pk)
    if request.GET.get("full") == "1":
        return JsonResponse(reporting.run_report(run), json_dumps_params={"indent": 1})
    return JsonResponse({"run": run.pk, "finished": run.is_finished, **run.progress()})


@require_GET
def probe_run_report(request: HttpRequest, pk: int) -> HttpResponse:
    """The whole report as a JSON file (what ``probe_report RUN --format json`` prints)."""
    run = get_run(pk)
    body = json.dumps(reporting.run_report(run), indent=1, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json")
    response["Content-Disposition"] = content_disposition_header(True, f"probe-run-{run.pk}.json")
    return response


@require_GET
def probe_run_csv(request: HttpRequest, pk: int, table: str) -> HttpResponse:
    """One table as CSV, its provenance in ``#`` comment lines above the header."""
    run = get_run(pk)
    if table not in reporting.TABLES:
        raise Http404(f"No table {table!r}.")
    response = HttpResponse(reporting.report_csv(run, table), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"probe-run-{run.pk}-{table}.csv")
    return response


@require_POST
@curator_required
def probe_run_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_run(pk)
    actions.cancel_run(run)
    messages.success(request, f"Probe run #{run.pk} cancelled: finished shards are kept.")
    return redirect("probe_run", pk=run.pk)


@require_POST
@curator_required
def probe_run_resume(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_run(pk)
    try:
        actions.resume_run(run)
    except ValueError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Probe run #{run.pk} resumed: only unfinished shards run again.")
    return redirect("probe_run", pk=run.pk)


@require_GET
def probe_compare(request: HttpRequest) -> HttpResponse:
    """Runs side by side: their summaries, the model correlogram, the provenance of each."""
    ids = _run_ids([request.GET.get("runs", ""), *request.GET.getlist("run")])
    found = {run.pk: run for run in ProbeRun.objects.select_related("release", "model").filter(pk__in=ids)}
    runs = [found[pk] for pk in ids if pk in found]
    reports = [(run, reporting.run_report(run)) for run in runs]
    level = request.GET.get("level") if request.GET.get("level") in tables.LEVELS else "nc"
    standardised = request.GET.get("standardised") == "1"
    correlograms = figures.model_correlograms(
        {run_label(run): report.get("per_compound") or [] for run, report in reports},
        level,
        request.GET.get("group", ""),
    )
    return render(
        request,
        "probing/compare.html",
        {
            "runs": runs,
            "ids": ",".join(str(run.pk) for run in runs),
            "missing": [pk for pk in ids if pk not in found],
            "standardised": standardised,
            "summaries": tables.comparison_tables(
                {run_label(run): report.get("summary") or [] for run, report in reports}, standardised
            ),
            "provenances": [
                (run_label(run), tables.provenance_rows(report.get("provenance") or {})) for run, report in reports
            ],
            "level": level,
            "levels": [(key, tables.LEVEL_LABELS[key]) for key in tables.LEVELS],
            "correlograms": correlograms,
            "choices": ProbeRun.objects.select_related("release", "model").defer("report", "release__manifest")[:50],
        },
    )


def _run_ids(texts: list[str]) -> list[int]:
    """Run ids from ``?runs=1,2,3`` and ``?run=1&run=2``, in order, without repeats, at most MAX_COMPARED."""
    ids: list[int] = []
    for text in texts:
        for part in text.replace(" ", ",").split(","):
            if part.isdigit() and int(part) not in ids:
                ids.append(int(part))
    return ids[:MAX_COMPARED]


def run_label(run: ProbeRun) -> str:
    return f"#{run.pk} {run.model.name}"
