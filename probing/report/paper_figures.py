"""Paper-ready figures (pure: no Django): a report's figure specs drawn with matplotlib as SVG, PNG or PDF.

The same specs as the page's SVG (``probing.report.figure_data.report_figures``, and the model correlogram
of the comparison page), drawn in the papers' style: box plots per probe with English in blue and
Portuguese in orange, naturalistic darker and neutral lighter (figures 1-3); classes in their
colours (figure 4); ρ per layer in panels; labelled axes, a zero line, no "-0" tick.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from types import SimpleNamespace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = {"svg": "image/svg+xml", "png": "image/png", "pdf": "application/pdf"}


@lru_cache(maxsize=1)
def _mpl() -> SimpleNamespace:
    """matplotlib, on the first figure drawn: the pages and workers that import this module never load it."""
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    return SimpleNamespace(rc=matplotlib.rcParams, Figure=Figure, FuncFormatter=FuncFormatter)


DPI = 200
COLUMNS = 4


def render(spec: Mapping, fmt: str, colours: Mapping[str, str]) -> bytes:
    """The figure of ``spec`` (kinds ``boxes``, ``lines``, ``matrix``, ``scatter``) as ``fmt`` bytes."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    draw = {"boxes": _boxes, "lines": _lines, "matrix": _matrix, "scatter": _scatter}[spec["kind"]]
    figure = draw(spec, colours)
    out = io.BytesIO()
    # No creation date in the file: the same report gives the same bytes.
    metadata = {"Date": None} if fmt in ("svg", "pdf") else {}
    if fmt == "svg":
        _mpl().rc["svg.hashsalt"] = spec.get("key", "figure")
        _mpl().rc["svg.fonttype"] = "none"  # text stays text: editable and searchable in a paper's figure
    figure.savefig(out, format=fmt, dpi=DPI, bbox_inches="tight", metadata=metadata)
    return out.getvalue()


def _no_minus_zero(value: float, _position=None) -> str:
    text = f"{value:g}"
    return "0" if text in ("-0", "-0.0") else text.replace("-", "\u2212")


def _axes_style(axes, x_label: str, y_label: str) -> None:
    axes.set_xlabel(x_label)
    axes.set_ylabel(y_label)
    axes.yaxis.set_major_formatter(_mpl().FuncFormatter(_no_minus_zero))
    axes.grid(axis="y", color="#e5e7eb", linewidth=0.8)
    axes.set_axisbelow(True)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)


def _boxes(spec: Mapping, colours: Mapping[str, str]) -> Figure:
    data: Mapping[str, Mapping[str, Sequence]] = spec["data"]
    labels = spec.get("series_labels") or {}
    categories = list(data)
    series = list(dict.fromkeys(name for members in data.values() for name in members))
    figure = _mpl().Figure(figsize=(max(5.0, 1.1 * len(categories) * max(1, len(series)) * 0.45 + 1.5), 3.6))
    axes = figure.add_subplot()
    width = 0.8 / max(len(series), 1)
    handles = {}
    for c, category in enumerate(categories):
        for s, name in enumerate(series):
            values = [float(v) for v in data[category].get(name, ()) if v is not None and math.isfinite(float(v))]
            if not values:
                continue
            position = c - 0.4 + width * (s + 0.5)
            drawn = axes.boxplot(
                [values],
                positions=[position],
                widths=width * 0.85,
                patch_artist=True,
                flierprops={"markersize": 2, "markeredgecolor": colours.get(name, "#6b7280")},
                medianprops={"color": "#111827"},
            )
            drawn["boxes"][0].set_facecolor(colours.get(name, "#9ca3af"))
            handles.setdefault(name, drawn["boxes"][0])
    axes.set_xticks(range(len(categories)), categories)
    axes.set_xlim(-0.6, len(categories) - 0.4)
    if any(low < 0 < high for low, high in [axes.get_ylim()]):
        axes.axhline(0, color="#9ca3af", linewidth=0.8)
    _axes_style(axes, spec.get("x_label", ""), spec.get("y_label", ""))
    axes.set_title(spec["title"], fontsize=10)
    if len(handles) > 1:
        axes.legend(handles.values(), [labels.get(n, n) for n in handles], fontsize=8, frameon=False, ncols=4)
    return figure


def _panels(spec: Mapping, columns: int, size: tuple[float, float], title: str, draw) -> Figure:
    """One panel per non-empty key of ``spec["data"]`` on shared axes, ``draw(axes, members)`` filling each; legend below."""
    data = spec["data"]
    panels = [name for name, members in data.items() if any(members.values())]
    rows = max(1, math.ceil(len(panels) / columns))
    figure = _mpl().Figure(figsize=(size[0] * columns, size[1] * rows + 0.6), layout="constrained")
    grid = figure.subplots(rows, columns, squeeze=False, sharex=True, sharey=True)
    for axes in grid.flat[len(panels) :]:
        axes.set_visible(False)
    for axes, name in zip(grid.flat, panels, strict=False):
        draw(axes, data[name])
        axes.axhline(0, color="#9ca3af", linewidth=0.8)
        axes.set_title(name, fontsize=10)
        _axes_style(axes, spec["x_label"], spec["y_label"])
        axes.label_outer()
    handles, names = grid.flat[0].get_legend_handles_labels()
    if names:
        figure.legend(handles, names, loc="outside lower center", ncols=4, fontsize=8, frameon=False)
    figure.suptitle(title, fontsize=11)
    return figure


def _lines(spec: Mapping, colours: Mapping[str, str]) -> Figure:
    def draw(axes, lines: Mapping) -> None:
        for series, points in lines.items():
            colour = colours.get(series, "#6b7280")
            axes.plot([p[0] for p in points], [p[1] for p in points], color=colour, linewidth=1.4, label=series)
            for x, y, significant in points:
                axes.plot(
                    [x], [y], "o", markersize=3.5, color=colour, markerfacecolor=colour if significant else "white"
                )

    return _panels(spec, COLUMNS, (3.0, 2.5), f"{spec['title']} (filled: p ≤ 0.05)", draw)


def _scatter(spec: Mapping, colours: Mapping[str, str]) -> Figure:
    """Panels of points (``data[panel][series] = [(x, y, label)]``), axes shared, as the page's SVG."""
    labels = spec.get("series_labels") or {}

    def draw(axes, groups: Mapping) -> None:
        for series, points in groups.items():
            axes.scatter(
                [p[0] for p in points],
                [p[1] for p in points],
                s=10,
                alpha=0.8,
                color=colours.get(series, "#6b7280"),
                label=labels.get(series, series),
            )

    count = sum(1 for groups in spec["data"].values() if any(groups.values()))
    return _panels(spec, min(3, max(1, count)), (3.4, 2.9), spec["title"], draw)


def _matrix(spec: Mapping, colours: Mapping[str, str]) -> Figure:
    labels: list[str] = spec["labels"]
    values: Mapping[tuple[str, str], float | None] = spec["data"]
    n = len(labels)
    figure = _mpl().Figure(
        figsize=(1.2 + 0.75 * n + 0.06 * max(map(len, labels)), 1.0 + 0.75 * n), layout="constrained"
    )
    axes = figure.add_subplot()
    grid = [[_pair(values, a, b) for b in labels] for a in labels]
    shown = [[math.nan if v is None else v for v in row] for row in grid]
    image = axes.imshow(shown, cmap="RdBu_r", vmin=-1, vmax=1)
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            text = "–" if value is None else _no_minus_zero(round(value, 2)) if abs(value) < 0.005 else f"{value:.2f}"
            axes.text(
                j,
                i,
                text.replace("-", "\u2212"),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if value is not None and abs(value) > 0.6 else "#111827",
            )
    axes.set_xticks(range(n), labels, rotation=45, ha="left")
    axes.xaxis.tick_top()
    axes.set_yticks(range(n), labels)
    figure.colorbar(image, ax=axes, label="Spearman ρ", shrink=0.8)
    axes.set_title(spec["title"], fontsize=10, pad=12)
    return figure


def _pair(values: Mapping, a: str, b: str) -> float | None:
    if (a, b) in values:
        return values[(a, b)]
    if (b, a) in values:
        return values[(b, a)]
    return 1.0 if a == b else None
