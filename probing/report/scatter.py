"""Scatter panels as light SVG: a likelihood report's preference against the human score, a point per compound.

``data[panel][series] = [(x, y, label)]``: one panel per language and condition, the series the
compositionality classes (coloured as everywhere else), a point's tooltip its compound. Panels in
rows of three. The downloads draw the same spec with matplotlib (``probing.report.paper_figures``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from datasets.vocabulary import DEFAULT_COLOUR
from probing.report.figures import empty_figure, legend_layout, legend_svg, nice_ticks, open_svg

PANEL_W, PANEL_H, COLUMNS = 300, 230, 3


def scatter_panels(
    data: Mapping[str, Mapping[str, Sequence[tuple[float, float, str]]]],
    title: str,
    x_label: str,
    y_label: str,
    colours: Mapping[str, str],
    series_labels: Mapping[str, str] | None = None,
) -> SafeString:
    """One panel per key of ``data``; axes shared by every panel so that they read alike (legend: ``series_labels``)."""
    panels = [name for name, groups in data.items() if any(groups.values())]
    if not panels:
        return empty_figure("scatter-panels", title)
    points = [p for name in panels for members in data[name].values() for p in members]
    x_ticks = nice_ticks(min(p[0] for p in points), max(p[0] for p in points), 5)
    y_ticks = nice_ticks(min(0.0, *(p[1] for p in points)), max(0.0, *(p[1] for p in points)), 4)
    series = list(dict.fromkeys(name for groups in data.values() for name in groups))
    rows = (len(panels) + COLUMNS - 1) // COLUMNS
    width = COLUMNS * PANEL_W
    names = {name: (series_labels or {}).get(name, name) for name in series}
    legend = legend_layout([names[name] for name in series], 10, width - 10)
    legend_h = 16 * (max(row for _, row in legend) + 1) if legend else 0
    height = rows * PANEL_H + 10 + legend_h
    parts = [open_svg("scatter-panels", width, height, title)]
    for i, name in enumerate(panels):
        x0, y0 = (i % COLUMNS) * PANEL_W, (i // COLUMNS) * PANEL_H
        parts.append(_panel(name, data[name], x_ticks, y_ticks, x0, y0, colours, x_label, y_label))
    parts.append(legend_svg(series, legend, height - legend_h, colours, names=names))
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every interpolated text is escaped above


def _panel(name, groups, x_ticks, y_ticks, x0, y0, colours, x_label, y_label) -> str:
    left, right, top, bottom = 46, 12, 22, 38
    plot_w, plot_h = PANEL_W - left - right, PANEL_H - top - bottom
    (x_lo, x_hi), (y_lo, y_hi) = (x_ticks[0], x_ticks[-1]), (y_ticks[0], y_ticks[-1])

    def px(x: float) -> float:
        return x0 + left + plot_w * (x - x_lo) / ((x_hi - x_lo) or 1)

    def py(y: float) -> float:
        return y0 + top + plot_h * (y_hi - y) / ((y_hi - y_lo) or 1)

    parts = [f'<g class="panel" data-panel="{escape(name)}">']
    parts.append(f'<text x="{x0 + left}" y="{y0 + 14}" font-size="11" font-weight="600">{escape(name)}</text>')
    for tick in y_ticks:
        parts.append(
            f'<line x1="{x0 + left}" y1="{py(tick):.1f}" x2="{x0 + left + plot_w}" y2="{py(tick):.1f}" '
            f'stroke="{"#9ca3af" if tick == 0 else "#e5e7eb"}"/>'
            f'<text x="{x0 + left - 4}" y="{py(tick) + 3:.1f}" font-size="9" text-anchor="end">{tick:g}</text>'
        )
    for tick in x_ticks:
        parts.append(
            f'<text x="{px(tick):.1f}" y="{y0 + top + plot_h + 12:.1f}" font-size="9" text-anchor="middle">{tick:g}</text>'
        )
    parts.append(
        f'<text class="axis-label" x="{x0 + left + plot_w / 2:.1f}" y="{y0 + PANEL_H - 8:.1f}" font-size="10" '
        f'text-anchor="middle">{escape(x_label)}</text>'
        f'<text class="axis-label" x="{x0 + 10}" y="{y0 + top + plot_h / 2:.1f}" font-size="10" text-anchor="middle" '
        f'transform="rotate(-90 {x0 + 10} {y0 + top + plot_h / 2:.1f})">{escape(y_label)}</text>'
    )
    for series, members in groups.items():
        colour = colours.get(series, DEFAULT_COLOUR)
        parts.append(f'<g class="series" data-series="{escape(series)}">')
        for x, y, label in members:
            tip = f"{label}: {x_label} {x:g}, {y_label} {y:.2f}"
            parts.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}" fill-opacity="0.8">'
                f"<title>{escape(tip)}</title></circle>"
            )
        parts.append("</g>")
    parts.append("</g>")
    return "".join(parts)
