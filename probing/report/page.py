"""What a run's report page shows, shaped once per request: results first, provenance last.

The view passes the run, its stored report and the page's query (show every ρ, Benjamini-Hochberg,
the per-compound filters, sort and page); everything a template prints comes out of here as text,
so that the page of a full release renders in well under a second. Figures are the specs of
``probing.report.figure_data``: light SVG on the page, matplotlib files for download (``figure_file``).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.db.models.fields.json import KeyTransform
from django.http import QueryDict
from django.urls import reverse

from datasets.vocabulary import CLASS_COLOURS
from probing.models import ProbeRun
from probing.report import tables
from probing.report.figure_data import report_figures
from probing.report.figures import series_colours
from probing.report.findings import findings
from probing.report.formatting import header
from probing.report.glossary import TERMS
from probing.report.layer_tables import layer_tables
from probing.report.page_figures import page_figure
from probing.report.paper_figures import FORMATS, render

PER_PAGE = 50
# The parts of a stored report the page shows. The per-sentence and context rows, half of a full
# release's report, are for the downloads: the page does not read them from the database.
PAGE_PARTS = (
    "per_compound",
    "summary",
    "correlations",
    "length_correlations",
    "context_correlations",
    "layers",
    "stats",
    "human_score",
    # A likelihood run's (probing.report.likelihood_page).
    "accuracy",
    "by_class",
    "template",
    "layers_note",
)
# What the page shows of a likelihood run's similarity measures (its "similarity" part).
SIMILARITY_PARTS = ("summary", "correlations", "stats")
DEFAULT_FILTERS = {"level": "nc", "condition": "naturalistic"}  # table 8: NC level, naturalistic sentences


def page_runs() -> QuerySet:
    """Runs with their release and model and the ``PAGE_PARTS`` of their report, in one query (``page_report``)."""
    parts = {f"report_{key}": KeyTransform(key, "report") for key in PAGE_PARTS}
    nested = {f"report_similarity_{key}": similarity_part(key) for key in SIMILARITY_PARTS}
    runs = ProbeRun.objects.select_related("release", "model", "created_by")
    return runs.defer("report", "release__manifest").annotate(**parts, **nested)


def similarity_part(key: str) -> KeyTransform:
    """``report["similarity"][key]`` in the database: a likelihood run's similarity tables, read alone."""
    return KeyTransform(key, KeyTransform("similarity", "report"))


def page_report(run: ProbeRun) -> dict:
    """The parts of the report of a run from ``page_runs`` that the page shows."""
    report = {key: value for key in PAGE_PARTS if (value := getattr(run, f"report_{key}")) is not None}
    similarity = {
        key: value
        for key in (*SIMILARITY_PARTS, "per_compound")  # per_compound where the query annotated it (the comparison)
        if (value := getattr(run, f"report_similarity_{key}", None)) is not None
    }
    return report | ({"similarity": similarity} if similarity else {})


def results(run: ProbeRun, report: Mapping, query: QueryDict) -> dict:
    """The template context of the results: tables, figures, per-compound page, layers and downloads."""
    show_all = query.get("all") == "1"
    correction = "bh" if query.get("correction") == "bh" else None
    per_compound = report.get("per_compound") or []
    stats = report.get("stats") or {}
    return {
        "has_results": bool(per_compound or report.get("summary") or report.get("correlations")),
        "show_all": show_all,
        "correction": correction,
        "query_all": query_with(query, all=None if show_all else "1"),
        "query_bh": query_with(query, correction=None if correction else "bh"),
        "summary": tables.summary_tables(report.get("summary") or []),
        "correlations": tables.correlation_tables(report.get("correlations") or [], show_all, correction),
        "length": tables.length_table(report.get("length_correlations") or [], show_all),
        "context": tables.context_tables(report.get("context_correlations") or [], show_all),
        "layers": layer_tables(report.get("layers"), show_all),
        "figures": figure_entries(run, report_figures(per_compound, report.get("layers"))),
        "compounds": compound_page(per_compound, query),
        "stats": {
            "pairs": stats.get("pair_similarities"),
            "texts": stats.get("unique_texts"),
            "cache_mb": f"{stats['cache_bytes'] / 1e6:.1f}" if stats.get("cache_bytes") else "",
        },
        "human_note": (report.get("human_score") or {}).get("note", ""),
        "human_rule": (report.get("human_score") or {}).get("rule", ""),
        "findings": findings(report),
        "glossary": TERMS,
    }


def figure_entries(run: ProbeRun, specs: list[dict]) -> list[dict]:
    """Each figure spec as the page shows it: its SVG and its SVG, PNG and PDF download addresses."""
    return [
        {
            "key": spec["key"],
            "title": spec["title"],
            "svg": page_figure(spec),
            "downloads": [
                (fmt.upper(), reverse("probe_run_figure", args=[run.pk, spec["key"], fmt])) for fmt in FORMATS
            ],
        }
        for spec in specs
    ]


def compound_page(per_compound: list, query: QueryDict) -> dict:
    """Table 8, filtered, sorted and cut into pages: ``{"filters", "columns", "rows", "page"}``."""
    choices = tables.compound_filters(per_compound)
    chosen = {name: _chosen(query, name, values) for name, values in choices.items()}
    sort = query.get("sort", "")
    rows = tables.compound_rows(per_compound, sort=sort, **chosen)
    # A filter fixed to one value needs no column: the table stays narrow.
    fixed = {name for name, value in chosen.items() if value or len(choices[name]) == 1}
    columns = [c for c in tables.COMPOUND_COLUMNS if c not in fixed]
    page = Paginator(rows, PER_PAGE).get_page(query.get("page"))
    return {
        "filters": [
            {"name": name, "label": header(name), "options": [(v, header(v), v == chosen[name]) for v in values]}
            for name, values in choices.items()
        ],
        "columns": _sortable(query, sort, columns),
        "rows": tables.compound_cells(page.object_list, columns),
        "page": page,
        "previous": query_with(query, page=str(page.previous_page_number())) if page.has_previous() else "",
        "next": query_with(query, page=str(page.next_page_number())) if page.has_next() else "",
        "sort": sort,
    }


def _chosen(query: QueryDict, name: str, values: list[str]) -> str:
    """The filter value asked for; by default the NC level and naturalistic sentences, like table 8."""
    if name in query:
        return query[name] if query[name] in values else ""
    default = DEFAULT_FILTERS.get(name, "")
    return default if default in values else ""


def _sortable(query: QueryDict, sort: str, columns: list[str]) -> list[dict]:
    """Headers of the per-compound table, each a link sorting on it (again: the other way round)."""
    out = []
    for key in columns:
        href = query_with(query, sort=f"-{key}" if sort == key else key, page=None)
        out.append(
            {
                "key": key,
                "label": header(key),
                "href": f"?{href}#per-compound",
                "sorted": "ascending" if sort == key else "descending" if sort == f"-{key}" else "",
                "numeric": key not in tables.TEXT_COLUMNS,
            }
        )
    return out


def query_with(query: QueryDict, **changes: str | None) -> str:
    """The page's query string with ``changes`` applied (None removes a key)."""
    copy = query.copy()
    for key, value in changes.items():
        if value is None:
            copy.pop(key, None)
        else:
            copy[key] = value
    return copy.urlencode()


def figure_file(report: Mapping, key: str, fmt: str) -> bytes | None:
    """The figure ``key`` of a report as a file (``svg``, ``png``, ``pdf``); None when it has no such figure."""
    spec = next(
        (s for s in report_figures(report.get("per_compound") or [], report.get("layers")) if s["key"] == key), None
    )
    if spec is None:
        return None
    return render(spec, fmt, colours(spec))


def colours(spec: Mapping) -> dict:
    if spec.get("palette") == "classes":
        return dict(CLASS_COLOURS)
    series = list(dict.fromkeys(name for members in spec["data"].values() for name in members))
    return series_colours(series)
