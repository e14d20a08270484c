"""Paper-ready figures with matplotlib: each kind in each format, with its labels and the papers' colours."""

from __future__ import annotations

import pytest

from probing.report.paper_figures import FORMATS, render

MAGIC = {"svg": b"<?xml", "png": b"\x89PNG\r\n\x1a\n", "pdf": b"%PDF-"}
BOXES = {
    "key": "similarity-nc",
    "kind": "boxes",
    "title": "Cosine similarity per probe, NC level",
    "x_label": "Probe",
    "y_label": "Cosine similarity",
    "data": {"P_Syn": {"EN-Nat": [0.5, 0.6, 0.9], "EN-Neut": [0.4, None, 0.7]}, "P_Rand": {"EN-Nat": [-0.1, 0.2, 0.3]}},
}
LINES = {
    "key": "layers-nc",
    "kind": "lines",
    "title": "Spearman ρ with human scores per layer, NC level",
    "x_label": "Layer (0: embeddings)",
    "y_label": "Spearman ρ",
    "data": {
        "P_Syn": {"EN-Nat": [(0, -0.1, False), (1, 0.3, True)]},
        "P_Comp": {"EN-Nat": [(0, 0.0, False), (1, 0.2, True)]},
    },
}
MATRIX = {
    "key": "correlogram-sim_syn",
    "kind": "matrix",
    "title": "P_Syn, EN-Nat, NC level",
    "labels": ["#1 minilm", "#2 sentence-transformers-paraphrase-multilingual-mpnet-base-v2"],
    "data": {("#1 minilm", "#2 sentence-transformers-paraphrase-multilingual-mpnet-base-v2"): 0.62},
}
COLOURS = {"EN-Nat": "#1f5fa8", "EN-Neut": "#8db6e3"}


@pytest.mark.parametrize("spec", [BOXES, LINES, MATRIX], ids=lambda spec: spec["kind"])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_kind_renders_in_every_format(spec, fmt):
    assert render(spec, fmt, COLOURS).startswith(MAGIC[fmt])


def test_the_svg_carries_the_axis_labels_the_colours_and_no_minus_zero():
    svg = render(BOXES, "svg", COLOURS).decode()
    for text in ("Cosine similarity", "Probe", "P_Syn", "EN-Neut"):
        assert text in svg
    assert "#1f5fa8" in svg and "#8db6e3" in svg
    assert ">-0<" not in svg and ">\u22120<" not in svg
    lines = render(LINES, "svg", COLOURS).decode()
    assert "Layer (0: embeddings)" in lines and "filled: p ≤ 0.05" in lines
    assert MATRIX["labels"][1] in render(MATRIX, "svg", COLOURS).decode()  # full model names


def test_the_same_figure_gives_the_same_bytes():
    assert render(BOXES, "svg", COLOURS) == render(BOXES, "svg", COLOURS)
    with pytest.raises(ValueError, match="format"):
        render(BOXES, "gif", COLOURS)
