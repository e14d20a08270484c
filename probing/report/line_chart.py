"""Line charts in panels, as server-side SVG: a layer sweep's ρ against the layer, one panel per measure.

Drawn like ``probing.report.figures`` draws its charts (every interpolated text escaped, no JavaScript): each
panel has its x axis (the layers) and y axis (ρ, with 0 marked), one line per series (language and
condition); a point is filled when its correlation is significant (p ≤ 0.05) and hollow otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from datasets.vocabulary import DEFAULT_COLOUR
from probing.report.figures import empty_figure, legend_layout, legend_svg, nice_ticks, open_svg

PANEL_W, PANEL_H, COLUMNS = 250, 170, 4


def line_panels(
    data: Mapping[str, Mapping[str, Sequence[tuple[float, float, bool]]]],
    title: str,
    x_label: str,
    y_label: str,
    colours: Mapping[str, str],
) -> SafeString:
    """``data[panel][series] = [(x, y, significant)]``: one panel per key, panels in rows of four."""
    panels = [name for name, lines in data.items() if any(lines.values())]
    if not panels:
        return empty_figure("line-panels", title)
    series = list(dict.fromkeys(name for lines in data.values() for name in lines))
    xs = sorted({x for lines in data.values() for points in lines.values() for x, _, _ in points})
    ys = [y for lines in data.values() for points in lines.values() for _, y, _ in points]
    y_ticks = nice_ticks(min(0.0, *ys), max(0.0, *ys), 4)
    rows = (len(panels) + COLUMNS - 1) // COLUMNS
    width = COLUMNS * PANEL_W
    legend = legend_layout(series, 10, width - 10)
    legend_h = 16 * (max(row for _, row in legend) + 1) if legend else 0
    height = rows * PANEL_H + 26 + legend_h
    parts = [open_svg("line-panels", width, height, title)]
    for i, name in enumerate(panels):
        x0, y0 = (i % COLUMNS) * PANEL_W, (i // COLUMNS) * PANEL_H
        parts.append(_panel(name, data[name], xs, y_ticks, x0, y0, colours, x_label, y_label))
    parts.append(legend_svg(series, legend, height - legend_h, colours, swatch="line"))
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every interpolated text is escaped above


def _panel(name, lines, xs, y_ticks, x0, y0, colours, x_label, y_label) -> str:
    left, right, top, bottom = 44, 10, 20, 36
    plot_w, plot_h = PANEL_W - left - right, PANEL_H - top - bottom
    lo, hi = y_ticks[0], y_ticks[-1]
    x_lo, x_hi = xs[0], xs[-1]

    def px(x: float) -> float:
        return x0 + left + plot_w * ((x - x_lo) / ((x_hi - x_lo) or 1))

    def py(y: float) -> float:
        return y0 + top + plot_h * (hi - y) / ((hi - lo) or 1)

    parts = [f'<g class="panel" data-panel="{escape(name)}">']
    parts.append(f'<text x="{x0 + left}" y="{y0 + 13}" font-size="11" font-weight="600">{escape(name)}</text>')
    for tick in y_ticks:
        parts.append(
            f'<line x1="{x0 + left}" y1="{py(tick):.1f}" x2="{x0 + left + plot_w}" y2="{py(tick):.1f}" '
            f'stroke="{"#9ca3af" if tick == 0 else "#e5e7eb"}"/>'
            f'<text x="{x0 + left - 4}" y="{py(tick) + 3:.1f}" font-size="9" text-anchor="end">{tick:g}</text>'
        )
    step = max(1, round(len(xs) / 8))
    for x in xs[::step]:
        parts.append(
            f'<text x="{px(x):.1f}" y="{y0 + top + plot_h + 12:.1f}" font-size="9" text-anchor="middle">{x:g}</text>'
        )
    parts.append(
        f'<text class="axis-label" x="{x0 + left + plot_w / 2:.1f}" y="{y0 + PANEL_H - 6:.1f}" font-size="10" '
        f'text-anchor="middle">{escape(x_label)}</text>'
        f'<text class="axis-label" x="{x0 + 10}" y="{y0 + top + plot_h / 2:.1f}" font-size="10" text-anchor="middle" '
        f'transform="rotate(-90 {x0 + 10} {y0 + top + plot_h / 2:.1f})">{escape(y_label)}</text>'
    )
    for series, points in lines.items():
        colour = colours.get(series, DEFAULT_COLOUR)
        path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y, _ in points)
        parts.append(f'<g class="series" data-series="{escape(series)}">')
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        for x, y, significant in points:
            fill = colour if significant else "#ffffff"
            tip = f"{series}, layer {x:g}: ρ = {y:.2f}" + ("" if significant else " (p > 0.05)")
            parts.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.6" fill="{fill}" stroke="{colour}">'
                f"<title>{escape(tip)}</title></circle>"
            )
        parts.append("</g>")
    parts.append("</g>")
    return "".join(parts)
