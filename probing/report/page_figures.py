"""A report's figures for its page: the specs of ``probing.report.figure_data`` drawn as light SVG.

The downloads draw the same specs with matplotlib (``probing.report.paper_figures``).
"""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.safestring import SafeString

from datasets.vocabulary import CLASS_COLOURS
from probing.report.figures import box_plot, series_colours
from probing.report.line_chart import line_panels
from probing.report.scatter import scatter_panels


def page_figure(spec: Mapping) -> SafeString:
    """One ``figure_data.report_figures`` spec as SVG."""
    data = spec["data"]
    series = list(dict.fromkeys(name for members in data.values() for name in members))
    colours = CLASS_COLOURS if spec.get("palette") == "classes" else series_colours(series)
    if spec["kind"] == "scatter":
        return scatter_panels(data, spec["title"], spec["x_label"], spec["y_label"], colours, spec.get("series_labels"))
    if spec["kind"] == "lines":
        return line_panels(data, spec["title"], spec["x_label"], spec["y_label"], colours)
    labels = spec.get("series_labels") or {}
    return box_plot(data, spec["title"], spec["y_label"], colours, series_labels=labels, x_label=spec["x_label"])
