"""What a likelihood run's page shows, shaped once per request (``probing.report.page`` for similarity runs).

Accuracy of the multiple-choice items by class and condition (lm-evaluation-harness's four
metrics), the preferences against the human compositionality scores (the similarity pages'
correlation tables, so a ρ reads the same on both), each preference's mean by class, the
preference of every compound against its human score (scatter, ρ in each panel's title), and the
prompt template the items were asked with. The figures are specs drawn as SVG here and as
matplotlib files for download (``likelihood_figures``: one definition for both).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.http import QueryDict

from core.statistics import finite
from datasets.vocabulary import CLASS_LABELS
from probing.likelihood.choices import METRICS
from probing.report import tables
from probing.report.formatting import fixed, rho_text
from probing.report.glossary import LIKELIHOOD_TERMS
from probing.report.page import colours, figure_entries, query_with
from probing.report.paper_figures import render
from probing.vocabulary import ALL, LIKELIHOOD_LABELS, LIKELIHOOD_MEASURES

# The preferences drawn against the human score: the literal reading and the partial synonym.
SCATTERED = ("pref_comp", "pref_words_syn")
SCATTER_LEVEL = "nc"


def likelihood_results(run, report: Mapping, query: QueryDict) -> dict:
    """The template context of a likelihood run's results."""
    show_all = query.get("all") == "1"
    correction = "bh" if query.get("correction") == "bh" else None
    stats = report.get("stats") or {}
    return {
        "has_results": bool(report.get("per_compound") or report.get("accuracy")),
        "show_all": show_all,
        "correction": correction,
        "query_all": query_with(query, all=None if show_all else "1"),
        "query_bh": query_with(query, correction=None if correction else "bh"),
        "accuracy": accuracy_table(report.get("accuracy") or []),
        "correlations": tables.correlation_tables(report.get("correlations") or [], show_all, correction),
        "by_class": by_class_table(report.get("by_class") or []),
        "template": template_rows(report.get("template") or {}),
        "figures": figure_entries(run, likelihood_figures(report)),
        "stats": {
            "compounds": stats.get("compounds"),
            "items": stats.get("item_count"),
            "items_skipped": stats.get("items_skipped"),
            "texts": stats.get("texts"),
        },
        "layers_note": report.get("layers_note", ""),
        "human_note": (report.get("human_score") or {}).get("note", ""),
        "human_rule": (report.get("human_score") or {}).get("rule", ""),
        "glossary": LIKELIHOOD_TERMS,
        "similarity": similarity_results(report.get("similarity"), show_all, correction),
    }


def similarity_results(part: Mapping | None, show_all: bool, correction: str | None) -> dict | None:
    """The similarity measures a likelihood run computed from the same pass: their means and correlations, or None."""
    if not part:
        return None
    stats = part.get("stats") or {}
    return {
        "summary": tables.summary_tables(part.get("summary") or []),
        "correlations": tables.correlation_tables(part.get("correlations") or [], show_all, correction),
        "pairs": stats.get("pair_similarities"),
        "texts": stats.get("unique_texts"),
    }


def accuracy_table(rows: Sequence[Mapping]) -> dict:
    """One row per language-condition and class: the items and each metric's mean (a share of items right)."""
    return {
        "metrics": list(METRICS),
        "rows": [
            {
                "group": tables.group_label(row["language"], row["condition"]),
                "class": "All" if row["class"] == ALL else CLASS_LABELS.get(row["class"], row["class"]),
                "items": row["items"],
                "values": [fixed(row.get(metric), 2) for metric in METRICS],
            }
            for row in rows
        ],
    }


def by_class_table(rows: Sequence[Mapping]) -> dict:
    """Each measure's mean per language-condition, level and class (the similarity pages' means, for preferences).

    The raw preferences and the surprisal: the per-token ones are in ``by_class.csv`` (the table stays
    within a 1280-pixel window).
    """
    measures = [key for key, _ in LIKELIHOOD_MEASURES if not key.endswith("_per_token")]
    return {
        "measures": [LIKELIHOOD_LABELS[key] for key in measures],
        "rows": [
            {
                "group": tables.group_label(row["language"], row["condition"]),
                "level": tables.LEVEL_LABELS.get(row["level"], row["level"]),
                "class": "All" if row["class"] == ALL else CLASS_LABELS.get(row["class"], row["class"]),
                "compounds": row["compounds"],
                "values": [fixed(row.get(key), 2) for key in measures],
            }
            for row in rows
        ],
    }


def comparison(reports: Sequence[tuple[str, Mapping]]) -> dict:
    """Likelihood runs side by side: each run's accuracy over every item and each preference's ρ (NC level, all compounds).

    ``reports``: (run label, report) of the compared runs that are likelihood runs. Rows per
    language-condition and metric or measure; one column per run ("–" where a run has no value).
    """
    labels = [label for label, _ in reports]
    accuracy, rhos = {}, {}
    for label, report in reports:
        for row in report.get("accuracy") or []:
            if row.get("class") == ALL:
                for metric in METRICS:
                    accuracy.setdefault((row["language"], row["condition"], metric), {})[label] = row.get(metric)
        for row in report.get("correlations") or []:
            if row.get("level") == SCATTER_LEVEL and (row.get("subset") or ALL) == ALL:
                rhos.setdefault((row["language"], row["condition"], row["measure"]), {})[label] = row.get("rho")

    def rows(found: dict, text) -> list[dict]:
        return [
            {
                "group": tables.group_label(language, condition),
                "name": name,
                "cells": [text(values.get(run)) for run in labels],
            }
            for (language, condition, name), values in found.items()
        ]

    return {
        "runs": labels,
        "accuracy": rows(accuracy, lambda v: fixed(v, 2)),
        "rhos": rows(
            {(*k[:2], LIKELIHOOD_LABELS[k[2]]): v for k, v in rhos.items() if k[2] in LIKELIHOOD_LABELS}, rho_text
        ),
    }


def template_rows(template: Mapping) -> list[tuple[str, str]]:
    """(language, template) of each language the items were asked in, with the template version."""
    version = template.get("version")
    return [(f"{language.upper()} (v{version})", text) for language, text in (template.get("templates") or {}).items()]


def likelihood_figures(report: Mapping) -> list[dict]:
    """Each scattered preference against the human score, at the NC level: a panel per language-condition."""
    rows = [r for r in report.get("per_compound") or [] if r.get("level") == SCATTER_LEVEL and finite(r.get("human"))]
    rhos = {
        (r["measure"], r["language"], r["condition"]): r
        for r in report.get("correlations") or []
        if r.get("level") == SCATTER_LEVEL and (r.get("subset") or ALL) == ALL
    }
    figures = []
    for measure in SCATTERED:
        data: dict[str, dict[str, list]] = {}
        for language, condition in tables.language_conditions(rows):
            members = [r for r in rows if (r["language"], r["condition"]) == (language, condition)]
            found = rhos.get((measure, language, condition)) or {}
            title = (
                f"{tables.group_label(language, condition)}: ρ = {rho_text(found.get('rho'))}, n = {found.get('n', 0)}"
            )
            panel: dict[str, list] = {}
            for row in members:
                if finite(row.get(measure)):
                    panel.setdefault(row.get("class") or "unclassified", []).append(
                        (float(row["human"]), float(row[measure]), row["compound"])
                    )
            data[title] = panel
        if any(data.values()):
            figures.append(
                {
                    "key": f"{measure.replace('_', '-')}-vs-human",
                    "kind": "scatter",
                    "title": f"{LIKELIHOOD_LABELS[measure]} against the human compositionality score, NC level",
                    "x_label": "Human score (0–5)",
                    "y_label": LIKELIHOOD_LABELS[measure],
                    "palette": "classes",
                    "series_labels": dict(CLASS_LABELS),
                    "data": data,
                }
            )
    return figures


def figure_file(report: Mapping, key: str, fmt: str) -> bytes | None:
    """The figure ``key`` of a likelihood report as a file (``svg``, ``png``, ``pdf``); None when it has none."""
    spec = next((s for s in likelihood_figures(report) if s["key"] == key), None)
    return None if spec is None else render(spec, fmt, colours(spec))
