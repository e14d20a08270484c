"""Server-side SVG figures of the probe reports: grouped box plots and the model correlogram.

Plain strings of SVG (no JavaScript, no CDN), drawn the way ``annotation/reports/svg.py`` draws its charts:
every interpolated text is escaped, so the result is marked safe for templates. Missing values
(None, NaN) are left out of a box and counted in its tooltip; a figure without data says so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from datasets.vocabulary import CLASS_COLOURS, DEFAULT_COLOUR
from probing.measures.analysis import model_correlations
from probing.report import tables

# Darker shades for naturalistic sentences, lighter for neutral ones, blue for English and orange
# for Portuguese, as in the paper's figures 1-3; other languages take the next pair.
SERIES_PALETTE = [
    ("#1f5fa8", "#8db6e3"),
    ("#c8630c", "#f4b77f"),
    ("#2e7d32", "#9ccc9f"),
    ("#6a3d9a", "#c2a5cf"),
    ("#8c564b", "#d2b0a8"),
]
FONT = 'font-family="system-ui, sans-serif"'
CHAR_WIDTH = 6.0  # about the width of a character at font size 10, to leave room for labels


def finite(values: Sequence[float | None]) -> list[float]:
    """The values that can be drawn: no None, no NaN or infinity."""
    return [float(v) for v in values if v is not None and math.isfinite(float(v))]


def quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default), on a sorted non-empty list."""
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class BoxStats:
    n: int
    missing: int
    low: float  # lower whisker: the smallest value within 1.5 IQR of the first quartile
    q1: float
    median: float
    q3: float
    high: float
    mean: float
    outliers: tuple[float, ...]


def box_stats(values: Sequence[float | None]) -> BoxStats | None:
    """Tukey box of ``values`` (None when none can be drawn)."""
    data = sorted(finite(values))
    if not data:
        return None
    q1, median, q3 = quantile(data, 0.25), quantile(data, 0.5), quantile(data, 0.75)
    reach = 1.5 * (q3 - q1)
    inside = [v for v in data if q1 - reach <= v <= q3 + reach]
    return BoxStats(
        n=len(data),
        missing=len(values) - len(data),
        low=inside[0],
        q1=q1,
        median=median,
        q3=q3,
        high=inside[-1],
        mean=sum(data) / len(data),
        outliers=tuple(v for v in data if v < q1 - reach or v > q3 + reach),
    )


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high], about ``count`` steps of 1, 2 or 5 times a power of ten."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0, 1.0]
    if high <= low:
        low, high = low - 0.5, high + 0.5
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda candidate: abs(candidate - raw))
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10) + 0.0)  # + 0.0: a tick at -0.0 prints as 0
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 10) + 0.0)
    return ticks


def series_colours(labels: Sequence[str]) -> dict[str, str]:
    """Colours for series named like ``EN-Nat`` / ``EN-Neut``: one hue per language, dark and light per condition."""
    colours: dict[str, str] = {}
    languages: list[str] = []
    for label in labels:
        language, _, condition = label.partition("-")
        if language not in languages:
            languages.append(language)
        dark, light = SERIES_PALETTE[languages.index(language) % len(SERIES_PALETTE)]
        colours[label] = light if condition.lower().startswith("neu") else dark
    return colours


def open_svg(css_class: str, width: float, height: float, title: str) -> str:
    return (
        f'<svg class="chart {css_class}" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(title)}" {FONT}>'
        f"<title>{escape(title)}</title>"
    )


def empty_figure(css_class: str, title: str, width: float = 320, height: float = 60) -> SafeString:
    return mark_safe(
        open_svg(css_class, width, height, title)
        + f'<text x="{width / 2:.0f}" y="{height / 2:.0f}" font-size="12" text-anchor="middle" class="no-data">'
        "No data</text></svg>"
    )


def box_plot(
    data: Mapping[str, Mapping[str, Sequence[float | None]]],
    title: str,
    y_label: str = "",
    colours: Mapping[str, str] | None = None,
    series_labels: Mapping[str, str] | None = None,
    height: int = 280,
    box_width: int = 14,
    x_label: str = "",
) -> SafeString:
    """Box plots grouped by category: ``data[category][series] = values``, one coloured box per series.

    Categories (probes, measures) run along the x axis in the given order; series (language and
    condition, or class) keep their order across categories and are named in a legend. Each box
    is a ``<g class="box">`` with a tooltip giving n, missing values, median, quartiles and mean.
    """
    categories = list(data)
    series: list[str] = []
    for members in data.values():
        series.extend(name for name in members if name not in series)
    stats = {(c, s): box_stats(data[c].get(s, ())) for c in categories for s in series}
    drawn = [b for b in stats.values() if b is not None]
    if not drawn:
        return empty_figure("box-plot", title)
    colours = dict(colours or {})
    names = dict(series_labels or {})
    lows = [b.low for b in drawn] + [o for b in drawn for o in b.outliers]
    highs = [b.high for b in drawn] + [o for b in drawn for o in b.outliers]
    ticks = nice_ticks(min(lows), max(highs))
    y_min, y_max = ticks[0], ticks[-1]

    left, right, top, bottom = 52, 10, 22, 40 + (14 if x_label else 0)
    # Each category is as wide as its boxes or its label, whichever is wider.
    widths = [max(len(series) * (box_width + 4) + 16, CHAR_WIDTH * len(c) + 12) for c in categories]
    starts = [left + sum(widths[:i]) for i in range(len(categories))]
    width = left + right + max(sum(widths), 160)
    legend = legend_layout([names.get(s, s) for s in series], left, width - right) if len(series) > 1 else []
    legend_h = 16 * (max(row for _, row in legend) + 1) if legend else 0
    plot_h = height - top - bottom - legend_h
    plot_bottom = top + plot_h

    def py(value: float) -> float:
        return top + plot_h * (y_max - value) / ((y_max - y_min) or 1)

    parts = [open_svg("box-plot", width, height, title)]
    parts.append('<g class="axis y-axis" font-size="9">')
    for tick in ticks:
        y = py(tick)
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#e5e7eb"/>'
            f'<text x="{left - 4}" y="{y + 3:.1f}" text-anchor="end">{tick:g}</text>'
        )
    if y_min < 0 < y_max:
        parts.append(f'<line x1="{left}" y1="{py(0):.1f}" x2="{width - right}" y2="{py(0):.1f}" stroke="#9ca3af"/>')
    parts.append(
        f'<text class="axis-label" x="12" y="{top + plot_h / 2:.1f}" font-size="11" text-anchor="middle" '
        f'transform="rotate(-90 12 {top + plot_h / 2:.1f})">{escape(y_label)}</text></g>'
    )
    if x_label:
        parts.append(
            f'<text class="axis-label" x="{left + (width - left - right) / 2:.1f}" y="{plot_bottom + 30:.1f}" '
            f'font-size="11" text-anchor="middle">{escape(x_label)}</text>'
        )
    for category, x_start, group_w in zip(categories, starts, widths, strict=True):
        middle = x_start + group_w / 2
        x0 = middle - len(series) * (box_width + 4) / 2 + 2
        parts.append(
            f'<g class="category" data-category="{escape(category)}">'
            f'<text x="{middle:.1f}" y="{plot_bottom + 14:.1f}" font-size="10" '
            f'text-anchor="middle">{escape(category)}</text>'
        )
        for si, name in enumerate(series):
            box = stats[(category, name)]
            if box is None:
                continue
            colour = colours.get(name, DEFAULT_COLOUR)
            cx = x0 + si * (box_width + 4) + box_width / 2
            half = box_width / 2
            label = names.get(name, name)
            tip = (
                f"{category}, {label}: n={box.n}"
                + (f" ({box.missing} missing)" if box.missing else "")
                + f", median {box.median:.3f}, quartiles {box.q1:.3f}–{box.q3:.3f}, mean {box.mean:.3f}"
            )
            parts.append(
                f'<g class="box" data-series="{escape(name)}"><title>{escape(tip)}</title>'
                f'<line x1="{cx:.1f}" y1="{py(box.high):.1f}" x2="{cx:.1f}" y2="{py(box.low):.1f}" stroke="#374151"/>'
                f'<rect x="{cx - half:.1f}" y="{py(box.q3):.1f}" width="{box_width}" '
                f'height="{max(py(box.q1) - py(box.q3), 2):.1f}" fill="{colour}" fill-opacity="0.85" stroke="#374151"/>'
                f'<line x1="{cx - half:.1f}" y1="{py(box.median):.1f}" x2="{cx + half:.1f}" y2="{py(box.median):.1f}" '
                f'stroke="#111827" stroke-width="2"/>'
            )
            for value in box.outliers:
                parts.append(f'<circle cx="{cx:.1f}" cy="{py(value):.1f}" r="1.8" fill="none" stroke="{colour}"/>')
            parts.append("</g>")
        parts.append("</g>")
    if legend:
        parts.append(legend_svg(series, legend, height - legend_h, colours, names))
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every interpolated text is escaped above


def legend_svg(
    series: Sequence[str],
    layout: Sequence[tuple[float, int]],
    top: float,
    colours: Mapping[str, str],
    names: Mapping[str, str] | None = None,
    swatch: str = "box",
) -> str:
    """The legend at ``top``: each series' swatch (a box, or a ``"line"``) and name where ``legend_layout`` put it."""
    names = names or {}
    parts = ['<g class="legend" font-size="10">']
    for name, (x, row) in zip(series, layout, strict=True):
        y, colour = top + 12 + 16 * row - 4, colours.get(name, DEFAULT_COLOUR)
        if swatch == "line":
            parts.append(f'<line x1="{x}" y1="{y - 3}" x2="{x + 10}" y2="{y - 3}" stroke="{colour}" stroke-width="2"/>')
        else:
            parts.append(f'<rect x="{x}" y="{y - 8}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{x + 14}" y="{y + 1}">{escape(names.get(name, name))}</text>')
    parts.append("</g>")
    return "".join(parts)


def legend_layout(labels: Sequence[str], left: float, right: float) -> list[tuple[float, int]]:
    """(x, row) of each legend entry: a swatch and its label, wrapped onto new rows at ``right``."""
    placed, x, row = [], left, 0
    for label in labels:
        entry = 14 + CHAR_WIDTH * len(label) + 14
        if x > left and x + entry > right:
            x, row = left, row + 1
        placed.append((x, row))
        x += entry
    return placed


def class_box_plot(
    data: Mapping[str, Mapping[str, Sequence[float | None]]],
    title: str,
    y_label: str = "",
    class_labels: Mapping[str, str] | None = None,
    x_label: str = "",
) -> SafeString:
    """``box_plot`` with one box per compositionality class, coloured like the other reports."""
    return box_plot(data, title, y_label, colours=CLASS_COLOURS, series_labels=class_labels, x_label=x_label)


def diverging_colour(value: float | None) -> str:
    """White at 0, red towards +1, blue towards -1; grey when missing."""
    if value is None or not math.isfinite(value):
        return "#eeeeee"
    t = max(-1.0, min(1.0, value))
    target = (178, 24, 43) if t > 0 else (33, 102, 172)
    r, g, b = (round(255 + (c - 255) * abs(t)) for c in target)
    return f"#{r:02x}{g:02x}{b:02x}"


def correlogram(
    labels: Sequence[str],
    values: Mapping[tuple[str, str], float | None],
    title: str,
    cell: int = 44,
) -> SafeString:
    """A square matrix of correlations between ``labels`` (models), coloured from -1 (blue) to +1 (red).

    ``values[(a, b)]`` is looked up either way round; the diagonal is 1 unless given.
    """
    labels = list(labels)
    if len(labels) < 2:
        return empty_figure("correlogram", title)

    def value(a: str, b: str) -> float | None:
        if (a, b) in values:
            return values[(a, b)]
        if (b, a) in values:
            return values[(b, a)]
        return 1.0 if a == b else None

    # Full names: rows are labelled on the left, columns above at 45 degrees, each with room for the longest.
    longest = CHAR_WIDTH * max(len(label) for label in labels)
    margin = 12 + longest
    top = 12 + longest * 0.72
    width = margin + cell * len(labels) + longest * 0.72 + 8
    height = top + cell * len(labels) + 8
    parts = [open_svg("correlogram", width, height, title)]
    for i, label in enumerate(labels):
        y = top + i * cell + cell / 2 + 3
        x = margin + i * cell + cell / 2
        parts.append(
            f'<text class="row-label" x="{margin - 4}" y="{y:.1f}" font-size="10" text-anchor="end">{escape(label)}</text>'
            f'<text class="column-label" x="{x:.1f}" y="{top - 4:.1f}" font-size="10" text-anchor="start" '
            f'transform="rotate(-45 {x:.1f} {top - 4:.1f})">{escape(label)}</text>'
        )
    for i, row in enumerate(labels):
        for j, column in enumerate(labels):
            rho = value(row, column)
            x, y = margin + j * cell, top + i * cell
            text = "–" if rho is None or not math.isfinite(rho) else f"{rho:.2f}"
            ink = "ink-light" if rho is not None and math.isfinite(rho) and abs(rho) > 0.6 else "ink-dark"
            parts.append(
                f'<g class="cell"><title>{escape(row)} × {escape(column)}: {text}</title>'
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell}" height="{cell}" fill="{diverging_colour(rho)}" stroke="#ffffff"/>'
                f'<text x="{x + cell / 2:.1f}" y="{y + cell / 2 + 3:.1f}" font-size="10" text-anchor="middle" '
                f'class="{ink}">{text}</text></g>'
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every interpolated text is escaped above


def model_correlograms(
    per_compound_by_model: Mapping[str, Sequence[Mapping]], level: str = "nc", group: str = ""
) -> dict:
    """Figure 10: one correlogram per measure between the models' per-compound values, at one level.

    Only ``group`` (a language-condition such as ``EN-Nat``; the first one found by default) is
    drawn. Correlations with p > 0.05 are left blank, as in the paper. Returns ``{"groups", "group",
    "figures": [{measure, key, kind, title, labels, data, svg}]}``: each also a spec for ``paper_figures``.
    """
    models = list(per_compound_by_model)
    rows = model_correlations(
        {
            model: [tables.flatten_compound(r) for r in rows if r.get("level") == level]
            for model, rows in per_compound_by_model.items()
        },
        measures=[key for key, _ in tables.MEASURES],
    )
    groups = list(dict.fromkeys(tables.group_label(r["language"], r["condition"]) for r in rows))
    chosen = group if group in groups else (groups[0] if groups else "")
    figures = []
    for key, label in tables.MEASURES:
        values = {
            (r["model_a"], r["model_b"]): r["rho"] if tables.is_significant(r) else None
            for r in rows
            if r["measure"] == key and tables.group_label(r["language"], r["condition"]) == chosen
        }
        title = f"{label}, {chosen}, {tables.LEVEL_LABELS.get(level, level)}"
        figures.append(
            {
                "measure": key,
                "key": f"correlogram-{key}",
                "kind": "matrix",
                "title": title,
                "labels": models,
                "data": values,
                "svg": correlogram(models, values, title),
            }
        )
    return {"groups": groups, "group": chosen, "figures": figures if rows else []}
