"""Probe run pages: the runs (and a curator's form to start one), one report page per run, downloads, comparison.

Anyone reads runs and reports, as anyone reads the published releases they measure; curators start,
cancel and resume runs, and alone see model sources, hosts, who started a run and its errors
(``probing.exposure``). The numbers come from ``probing.report.build.run_report``; the tables are
shaped in ``probing.report.tables`` and the figures drawn in ``probing.report.figures``.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Q
from django.db.models.fields.json import KeyTransform
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.permissions import curator_required, is_curator
from datasets.vocabulary import language_name
from probing import actions, tasks
from probing.exposure import public_identity, public_progress, public_provenance, public_run
from probing.forms import StartRunForm
from probing.models import EmbeddingModel, ProbeRun
from probing.report import build as reporting
from probing.report import figures, leaderboard, likelihood_page, tables
from probing.report import page as report_page
from probing.report.paper_figures import FORMATS as FIGURE_FORMATS
from probing.report.paper_figures import render as render_figure
from probing.run.loading import estimate_cost
from releases.models import Release, version_key

MAX_COMPARED = 8
RUNS_PER_PAGE = 50


@require_http_methods(["GET", "HEAD", "POST"])
def probe_runs(request: HttpRequest) -> HttpResponse:
    """Every run, newest first, and the registered models; a curator's POST starts a run."""
    if request.method == "POST":
        return start_run_view(request)
    return _runs_page(request, StartRunForm() if is_curator(request.user) else None)


def _runs_page(request: HttpRequest, form: StartRunForm | None, status: int = 200) -> HttpResponse:
    internals = is_curator(request.user)
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
        identity = identity if internals else public_identity(identity)
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
            "internals": internals,
        },
        status=status,
    )


@curator_required
def start_run_view(request: HttpRequest) -> HttpResponse:
    form = StartRunForm(request.POST)
    if not form.is_valid():
        return _runs_page(request, form, status=400)
    try:
        run = tasks.start_probe_run(
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
    """Live progress while the run works; its results (tables, figures) once it has them, provenance last."""
    run = get_object_or_404(report_page.page_runs(), pk=pk)
    internals = is_curator(request.user)
    provenance = run.provenance if internals else public_provenance(run.provenance)
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
            "provenance": tables.provenance_rows(provenance or {}),
            "downloads": [(name, reverse("probe_run_csv", args=[run.pk, name])) for name in reporting.tables_of(run)],
            "can_manage": internals,
            **_results(run, request),
        },
    )


def _results(run: ProbeRun, request: HttpRequest) -> dict:
    """The results part of a run's page: a likelihood run's tables are not a similarity run's."""
    if run.family == ProbeRun.Family.LIKELIHOOD:
        return likelihood_page.likelihood_results(run, report_page.page_report(run), request.GET)
    return report_page.results(run, report_page.page_report(run), request.GET)


@require_GET
def probe_run_figure(request: HttpRequest, pk: int, key: str, fmt: str) -> HttpResponse:
    """One figure of a run's report as a paper-ready file: SVG, PNG or PDF (matplotlib)."""
    run = get_object_or_404(report_page.page_runs(), pk=pk)
    if fmt not in FIGURE_FORMATS:
        raise Http404(f"No figure format {fmt!r}: svg, png or pdf.")
    pages = likelihood_page if run.family == ProbeRun.Family.LIKELIHOOD else report_page
    data = pages.figure_file(report_page.page_report(run), key, fmt)
    if data is None:
        raise Http404(f"Run #{run.pk} has no figure {key!r}.")
    response = HttpResponse(data, content_type=FIGURE_FORMATS[fmt])
    response["Content-Disposition"] = content_disposition_header(True, f"probe-run-{run.pk}-{key}.{fmt}")
    return response


def _duration(run: ProbeRun) -> str:
    if run.started_at is None:
        return ""
    if run.finished_at is None:
        return "running for " + tables.format_duration((timezone.now() - run.started_at).total_seconds())
    return tables.format_duration((run.finished_at - run.started_at).total_seconds())


@require_GET
def probe_run_json(request: HttpRequest, pk: int) -> JsonResponse:
    """Progress for the run page's poller; ``?full=1`` the whole report with its provenance."""
    run = get_run(pk)
    internals = is_curator(request.user)
    if request.GET.get("full") == "1":
        report = reporting.run_report(run)
        return JsonResponse(report if internals else public_run(report), json_dumps_params={"indent": 1})
    progress = run.progress()
    return JsonResponse(
        {"run": run.pk, "finished": run.is_finished, **(progress if internals else public_progress(progress))}
    )


@require_GET
def probe_run_report(request: HttpRequest, pk: int) -> HttpResponse:
    """The whole report as a JSON file (what ``probe_report RUN --format json`` prints)."""
    run = get_run(pk)
    report = reporting.run_report(run)
    body = json.dumps(report if is_curator(request.user) else public_run(report), indent=1, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json")
    response["Content-Disposition"] = content_disposition_header(True, f"probe-run-{run.pk}.json")
    return response


@require_GET
def probe_run_csv(request: HttpRequest, pk: int, table: str) -> HttpResponse:
    """One table as CSV, its provenance in ``#`` comment lines above the header."""
    run = get_run(pk)
    if table not in reporting.tables_of(run):
        raise Http404(f"No table {table!r}.")
    body = reporting.report_csv(run, table, public=not is_curator(request.user))
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
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
        tasks.resume_probe_run(run)
    except ValueError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Probe run #{run.pk} resumed: only unfinished shards run again.")
    return redirect("probe_run", pk=run.pk)


@require_GET
def probe_compare(request: HttpRequest) -> HttpResponse:
    """Runs side by side: their summaries, the model correlogram, the provenance of each."""
    ids = _run_ids([request.GET.get("runs", ""), *request.GET.getlist("run")])
    reports = _compared(request)
    runs = [run for run, _ in reports]
    level = request.GET.get("level") if request.GET.get("level") in tables.LEVELS else "nc"
    standardised = request.GET.get("standardised") == "1"
    correlograms = _correlograms(reports, request)
    for figure in correlograms["figures"]:
        figure["downloads"] = [
            (fmt.upper(), f"{reverse('probe_compare_figure', args=[figure['measure'], fmt])}?{request.GET.urlencode()}")
            for fmt in FIGURE_FORMATS
        ]
    return render(
        request,
        "probing/compare.html",
        {
            "runs": runs,
            "ids": ",".join(str(run.pk) for run in runs),
            "chosen_ids": {run.pk for run in runs},
            "missing": [pk for pk in ids if pk not in {run.pk for run in runs}],
            "standardised": standardised,
            "summaries": tables.comparison_tables(
                {label: report.get("summary") or [] for label, report in similarity_reports(reports)}, standardised
            ),
            "likelihood": likelihood_page.comparison(
                [(run_label(run), report) for run, report in reports if run.family != SIMILARITY]
            ),
            "provenances": [
                (run_label(run), tables.provenance_rows(report.get("provenance") or {})) for run, report in reports
            ],
            "level": level,
            "levels": [(key, tables.LEVEL_LABELS[key]) for key in tables.LEVELS],
            "correlograms": correlograms,
            "choices": _choices(runs),
        },
    )


def _choices(runs: list[ProbeRun]) -> list[ProbeRun]:
    """The runs offered for comparison: the chosen ones and the 50 newest, newest first."""
    recent = ProbeRun.objects.select_related("release", "model").defer("report", "release__manifest")
    offered = list(recent[:50])
    return [run for run in runs if run.pk not in {r.pk for r in offered}] + offered


def _compared(request: HttpRequest) -> list[tuple[ProbeRun, dict]]:
    """The runs of ``?runs=`` with their reports (as this visitor may see them), in the order asked."""
    ids = _run_ids([request.GET.get("runs", ""), *request.GET.getlist("run")])
    # A likelihood run's similarity part gives its per-compound rows too (the correlograms).
    runs = report_page.page_runs().annotate(report_similarity_per_compound=report_page.similarity_part("per_compound"))
    found = {run.pk: run for run in runs.filter(pk__in=ids)}
    for run in found.values():
        run.report = report_page.page_report(run)  # what pages show: the per-sentence rows stay in the database
    internals = is_curator(request.user)
    reports = [(found[pk], reporting.run_report(found[pk])) for pk in ids if pk in found]
    return [(run, report if internals else public_run(report)) for run, report in reports]


def _correlograms(reports: list[tuple[ProbeRun, dict]], request: HttpRequest) -> dict:
    level = request.GET.get("level") if request.GET.get("level") in tables.LEVELS else "nc"
    per_compound = {label: report.get("per_compound") or [] for label, report in similarity_reports(reports)}
    return figures.model_correlograms(per_compound, level, request.GET.get("group", ""))


@require_GET
def probe_compare_figure(request: HttpRequest, measure: str, fmt: str) -> HttpResponse:
    """One correlogram of the comparison (same query as the page) as SVG, PNG or PDF, with full model names."""
    if fmt not in FIGURE_FORMATS:
        raise Http404(f"No figure format {fmt!r}: svg, png or pdf.")
    found = _correlograms(_compared(request), request)["figures"]
    spec = next((figure for figure in found if figure["measure"] == measure), None)
    if spec is None:
        raise Http404(f"No correlogram of {measure!r} for these runs.")
    response = HttpResponse(render_figure(spec, fmt, {}), content_type=FIGURE_FORMATS[fmt])
    response["Content-Disposition"] = content_disposition_header(True, f"probe-runs-{spec['key']}.{fmt}")
    return response


def _run_ids(texts: list[str]) -> list[int]:
    """Run ids from ``?runs=1,2,3`` and ``?run=1&run=2``, in order, without repeats, at most MAX_COMPARED."""
    ids: list[int] = []
    for text in texts:
        for part in text.replace(" ", ",").split(","):
            if part.isdigit() and int(part) not in ids:
                ids.append(int(part))
    return ids[:MAX_COMPARED]


SIMILARITY = ProbeRun.Family.SIMILARITY


def similarity_reports(reports: list[tuple[ProbeRun, dict]]) -> list[tuple[str, dict]]:
    """(label, similarity tables) of each compared run that has them: a similarity run's report, or the
    similarity part of a likelihood run that computed both families from one pass (labelled so)."""
    found = []
    for run, report in reports:
        if run.family == SIMILARITY:
            found.append((run_label(run), report))
        elif report.get("similarity"):
            found.append((f"{run_label(run)} (same pass)", report["similarity"]))
    return found


def run_label(run: ProbeRun) -> str:
    return f"#{run.pk} {run.model.name}"


@require_GET
def probe_leaderboard(request: HttpRequest) -> HttpResponse:
    """Runs of one release ranked by how well each measure follows the human scores, in one chosen cell."""
    # Similarity runs, and the similarity part of likelihood runs that computed both families from one pass
    # (a likelihood run's own measures are others: its page and the comparison show them).
    shared = Q(family=ProbeRun.Family.LIKELIHOOD, config__has_key="similarity")
    done = ProbeRun.objects.filter(Q(family=SIMILARITY) | shared, status=ProbeRun.Status.DONE)
    versions = sorted(set(done.values_list("release__version", flat=True)), key=version_key, reverse=True)
    version = request.GET.get("release") if request.GET.get("release") in versions else next(iter(versions), "")
    latest = request.GET.get("every") != "1"
    query = (
        done.filter(release__version=version)
        .select_related("model", "release")
        .only("pk", "family", "config", "config_hash", "created_at", "model__name", "model__kind", "release__version")
        .annotate(
            correlations=KeyTransform("correlations", "report"),
            shared_correlations=report_page.similarity_part("correlations"),
        )
        .order_by("-created_at", "-pk")
    )
    runs, seen = [], set()
    for run in query:
        if latest and (run.model_id, run.config_hash) in seen:
            continue  # an older run of the same model and config
        seen.add((run.model_id, run.config_hash))
        part = run.family != SIMILARITY  # the similarity part of a run of both families
        runs.append(
            {
                "id": run.pk,
                "model": f"{run.model.name} (same pass)" if part else run.model.name,
                "kind": run.model.get_kind_display(),
                "config": run.config["similarity"] if part else run.config,
                "created": run.created_at,
                "correlations": (run.shared_correlations if part else run.correlations) or [],
            }
        )
    chosen = leaderboard.selection(runs, request.GET)
    standardised = request.GET.get("standardised") == "1"
    table = leaderboard.board(
        runs, chosen, standardised, request.GET.get("sort", ""), request.GET.get("order") != "asc"
    )
    options = leaderboard.choices(runs)
    return render(
        request,
        "probing/leaderboard.html",
        {
            "table": table,
            "chosen": chosen,
            "version": version,
            "versions": versions,
            "latest": latest,
            "standardised": standardised,
            "title": leaderboard.cell_title(chosen, tables.SUBSET_LABELS),
            "options": {
                "language": [(code, language_name(code)) for code in options["language"]],
                "level": [(key, tables.LEVEL_LABELS[key]) for key in options["level"]],
                "condition": [(key, leaderboard.CONDITION_LABELS[key]) for key in options["condition"]],
                "subset": [(key, tables.SUBSET_LABELS.get(key, key)) for key in options["subset"]],
            },
        },
    )
