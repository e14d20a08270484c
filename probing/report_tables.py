"""The probe report (``probing.reporting.run_report``) shaped into the tables and figure data of the report pages.

Pure: no Django, no database. Every function takes the report's lists of dicts and copes with a
partial report (a running or failed run), empty lists and missing measures (None).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence

LEVELS = ("sentence", "nc")
LEVEL_LABELS = {"sentence": "Sentence level", "nc": "NC level"}
CONDITIONS = ("naturalistic", "neutral")
CONDITION_SHORT = {"naturalistic": "Nat", "neutral": "Neut"}
CLASSES = ("idiomatic", "partly_compositional", "compositional")
CLASS_LABELS = {
    "idiomatic": "Idiomatic",
    "partly_compositional": "Partly compositional",
    "compositional": "Compositional",
}
ALL, NO_OVERLAP = "all", "no_overlap"
SUBSET_LABELS = {ALL: "All", NO_OVERLAP: "No lexical overlap", **CLASS_LABELS}
STANDARDISED = "_std"

# The measures of the papers in their order (tables 10-13); keys as the flattened per-compound values.
PROBES = [
    ("sim_syn", "P_Syn"),
    ("sim_comp", "P_Comp"),
    ("sim_words_syn", "P_WordsSyn"),
    ("sim_rand", "P_Rand"),
]
AFFINITIES = [("affinity_syn_words_syn", "A_Syn|WordsSyn"), ("affinity_syn_rand", "A_Syn|Rand")]
SCALED = [("scaled_syn", "Sim_R|Syn"), ("scaled_words_syn", "Sim_R|WordsSyn")]
MEASURES = [*PROBES, *AFFINITIES, *SCALED]
MEASURE_LABELS = dict(MEASURES)
MEASURE_GROUPS = [
    ("Similarity (tables 10 and 11)", [key for key, _ in PROBES]),
    ("Affinity (table 12)", [key for key, _ in AFFINITIES]),
    ("Scaled similarity (table 13)", [key for key, _ in SCALED]),
]
# Columns of the per-compound table (table 8) that can be sorted on, in display order.
COMPOUND_COLUMNS = ["compound", "language", "condition", "level", "class", "human", *(key for key, _ in MEASURES)]


def is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def group_label(language: str, condition: str) -> str:
    """``EN-Nat``, ``PT-Neut``: the row names of the papers' tables."""
    return f"{(language or '?').upper()}-{CONDITION_SHORT.get(condition, condition or '?')}"


def split_measure(measure: str) -> tuple[str, bool]:
    """(base measure, standardised?): ``sim_syn_std`` is ``sim_syn`` after rogue-dimension standardisation."""
    if measure.endswith(STANDARDISED):
        return measure[: -len(STANDARDISED)], True
    return measure, False


def measure_label(measure: str) -> str:
    base, standardised = split_measure(measure)
    label = MEASURE_LABELS.get(base, base)
    return f"{label} (standardised)" if standardised else label


def _order(values: Iterable[str], preferred: Sequence[str]) -> list[str]:
    """Distinct values, the preferred ones first in their order, then the rest sorted."""
    distinct = {v for v in values if v is not None}
    return [v for v in preferred if v in distinct] + sorted(distinct - set(preferred))


def _measure_order(measures: Iterable[str]) -> list[str]:
    known = [key for key, _ in MEASURES]
    bases = _order((split_measure(m)[0] for m in measures), known)
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
                    flat.update({f"{group}_{name}{STANDARDISED}": number for name, number in inner.items()})
        elif isinstance(value, Mapping):
            base, standardised = split_measure(key)
            suffix = STANDARDISED if standardised else ""
            flat.update({f"{base}_{name}{suffix}": number for name, number in value.items()})
        else:
            flat[key] = value
    return flat


def language_conditions(rows: Iterable[Mapping]) -> list[tuple[str, str]]:
    """(language, condition) pairs in the papers' order: languages sorted, naturalistic before neutral."""
    rows = list(rows)
    languages = sorted({r.get("language") for r in rows if r.get("language")})
    pairs = {(r.get("language"), r.get("condition")) for r in rows}
    return [(lang, cond) for lang in languages for cond in _order((c for code, c in pairs if code == lang), CONDITIONS)]


def summary_tables(rows: Sequence[Mapping]) -> list[dict]:
    """Tables 10-13: per level, one row per measure, mean and std per language and condition.

    Standardised-cosine variants (``*_std``) sit beside the raw values in the same row. Returns
    ``[{"level", "label", "groups": [label], "has_standardised", "sections": [{"title", "rows": [
    {"measure", "label", "cells": [{"raw": {mean, std, n} | None, "standardised": ... | None}]}]}]}]``.
    """
    tables = []
    for level in _order((r.get("level") for r in rows), LEVELS):
        at_level = [r for r in rows if r.get("level") == level]
        groups = language_conditions(at_level)
        index = {(r.get("language"), r.get("condition"), r.get("measure")): r for r in at_level}
        measures = _measure_order(r.get("measure") or "" for r in at_level)
        has_standardised = any(split_measure(r.get("measure") or "")[1] for r in at_level)
        sections = []
        grouped = [*MEASURE_GROUPS, ("Other measures", [m for m in measures if m not in MEASURE_LABELS])]
        for title, keys in grouped:
            section_rows = []
            for measure in (k for k in keys if k in measures):
                cells = []
                for language, condition in groups:
                    raw = index.get((language, condition, measure))
                    std = index.get((language, condition, measure + STANDARDISED))
                    cells.append({"raw": _stat(raw), "standardised": _stat(std)})
                section_rows.append({"measure": measure, "label": measure_label(measure), "cells": cells})
            if section_rows:
                sections.append({"title": title, "rows": section_rows})
        tables.append(
            {
                "level": level,
                "label": LEVEL_LABELS.get(level, level),
                "groups": [group_label(*g) for g in groups],
                "has_standardised": has_standardised,
                "width": 1 + len(groups) * (4 if has_standardised else 2),
                "sections": sections,
            }
        )
    return tables


def _stat(row: Mapping | None) -> dict | None:
    if row is None:
        return None
    return {"mean": row.get("mean"), "std": row.get("std"), "n": row.get("n")}


def is_significant(row: Mapping, alpha: float = 0.05) -> bool:
    """The report's own verdict when it has one, else p <= alpha."""
    if row.get("significant") is not None:
        return bool(row["significant"])
    p = row.get("p")
    return is_number(p) and p <= alpha


def correlation_tables(rows: Sequence[Mapping], show_all: bool = False) -> list[dict]:
    """Tables 2, 3, 5, 6: Spearman rho against human judgements, per level.

    One section per measure, one row per language-condition, one column per subset (all
    compounds, each class, no lexical overlap), the standardised-cosine rho beside the raw one.
    Non-significant cells are blanked unless ``show_all``. Returns ``[{"level", "label", "subsets":
    [(key, label)], "has_standardised", "has_bh", "width", "sections": [{"measure", "title", "rows":
    [{"group", "cells": [{"raw": cell | None, "standardised": cell | None}]}]}]}]`` where a cell is
    ``{"rho", "p", "p_bh", "n", "significant", "shown"}``.
    """
    tables = []
    for level in _order((r.get("level") for r in rows), LEVELS):
        at_level = [r for r in rows if r.get("level") == level]
        subsets = _order((r.get("subset") or ALL for r in at_level), (ALL, *CLASSES, NO_OVERLAP))
        index = {(r.get("measure"), r.get("language"), r.get("condition"), r.get("subset") or ALL): r for r in at_level}
        groups = language_conditions(at_level)
        has_standardised = any(split_measure(r.get("measure") or "")[1] for r in at_level)
        sections = []
        for measure in _measure_order(r.get("measure") or "" for r in at_level):
            section_rows = []
            for language, condition in groups:
                cells = [
                    {
                        "raw": _correlation_cell(index.get((measure, language, condition, subset)), show_all),
                        "standardised": _correlation_cell(
                            index.get((measure + STANDARDISED, language, condition, subset)), show_all
                        ),
                    }
                    for subset in subsets
                ]
                if any(c["raw"] or c["standardised"] for c in cells):
                    section_rows.append({"group": group_label(language, condition), "cells": cells})
            if section_rows:
                sections.append({"measure": measure, "title": measure_label(measure), "rows": section_rows})
        tables.append(
            {
                "level": level,
                "label": LEVEL_LABELS.get(level, level),
                "subsets": [(s, SUBSET_LABELS.get(s, s)) for s in subsets],
                "has_standardised": has_standardised,
                "has_bh": any(_bh(r) is not None for r in at_level),
                "width": 1 + len(subsets) * (2 if has_standardised else 1),
                "sections": sections,
            }
        )
    return tables


def format_p(p) -> str:
    """A p-value as the papers print it: three decimals, ``<0.001`` below that; "–" when missing."""
    if not is_number(p):
        return "–"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _correlation_cell(row: Mapping | None, show_all: bool) -> dict | None:
    if row is None:
        return None
    significant = is_significant(row)
    return {
        "rho": row.get("rho"),
        "p": format_p(row.get("p")),
        "p_bh": format_p(_bh(row)),
        "n": row.get("n"),
        "significant": significant,
        "shown": (show_all or significant) and is_number(row.get("rho")),
    }


def _bh(row: Mapping):
    for key in ("p_bh", "p_adjusted", "q"):
        if row.get(key) is not None:
            return row[key]
    return None


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
    numeric = all(is_number(r[column]) for r in present)
    present.sort(key=lambda r: r[column] if numeric else str(r[column]).lower(), reverse=descending)
    return present + missing


def compound_cells(rows: Sequence[Mapping]) -> list[list[dict]]:
    """The per-compound rows as table cells in ``COMPOUND_COLUMNS`` order: ``{"value", "numeric"}``."""
    text_columns = {"compound", "language", "condition", "level"}
    cells = []
    for row in rows:
        line = []
        for column in COMPOUND_COLUMNS:
            value = row.get(column)
            if column == "class":
                line.append({"value": CLASS_LABELS.get(value, value), "numeric": False})
            else:
                line.append({"value": value, "numeric": column not in text_columns})
        cells.append(line)
    return cells


def compound_filters(per_compound: Sequence[Mapping]) -> dict[str, list[str]]:
    """The distinct levels, conditions and languages of the per-compound rows (for the filter menus)."""
    return {
        "level": _order((r.get("level") for r in per_compound), LEVELS),
        "condition": _order((r.get("condition") for r in per_compound), CONDITIONS),
        "language": _order((r.get("language") for r in per_compound), ()),
    }


def distribution_data(per_compound: Sequence[Mapping]) -> dict[str, dict[str, dict[str, list]]]:
    """Similarities per level, probe and language-condition: ``{level: {probe label: {EN-Nat: [values]}}}``."""
    flat = [flatten_compound(r) for r in per_compound]
    data: dict[str, dict[str, dict[str, list]]] = {}
    for level in _order((r.get("level") for r in flat), LEVELS):
        at_level = [r for r in flat if r.get("level") == level]
        groups = language_conditions(at_level)
        data[level] = {
            label: {
                group_label(language, condition): [
                    r.get(key) for r in at_level if (r.get("language"), r.get("condition")) == (language, condition)
                ]
                for language, condition in groups
            }
            for key, label in PROBES
        }
    return data


def class_data(per_compound: Sequence[Mapping], level: str = "nc") -> list[dict]:
    """Affinity and Sim_R by class (figure 4), per language and condition at ``level``.

    ``[{"language", "condition", "label", "data": {measure label: {class: [values]}}}]``; compounds
    without a class are left out.
    """
    flat = [flatten_compound(r) for r in per_compound if r.get("level") == level and r.get("class")]
    figures = []
    for language, condition in language_conditions(flat):
        rows = [r for r in flat if (r.get("language"), r.get("condition")) == (language, condition)]
        classes = _order((r["class"] for r in rows), CLASSES)
        figures.append(
            {
                "language": language,
                "condition": condition,
                "label": group_label(language, condition),
                "data": {
                    label: {cls: [r.get(key) for r in rows if r["class"] == cls] for cls in classes}
                    for key, label in [*AFFINITIES, *SCALED]
                },
            }
        )
    return figures


def significant_only(rows: Sequence[Mapping], show_all: bool = False) -> list[Mapping]:
    """Rows of correlations with p <= alpha (by the row's own verdict), or every row when ``show_all``."""
    return list(rows) if show_all else [r for r in rows if "p" not in r or is_significant(r)]


def plain_table(rows: Sequence[Mapping], first: Sequence[str] = ()) -> dict:
    """Any list of flat dicts as columns and rows (the length and context correlations, whose shape may grow).

    Columns: ``first`` that occur, then the others in order of appearance; nested values are flattened.
    """
    flat = [flatten_compound(r) for r in rows]
    seen = list(dict.fromkeys(key for r in flat for key in r))
    columns = [c for c in first if c in seen] + [c for c in seen if c not in first]
    return {
        "columns": columns,
        "rows": [[{"value": r.get(c), "numeric": is_number(r.get(c))} for c in columns] for r in flat],
    }


def correlation_matrix(rows: Sequence[Mapping]) -> tuple[list[str], dict[tuple[str, str], float | None]]:
    """Model labels and rho per pair from model-correlation rows (``model_a``/``model_b`` or ``a``/``b``)."""
    labels: list[str] = []
    values: dict[tuple[str, str], float | None] = {}
    for row in rows:
        a = row.get("model_a", row.get("a"))
        b = row.get("model_b", row.get("b"))
        if a is None or b is None:
            continue
        for name in (a, b):
            if name not in labels:
                labels.append(str(name))
        rho = row.get("rho")
        values[(str(a), str(b))] = rho if is_number(rho) else None
    return labels, values


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
    suffix = STANDARDISED if standardised else ""
    all_rows = [r for rows in summaries.values() for r in rows]
    tables = []
    for level in _order((r.get("level") for r in all_rows), LEVELS):
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
