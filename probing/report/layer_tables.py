"""A layer sweep's report as tables and curves (pure: no Django): each measure and its ρ, layer by layer.

``report["layers"]`` (``probing.measures.analysis.layer_report``) holds, for every swept hidden state, the
summary rows and the correlation rows of the raw measures. The tables put layers down the side and
measures across, one table per level and language-condition; the curves give ρ (all compounds)
against the layer, per measure and language-condition, for the figure.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.statistics import finite
from probing.report.formatting import correlation_cell, significance, stat_text, too_few
from probing.report.tables import MEASURES, group_label, in_order, language_conditions
from probing.vocabulary import ALL, LEVEL_LABELS, LEVELS


def layer_tables(layers: Mapping | None, show_all: bool = False) -> list[dict]:
    """``[{"level", "label", "groups": [{"key", "label", "measures": [label], "rows": [{"layer", "rho": [cell],
    "mean": [text]}]}]}]``: per level and language-condition, each layer's ρ and mean of each measure."""
    if not layers:
        return []
    correlations = [r for r in layers.get("correlations", []) if (r.get("subset") or ALL) == ALL]
    rho = {(r["layer"], r["level"], r["language"], r["condition"], r["measure"]): r for r in correlations}
    mean = {(r["layer"], r["level"], r["language"], r["condition"], r["measure"]): r for r in layers.get("summary", [])}
    measures = [(key, label) for key, label in MEASURES if any(k[4] == key for k in mean)]
    out = []
    for level in in_order((r.get("level") for r in layers.get("summary", [])), LEVELS):
        groups = []
        for language, condition in language_conditions(r for r in layers["summary"] if r.get("level") == level):
            rows = []
            for layer in layers.get("index", []):
                key = (layer, level, language, condition)
                rows.append(
                    {
                        "layer": str(layer),
                        "rho": [correlation_cell(rho.get((*key, m)), show_all) for m, _ in measures],
                        "mean": [stat_text((mean.get((*key, m)) or {}).get("mean")) for m, _ in measures],
                    }
                )
            label = group_label(language, condition)
            groups.append(
                {"key": label.lower(), "label": label, "measures": [name for _, name in measures], "rows": rows}
            )
        out.append({"level": level, "label": LEVEL_LABELS.get(level, level), "groups": groups})
    return out


def layer_curves(layers: Mapping | None, level: str) -> dict[str, dict[str, list[tuple[int, float, bool]]]]:
    """``{measure label: {language-condition: [(layer, ρ, significant)]}}`` over all compounds, at ``level``."""
    if not layers:
        return {}
    rows = [
        r
        for r in layers.get("correlations", [])
        if r.get("level") == level and (r.get("subset") or ALL) == ALL and finite(r.get("rho"))
    ]
    curves: dict[str, dict[str, list[tuple[int, float, bool]]]] = {}
    for key, label in MEASURES:
        lines: dict[str, list[tuple[int, float, bool]]] = {}
        for language, condition in language_conditions(r for r in rows if r["measure"] == key):
            points = [
                (r["layer"], r["rho"], bool(significance(r.get("p"))) and not too_few(r.get("n")))
                for r in rows
                if (r["measure"], r["language"], r["condition"]) == (key, language, condition)
            ]
            lines[group_label(language, condition)] = sorted(points)
        if lines:
            curves[label] = lines
    return curves
