"""A leaderboard of probe runs, as MTEB shows models against tasks (pure: no Django).

Rows are runs (a model with its config on one release), columns the measures' Spearman ρ with the
human compositionality scores in one cell of the report (language, level, condition, subset of
compounds), chosen from lists. Every ρ is shown with its n and the tables' marks (p > 0.05 greyed,
small n marked, ``formatting.correlation_cell``), and the board sorts by any column, missing last.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.statistics import finite
from datasets.vocabulary import language_name
from probing.report.formatting import correlation_cell
from probing.vocabulary import ALL, CONDITIONS, LEVEL_LABELS, LEVELS, MEASURE_LABELS, NATURALISTIC, NC, STD

CONDITION_LABELS = {"naturalistic": "Naturalistic sentences", "neutral": "Neutral sentences"}


def choices(runs: Sequence[Mapping]) -> dict[str, list[str]]:
    """The languages, levels, conditions and subsets the runs' correlations have, in the papers' order."""
    seen: dict[str, set] = {"language": set(), "level": set(), "condition": set(), "subset": set()}
    for run in runs:
        for row in run.get("correlations") or ():
            for key, values in seen.items():
                value = row.get(key) or (ALL if key == "subset" else None)
                if value is not None:
                    values.add(value)
    order = {"level": LEVELS, "condition": CONDITIONS}
    return {
        key: [v for v in order[key] if v in values] if key in order else sorted(values, key=lambda v: (v != ALL, v))
        for key, values in seen.items()
    }


def selection(runs: Sequence[Mapping], query: Mapping[str, str]) -> dict[str, str]:
    """The cell asked for in ``query``, each part falling back to the first available (NC, naturalistic, all)."""
    available = choices(runs)
    preferred = {"language": "en", "level": NC, "condition": NATURALISTIC, "subset": ALL}
    chosen = {}
    for key, values in available.items():
        asked = query.get(key)
        if asked in values:
            chosen[key] = asked
        elif preferred[key] in values:
            chosen[key] = preferred[key]
        else:
            chosen[key] = values[0] if values else preferred[key]
    return chosen


def measures(standardised: bool = False) -> list[tuple[str, str]]:
    """The columns: (key, label) of every measure, raw or standardised."""
    if standardised:
        return [(key + STD, f"{label} (standardised)") for key, label in MEASURE_LABELS.items()]
    return list(MEASURE_LABELS.items())


def board(
    runs: Sequence[Mapping], chosen: Mapping[str, str], standardised: bool = False, sort: str = "", descending=True
) -> dict:
    """The leaderboard of ``runs`` (each ``{"id", "model", ..., "correlations"}``) for the ``chosen`` cell.

    Returns ``{"columns": [{"key", "label", "sorted"}], "rows": [{"run", "cells", "rank"}], "sort"}``;
    ``sort`` is a measure key (default the first measure, P_Syn); rows without that ρ come last.
    """
    columns = measures(standardised)
    keys = [key for key, _ in columns]
    sort = sort if sort in keys else keys[0]
    rows = []
    for run in runs:
        found = {
            row["measure"]: row
            for row in run.get("correlations") or ()
            if row.get("language") == chosen["language"]
            and row.get("level") == chosen["level"]
            and row.get("condition") == chosen["condition"]
            and (row.get("subset") or ALL) == chosen["subset"]
        }
        if not any(key in found for key in keys):
            continue
        cells = [correlation_cell(found.get(key), show_all=True) for key in keys]
        rows.append({"run": run, "cells": cells, "value": (found.get(sort) or {}).get("rho")})
    present = [row for row in rows if finite(row["value"])]
    absent = [row for row in rows if not finite(row["value"])]
    present.sort(key=lambda row: row["value"], reverse=descending)
    for rank, row in enumerate(present, start=1):
        row["rank"] = rank
    return {
        "columns": [
            {"key": key, "label": label, "sorted": ("descending" if descending else "ascending") if key == sort else ""}
            for key, label in columns
        ],
        "rows": present + [{**row, "rank": None} for row in absent],
        "sort": sort,
        "descending": descending,
    }


def cell_title(chosen: Mapping[str, str], subset_labels: Mapping[str, str]) -> str:
    """The chosen cell in words: "English, NC level, naturalistic sentences, all compounds"."""
    subset = subset_labels.get(chosen["subset"], chosen["subset"])
    return (
        f"{language_name(chosen['language'])}, {LEVEL_LABELS.get(chosen['level'], chosen['level'])}, "
        f"{CONDITION_LABELS.get(chosen['condition'], chosen['condition']).lower()}, compounds: {subset.lower()}"
    )
