"""Small server-side SVG charts (bar chart, scatter plot) for the report pages: no JavaScript, no CDN."""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from datasets.vocabulary import CLASS_COLOURS, DEFAULT_COLOUR


def bar_chart(
    counts: Sequence[int], labels: Sequence[str], title: str, width: int = 280, height: int = 150
) -> SafeString:
    """Vertical bars with their counts above and labels below; ``title`` is the accessible name."""
    # Text at 12-13 px: smaller labels are hard to read at 100 % zoom.
    top, bottom, left = 18, 20, 4
    plot_h = height - top - bottom
    n = max(len(counts), 1)
    step = (width - 2 * left) / n
    peak = max(counts, default=0) or 1
    parts = [
        f'<svg class="chart bar-chart" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
    ]
    for i, (count, label) in enumerate(zip(counts, labels, strict=True)):
        h = plot_h * count / peak
        x = left + i * step
        y = top + plot_h - h
        parts.append(
            f'<rect x="{x + 2:.1f}" y="{y:.1f}" width="{step - 4:.1f}" height="{h:.1f}" fill="{DEFAULT_COLOUR}">'
            f"<title>{escape(label)}: {count}</title></rect>"
            f'<text x="{x + step / 2:.1f}" y="{y - 3:.1f}" font-size="12" text-anchor="middle">{count}</text>'
            f'<text x="{x + step / 2:.1f}" y="{height - 5}" font-size="13" text-anchor="middle">{escape(label)}</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every interpolated text is escaped above


def scatter(points: Sequence[dict], title: str, x_label: str, y_label: str, size: int = 320) -> SafeString:
    """Points {x, y, label, class} on 0-5 × 0-5 axes, coloured by compositionality class."""
    margin = 32
    plot = size - 2 * margin

    def px(value: float) -> float:
        return margin + plot * value / 5

    def py(value: float) -> float:
        return size - margin - plot * value / 5

    parts = [
        f'<svg class="chart scatter" xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}" role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>',
        f'<rect x="{margin}" y="{margin}" width="{plot}" height="{plot}" fill="none" stroke="#999"/>',
        f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(5)}" y2="{py(5)}" stroke="#ccc" stroke-dasharray="3 3"/>',
    ]
    for tick in range(6):
        parts.append(
            f'<text x="{px(tick):.1f}" y="{size - margin + 12}" font-size="9" text-anchor="middle">{tick}</text>'
            f'<text x="{margin - 6}" y="{py(tick) + 3:.1f}" font-size="9" text-anchor="end">{tick}</text>'
        )
    parts.append(
        f'<text x="{size / 2}" y="{size - 4}" font-size="10" text-anchor="middle">{escape(x_label)}</text>'
        f'<text x="10" y="{size / 2}" font-size="10" text-anchor="middle" '
        f'transform="rotate(-90 10 {size / 2})">{escape(y_label)}</text>'
    )
    for point in points:
        if point.get("x") is None or point.get("y") is None:
            continue
        colour = CLASS_COLOURS.get(point.get("class") or "", DEFAULT_COLOUR)
        parts.append(
            f'<circle cx="{px(point["x"]):.1f}" cy="{py(point["y"]):.1f}" r="3" fill="{colour}" fill-opacity="0.75">'
            f"<title>{escape(point.get('label', ''))}: {point['x']:.2f}, {point['y']:.2f}</title></circle>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every interpolated text is escaped above
