"""The probe report (``probing.report.build.run_report``) shaped into the tables and figure data of the report pages.

Pure: no Django, no database. Every function takes the report's lists of dicts and copes with a
partial report (a running or failed run), empty lists and missing measures (None).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence

from core.statistics import finite
from datasets.vocabulary import CLASSES
from probing.report.formatting import correlation_cell, header, measure_label, p_text, stat_text, value_text
from probing.vocabulary import AFFINITY_MEASURES as AFFINITIES
from probing.vocabulary import (
    ALL,
    CONDITION_SHORT,
    CONDITIONS,
    LEVEL_LABELS,
    LEVELS,
    MEASURE_LABELS,
    NO_OVERLAP,
    STD,
    SUBSET_LABELS,
)
from probing.vocabulary import PROBE_MEASURES as PROBES
from probing.vocabulary import SCALED_MEASURES as SCALED

MEASURES = [*PROBES, *AFFINITIES, *SCALED]
MEASURE_GROUPS = [
    ("Similarity (tables 10 and 11)", [key for key, _ in PROBES]),
    ("Affinity (table 12)", [key for key, _ in AFFINITIES]),
    ("Scaled similarity (table 13)", [key for key, _ in SCALED]),
]
# Columns of the per-compound table (table 8) that can be sorted on, in display order.
COMPOUND_COLUMNS = ["compound", "language", "condition", "level", "class", "human", *(key for key, _ in MEASURES)]


def group_label(language: str, condition: str) -> str:
    """``EN-Nat``, ``PT-Neut``: the row names of the papers' tables."""
    return f"{(language or '?').upper()}-{CONDITION_SHORT.get(condition, condition or '?')}"


def split_measure(measure: str) -> tuple[str, bool]:
    """(base measure, standardised?): ``sim_syn_std`` is ``sim_syn`` after rogue-dimension standardisation."""
    if measure.endswith(STD):
        return measure[: -len(STD)], True
    return measure, False


def in_order(values: Iterable[str], preferred: Sequence[str]) -> list[str]:
    """Distinct values, the preferred ones first in their order, then the rest sorted."""
    distinct = {v for v in values if v is not None}
    return [v for v in preferred if v in distinct] + sorted(distinct - set(preferred))


def _measure_order(measures: Iterable[str]) -> list[str]:
    known = [key for key, _ in MEASURES]
    bases = in_order((split_measure(m)[0] for m in measures), known)
    return bases


def flatten_compound(row: Mapping) -> dict:
    """A per-compound row with its nested values as flat keys: ``sim.syn`` -> ``sim_syn``.

    Standardised values, nested either as ``sim_std.syn`` or ``standardised.sim.syn``, become
    ``sim_syn_std``; a value already flat stays as it is.
    """
    flat: dict = {}
    for key, value in row.items():
        if key == "standardised" and isinstance(value, Mapping):
            for group, inner in value.items():
                if isinstance(inner, Mapping):
                    flat.update({f"{group}_{name}{STD}": number for name, number in inner.items()})
        elif isinstance(value, Mapping):
            base, standardised = split_measure(key)
            suffix = STD if standardised else ""
            flat.update({f"{base}_{name}{suffix}": number for name, number in value.items()})
        else:
            flat[key] = value
    return flat


def language_conditions(rows: Iterable[Mapping]) -> list[tuple[str, str]]:
    """(language, condition) pairs in the papers' order: languages sorted, naturalistic before neutral."""
    rows = list(rows)
    languages = sorted({r.get("language") for r in rows if r.get("language")})
    pairs = {(r.get("language"), r.get("condition")) for r in rows}
    return [
        (lang, cond) for lang in languages for cond in in_order((c for code, c in pairs if code == lang), CONDITIONS)
    ]


def summary_tables(rows: Sequence[Mapping]) -> list[dict]:
    """Tables 10-13: per level, one row per measure, mean and std per language and condition.

    Two views of each level's table: the cosines as they are, and after rogue-dimension
    standardisation (``*_std`` measures; a view only when the report has them). Returns ``[{"level",
    "label", "groups": [label], "views": [{"key", "label", "sections": [{"title", "rows": [{"measure",
    "label", "cells": [{"mean", "std", "n"} as text | None]}]}]}]}]``.
    """
    tables = []
    for level in in_order((r.get("level") for r in rows), LEVELS):
        at_level = [r for r in rows if r.get("level") == level]
        groups = language_conditions(at_level)
        index = {(r.get("language"), r.get("condition"), r.get("measure")): r for r in at_level}
        measures = _measure_order(r.get("measure") or "" for r in at_level)
        has_standardised = any(split_measure(r.get("measure") or "")[1] for r in at_level)
        views = []
        for key, label, suffix in _views(has_standardised):
            sections = []
            grouped = [*MEASURE_GROUPS, ("Other measures", [m for m in measures if m not in MEASURE_LABELS])]
            for title, keys in grouped:
                section_rows = []
                for measure in (k for k in keys if k in measures):
                    cells = [
                        _stat(index.get((language, condition, measure + suffix))) for language, condition in groups
                    ]
                    if any(cells):
                        section_rows.append({"measure": measure, "label": measure_label(measure), "cells": cells})
                if section_rows:
                    sections.append({"title": title, "rows": section_rows})
            views.append({"key": key, "label": label, "sections": sections})
        tables.append(
            {
                "level": level,
                "label": LEVEL_LABELS.get(level, level),
                "groups": [group_label(*g) for g in groups],
                "width": 1 + 2 * len(groups),
                "views": views,
            }
        )
    return tables


VIEWS = [("raw", "Cosine similarity", ""), ("std", "After standardisation (appendix C)", STD)]


def _views(has_standardised: bool) -> list[tuple[str, str, str]]:
    return VIEWS if has_standardised else VIEWS[:1]


def _stat(row: Mapping | None) -> dict | None:
    if row is None:
        return None
    return {"mean": stat_text(row.get("mean")), "std": stat_text(row.get("std")), "n": row.get("n")}


def format_p(p) -> str:
    """A p-value in scientific notation (``3.1e-12``), as every report page prints it."""
    return p_text(p)


def is_significant(row: Mapping, alpha: float = 0.05) -> bool:
    """The report's own verdict when it has one, else p <= alpha."""
    if row.get("significant") is not None:
        return bool(row["significant"])
    p = row.get("p")
    return finite(p) and p <= alpha


def correlation_tables(rows: Sequence[Mapping], show_all: bool = False, correction: str | None = None) -> list[dict]:
    """Tables 2, 3, 5, 6 (and 14, 15): Spearman ρ against human judgements, per level.

    One section per measure, one row per language-condition, one column per subset (all compounds,
    each class, no lexical overlap); the standardised cosines' ρ in a second view. Cells come from
    ``formatting.correlation_cell``: a ρ with p > 0.05 (the Benjamini-Hochberg q with
    ``correction="bh"``) is left out unless ``show_all``. Returns ``[{"level", "label", "subsets":
    [(key, label)], "has_bh", "views": [{"key", "label", "sections": [{"measure", "title", "rows":
    [{"group", "cells": [cell | None]}]}]}]}]``.
    """
    decisive = "p_adjusted" if correction == "bh" else "p"
    tables = []
    for level in in_order((r.get("level") for r in rows), LEVELS):
        at_level = [r for r in rows if r.get("level") == level]
        subsets = in_order((r.get("subset") or ALL for r in at_level), (ALL, *CLASSES, NO_OVERLAP))
        index = {(r.get("measure"), r.get("language"), r.get("condition"), r.get("subset") or ALL): r for r in at_level}
        groups = language_conditions(at_level)
        has_standardised = any(split_measure(r.get("measure") or "")[1] for r in at_level)
        views = []
        for key, label, suffix in _views(has_standardised):
            sections = []
            for measure in _measure_order(r.get("measure") or "" for r in at_level):
                section_rows = []
                for language, condition in groups:
                    cells = [
                        correlation_cell(index.get((measure + suffix, language, condition, subset)), show_all, decisive)
                        for subset in subsets
                    ]
                    if any(cells):
                        section_rows.append({"group": group_label(language, condition), "cells": cells})
                if section_rows:
                    sections.append({"measure": measure, "title": measure_label(measure), "rows": section_rows})
            views.append({"key": key, "label": label, "sections": sections})
        tables.append(
            {
                "level": level,
                "label": LEVEL_LABELS.get(level, level),
                "subsets": [(s, SUBSET_LABELS.get(s, s)) for s in subsets],
                "has_bh": any(r.get("p_adjusted") is not None for r in at_level),
                "views": views,
            }
        )
    return tables


def length_table(rows: Sequence[Mapping], show_all: bool = False) -> dict:
    """Table 4 (EACL table 5): ρ between a sentence's similarity and its length, measures by language-condition."""
    groups = language_conditions(rows)
    index = {(r.get("measure"), r.get("language"), r.get("condition")): r for r in rows}
    measures = in_order((r.get("measure") for r in rows), [key for key, _ in PROBES])
    return {
        "groups": [group_label(*g) for g in groups],
        "rows": [
            {"label": measure_label(m), "cells": [correlation_cell(index.get((m, *g)), show_all) for g in groups]}
            for m in measures
        ],
    }


CONTEXT_COLUMNS = [(g, a) for g in ("token", "type") for a in ("comp", "frequency", "ppmi")]


def context_tables(rows: Sequence[Mapping], show_all: bool = False) -> dict:
    """ACL table 5 and EACL P4: ρ of NC_out and NC_outComp with human scores, frequency and PPMI.

    ``{"columns": [(granularity label, against label)], "views": [{"key", "label", "rows": [{"probe",
    "group", "cells"}]}]}``: the raw cosines and, when the report has them, the standardised ones.
    """
    index = {
        (
            r.get("probe"),
            r.get("language"),
            r.get("condition"),
            r.get("granularity"),
            r.get("against"),
            r.get("measure"),
        ): r
        for r in rows
    }
    groups = language_conditions(rows)
    probes = in_order((r.get("probe") for r in rows), ("nc_out", "nc_out_comp"))
    columns = [c for c in CONTEXT_COLUMNS if any((r.get("granularity"), r.get("against")) == c for r in rows)]
    views = []
    for key, label, measure in (("raw", VIEWS[0][1], "sim"), ("std", VIEWS[1][1], "sim_std")):
        view_rows = []
        for probe in probes:
            for language, condition in groups:
                cells = [
                    correlation_cell(index.get((probe, language, condition, *c, measure)), show_all) for c in columns
                ]
                if any(cells):
                    view_rows.append(
                        {"probe": header(probe), "group": group_label(language, condition), "cells": cells}
                    )
        if view_rows:
            views.append({"key": key, "label": label, "rows": view_rows})
    return {"columns": [(header(g), header(a)) for g, a in columns], "views": views}


def compound_rows(
    per_compound: Sequence[Mapping],
    level: str | None = None,
    condition: str | None = None,
    language: str | None = None,
    sort: str = "",
) -> list[dict]:
    """Table 8: flat per-compound rows, filtered, sorted on ``sort`` (``-`` for descending); missing values last."""
    rows = [flatten_compound(r) for r in per_compound]
    rows = [
        r
        for r in rows
        if (not level or r.get("level") == level)
        and (not condition or r.get("condition") == condition)
        and (not language or r.get("language") == language)
    ]
    column, descending = sort.lstrip("-"), sort.startswith("-")
    if column not in COMPOUND_COLUMNS and not any(column in r for r in rows):
        column, descending = "", False
    if not column:
        return sorted(rows, key=lambda r: (str(r.get("language")), str(r.get("compound")), str(r.get("level"))))

    present = [r for r in rows if r.get(column) is not None]
    missing = [r for r in rows if r.get(column) is None]
    numeric = all(finite(r[column]) for r in present)
    present.sort(key=lambda r: r[column] if numeric else str(r[column]).lower(), reverse=descending)
    return present + missing


TEXT_COLUMNS = {"compound", "language", "condition", "level", "class"}


def compound_cells(rows: Sequence[Mapping], columns: Sequence[str] = COMPOUND_COLUMNS) -> list[list[dict]]:
    """The per-compound rows as table cells of ``columns``: ``{"text", "numeric"}``, numbers with three decimals."""
    return [
        [{"text": value_text(column, row.get(column)), "numeric": column not in TEXT_COLUMNS} for column in columns]
        for row in rows
    ]


def compound_filters(per_compound: Sequence[Mapping]) -> dict[str, list[str]]:
    """The distinct levels, conditions and languages of the per-compound rows (for the filter menus)."""
    return {
        "level": in_order((r.get("level") for r in per_compound), LEVELS),
        "condition": in_order((r.get("condition") for r in per_compound), CONDITIONS),
        "language": in_order((r.get("language") for r in per_compound), ()),
    }


def provenance_rows(provenance: Mapping, prefix: str = "") -> list[tuple[str, str]]:
    """A nested provenance dict as (dotted key, text) rows, in the dict's order; None shows as "–"."""
    rows: list[tuple[str, str]] = []
    for key, value in provenance.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            rows += provenance_rows(value, f"{name}.")
        elif isinstance(value, list | tuple) and all(not isinstance(v, Mapping | list | tuple) for v in value):
            rows.append((name, ", ".join(str(v) for v in value) or "–"))
        elif isinstance(value, Mapping | list | tuple):
            rows.append((name, json.dumps(value, sort_keys=True, default=str) if value else "–"))
        else:
            rows.append((name, "–" if value is None or value == "" else str(value)))
    return rows


def format_duration(seconds: float | None) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 07 min``; "–" when unknown."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return "–"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def comparison_tables(summaries: Mapping[str, Sequence[Mapping]], standardised: bool = False) -> list[dict]:
    """Runs side by side (the papers' layout, models as columns): per level, mean and std of each run.

    ``summaries``: run label -> summary rows. Rows are measure and language-condition, cells one
    per run (None where a run lacks the value). Returns ``[{"level", "label", "runs": [label],
    "sections": [{"title", "rows": [{"measure", "label", "group", "cells": [{mean, std, n} | None]}]}]}]``.
    """
    suffix = STD if standardised else ""
    all_rows = [r for rows in summaries.values() for r in rows]
    tables = []
    for level in in_order((r.get("level") for r in all_rows), LEVELS):
        at_level = [r for r in all_rows if r.get("level") == level]
        groups = language_conditions(at_level)
        indexes = {
            label: {
                (r.get("language"), r.get("condition"), r.get("measure")): r for r in rows if r.get("level") == level
            }
            for label, rows in summaries.items()
        }
        measures = _measure_order(r.get("measure") or "" for r in at_level)
        sections = []
        for title, keys in [*MEASURE_GROUPS, ("Other measures", [m for m in measures if m not in MEASURE_LABELS])]:
            section_rows = [
                {
                    "measure": measure,
                    "label": measure_label(measure + suffix),
                    "group": group_label(language, condition),
                    "cells": [_stat(index.get((language, condition, measure + suffix))) for index in indexes.values()],
                }
                for measure in keys
                if measure in measures
                for language, condition in groups
            ]
            section_rows = [row for row in section_rows if any(row["cells"])]
            if section_rows:
                sections.append({"title": title, "rows": section_rows})
        tables.append(
            {"level": level, "label": LEVEL_LABELS.get(level, level), "runs": list(summaries), "sections": sections}
        )
    return tables
