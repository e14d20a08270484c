"""The numbers behind a report's figures (pure: no Django): the page's SVG and the paper-ready downloads draw the same.

- ``distribution_data``: similarities per probe and language-condition (figures 1 and 2);
- ``class_data``: Affinity and scaled similarity per compositionality class (figure 4);
- ``correlation_matrix``: ρ between models (the correlogram, figure 10);
- ``layer_curves``: a layer sweep's ρ against the layer, per measure and language-condition.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from core.statistics import finite
from datasets.vocabulary import CLASS_LABELS
from probing.report.layer_tables import layer_curves
from probing.report.tables import (
    AFFINITIES,
    CLASSES,
    LEVELS,
    PROBES,
    SCALED,
    flatten_compound,
    group_label,
    in_order,
    language_conditions,
)
from probing.vocabulary import LEVEL_LABELS


def distribution_data(per_compound: Sequence[Mapping]) -> dict[str, dict[str, dict[str, list]]]:
    """Similarities per level, probe and language-condition: ``{level: {probe label: {EN-Nat: [values]}}}``."""
    flat = [flatten_compound(r) for r in per_compound]
    data: dict[str, dict[str, dict[str, list]]] = {}
    for level in in_order((r.get("level") for r in flat), LEVELS):
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
        classes = in_order((r["class"] for r in rows), CLASSES)
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
        values[(str(a), str(b))] = rho if finite(rho) else None
    return labels, values


def report_figures(per_compound: Sequence[Mapping], layers: Mapping | None = None) -> list[dict]:
    """Every figure of a run's report: ``{"key", "kind", "title", "x_label", "y_label", "data"}``.

    ``kind`` says how to draw ``data``: ``"boxes"`` (``{category: {series: [values]}}``) or
    ``"lines"`` (``{panel: {series: [(x, y, significant)]}}``); ``palette`` colours the series by
    language and condition (``"groups"``) or by class (``"classes"``, named by ``series_labels``).
    The key names the figure in its download address (``similarity-nc``, ``by-class-en-nat``, ``layers-nc``).
    """
    out = []
    for level, data in distribution_data(per_compound).items():
        out.append(
            {
                "key": f"similarity-{level}",
                "kind": "boxes",
                "title": f"Cosine similarity per probe, {LEVEL_LABELS.get(level, level)} (figures 1 and 2)",
                "x_label": "Probe",
                "y_label": "Cosine similarity",
                "palette": "groups",
                "data": data,
            }
        )
    for group in class_data(per_compound, "nc"):
        out.append(
            {
                "key": f"by-class-{group['label'].lower()}",
                "kind": "boxes",
                "title": f"Affinity and scaled similarity by class, {group['label']}, NC level (figure 4)",
                "x_label": "Measure",
                "y_label": "Affinity or scaled similarity",
                "data": {
                    label: {CLASS_LABELS.get(c, c): v for c, v in by_class.items()}
                    for label, by_class in group["data"].items()
                },
            }
        )
    for level in LEVELS:
        curves = layer_curves(layers, level)
        if curves:
            out.append(
                {
                    "key": f"layers-{level}",
                    "kind": "lines",
                    "title": f"Spearman ρ with human scores per layer, {LEVEL_LABELS.get(level, level)}",
                    "x_label": "Layer (0: embeddings)",
                    "y_label": "Spearman ρ",
                    "palette": "groups",
                    "data": curves,
                }
            )
    return out
