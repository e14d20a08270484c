"""The server-side SVG figures: well-formed, labelled, and calm about missing values."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import pytest

from datasets.vocabulary import CLASS_COLOURS
from probing.report import figures

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def texts(root: ET.Element) -> list[str]:
    return [node.text or "" for node in root.iter(f"{SVG}text")]


def groups(root: ET.Element, css_class: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == css_class]


def test_box_stats_follow_tukey_and_skip_missing_values():
    stats = figures.box_stats([1, 2, 3, 4, None, float("nan"), 100])

    assert (stats.n, stats.missing) == (5, 2)
    assert (stats.q1, stats.median, stats.q3) == (2, 3, 4)
    assert (stats.low, stats.high) == (1, 4)
    assert stats.outliers == (100,)
    assert figures.box_stats([None, None]) is None
    assert figures.box_stats([]) is None


def test_quantiles_interpolate_like_numpy():
    assert figures.quantile([0.0, 1.0], 0.25) == 0.25
    assert figures.quantile([5.0], 0.75) == 5.0


def test_nice_ticks_cover_the_range_in_round_steps():
    ticks = figures.nice_ticks(-0.13, 0.92)

    assert ticks[0] <= -0.13 and ticks[-1] >= 0.92
    steps = {round(b - a, 6) for a, b in itertools.pairwise(ticks)}
    assert steps == {0.2}
    assert figures.nice_ticks(0.5, 0.5)[0] < 0.5 < figures.nice_ticks(0.5, 0.5)[-1]


def test_a_box_plot_draws_one_box_per_category_and_series_with_a_legend():
    data = {
        "P_Syn": {"EN-Nat": [0.5, 0.6, 0.7], "EN-Neut": [0.4, 0.5, None]},
        "P_Rand": {"EN-Nat": [0.1, 0.2, 0.3], "EN-Neut": [None]},
    }

    svg = figures.box_plot(
        data, "Similarity at NC level <Syn & Rand>", "cosine", figures.series_colours(["EN-Nat", "EN-Neut"])
    )

    root = parse(svg)
    assert root.find(f"{SVG}title").text == "Similarity at NC level <Syn & Rand>"
    assert [g.get("data-category") for g in groups(root, "category")] == ["P_Syn", "P_Rand"]
    boxes = groups(root, "box")
    assert [b.get("data-series") for b in boxes] == ["EN-Nat", "EN-Neut", "EN-Nat"]  # the all-None box is left out
    assert "1 missing" in boxes[1].find(f"{SVG}title").text
    assert {"P_Syn", "P_Rand", "EN-Nat", "EN-Neut", "cosine"} <= set(texts(root))
    assert len(groups(root, "legend")) == 1


def test_naturalistic_is_darker_than_neutral_and_languages_differ():
    colours = figures.series_colours(["EN-Nat", "EN-Neut", "PT-Nat", "PT-Neut"])

    assert len(set(colours.values())) == 4
    assert colours["EN-Nat"] == figures.SERIES_PALETTE[0][0]
    assert colours["PT-Neut"] == figures.SERIES_PALETTE[1][1]


@pytest.mark.parametrize("data", [{}, {"P_Syn": {}}, {"P_Syn": {"EN-Nat": [None, None]}}])
def test_a_box_plot_without_values_says_no_data(data):
    root = parse(figures.box_plot(data, "Empty"))

    assert "No data" in texts(root)
    assert groups(root, "box") == []


def test_class_boxes_take_the_class_colours_and_names():
    data = {"A_Syn|Rand": {"idiomatic": [0.1, 0.2], "compositional": [0.5, 0.6]}}

    root = parse(figures.class_box_plot(data, "Affinity by class", class_labels={"idiomatic": "Idiomatic"}))

    fills = [g.find(f"{SVG}rect").get("fill") for g in groups(root, "box")]
    assert fills == [CLASS_COLOURS["idiomatic"], CLASS_COLOURS["compositional"]]
    assert "Idiomatic" in texts(root)


def test_a_correlogram_is_symmetric_with_a_unit_diagonal_and_marks_missing_pairs():
    values = {("minilm", "bert"): 0.8, ("bert", "glove"): -0.25}

    root = parse(figures.correlogram(["minilm", "bert", "glove"], values, "Models"))

    cells = groups(root, "cell")
    assert len(cells) == 9
    numbers = [c.find(f"{SVG}text").text for c in cells]
    assert numbers == ["1.00", "0.80", "–", "0.80", "1.00", "-0.25", "–", "-0.25", "1.00"]
    assert cells[1].find(f"{SVG}rect").get("fill") == cells[3].find(f"{SVG}rect").get("fill")
    assert figures.diverging_colour(0.0) == "#ffffff"
    assert figures.diverging_colour(None) == "#eeeeee"


def test_a_correlogram_of_one_model_says_no_data():
    assert "No data" in texts(parse(figures.correlogram(["minilm"], {}, "Models")))


def test_no_tick_reads_minus_zero_and_axes_are_labelled():
    ticks = figures.nice_ticks(-0.3, 0.3)
    assert 0.0 in ticks and all(f"{tick:g}" != "-0" for tick in ticks)
    data = {"A_Syn|Rand": {"idiomatic": [-0.2, 0.1, 0.3]}, "Sim_R|Syn": {"idiomatic": [-0.1, 0.2, 0.25]}}
    root = parse(figures.box_plot(data, "By class", "Affinity or scaled similarity", x_label="Measure"))
    labels = [node.text for node in root.iter(f"{SVG}text") if node.get("class") == "axis-label"]
    assert labels == ["Affinity or scaled similarity", "Measure"]
    assert "-0" not in texts(root)


def test_layer_panels_draw_a_line_per_series_and_mark_significant_points():
    from probing.report.line_chart import line_panels

    data = {
        "P_Syn": {
            "EN-Nat": [(0, 0.1, False), (1, 0.35, True), (2, 0.5, True)],
            "PT-Nat": [(0, -0.2, True), (1, 0.0, False), (2, 0.1, False)],
        },
        "P_Rand": {"EN-Nat": [(0, 0.0, False), (1, -0.1, False), (2, 0.05, False)]},
    }
    root = parse(line_panels(data, "Rho per layer", "Layer (0: embeddings)", "Spearman ρ", {"EN-Nat": "#1f5fa8"}))

    panels = groups(root, "panel")
    assert [p.get("data-panel") for p in panels] == ["P_Syn", "P_Rand"]
    series = [g for g in groups(root, "series") if g.get("data-series") == "EN-Nat"]
    assert len(series) == 2 and len(list(series[0].iter(f"{SVG}circle"))) == 3
    filled = [c.get("fill") for c in series[0].iter(f"{SVG}circle")]
    assert filled == ["#ffffff", "#1f5fa8", "#1f5fa8"]  # hollow where p > 0.05
    assert "Layer (0: embeddings)" in texts(root) and "Spearman ρ" in texts(root)
    assert "-0" not in texts(root)
