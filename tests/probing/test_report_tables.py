"""Shaping a probe report into the report pages' tables: partial reports, missing values, the papers' order."""

from __future__ import annotations

import pytest

from probing.report import figure_data, tables


def summary_row(measure: str, mean: float | None, level: str = "nc", condition: str = "naturalistic", language="en"):
    return {
        "language": language,
        "condition": condition,
        "level": level,
        "measure": measure,
        "mean": mean,
        "std": 0.1,
        "n": 5,
    }


def correlation_row(measure: str, rho, p, subset: str = "all", condition: str = "naturalistic", **extra):
    row = {"language": "en", "condition": condition, "level": "nc", "measure": measure, "subset": subset}
    return row | {"rho": rho, "p": p, "n": 12, "significant": p is not None and p <= 0.05} | extra


def test_nested_values_flatten_whichever_way_the_standardised_ones_are_nested():
    entry = {"compound": "eager beaver", "sim": {"syn": 0.5}, "sim_std": {"syn": 0.4}, "scaled": {"syn": None}}
    other = {"compound": "eager beaver", "sim": {"syn": 0.5}, "standardised": {"sim": {"syn": 0.4}}}

    assert tables.flatten_compound(entry) == {
        "compound": "eager beaver",
        "sim_syn": 0.5,
        "sim_syn_std": 0.4,
        "scaled_syn": None,
    }
    assert tables.flatten_compound(other) == {"compound": "eager beaver", "sim_syn": 0.5, "sim_syn_std": 0.4}


def test_the_summary_gives_raw_and_standardised_views_in_the_papers_order():
    rows = [
        summary_row("scaled_syn", 0.2),
        summary_row("sim_syn_std", 0.6),
        summary_row("sim_syn", 0.7),
        summary_row("sim_syn", 0.8, condition="neutral"),
        summary_row("sim_syn", 0.9, level="sentence", language="pt"),
    ]

    sentence, nc = tables.summary_tables(rows)

    assert (sentence["level"], nc["level"]) == ("sentence", "nc")
    assert nc["groups"] == ["EN-Nat", "EN-Neut"] and nc["width"] == 5
    raw, standardised = nc["views"]
    assert [s["title"] for s in raw["sections"]] == ["Similarity (tables 10 and 11)", "Scaled similarity (table 13)"]
    syn = raw["sections"][0]["rows"][0]
    assert syn["label"] == "P_Syn" and syn["cells"] == [
        {"mean": "0.700", "std": "0.100", "n": 5},
        {"mean": "0.800", "std": "0.100", "n": 5},
    ]
    assert standardised["label"] == "After standardisation (appendix C)"
    assert standardised["sections"][0]["rows"][0]["cells"] == [{"mean": "0.600", "std": "0.100", "n": 5}, None]
    assert sentence["groups"] == ["PT-Nat"] and [v["key"] for v in sentence["views"]] == ["raw"]


def test_an_empty_or_partial_report_gives_empty_tables():
    assert tables.summary_tables([]) == []
    assert tables.correlation_tables([]) == []
    assert tables.compound_rows([]) == []
    assert tables.length_table([]) == {"groups": [], "rows": []}
    assert tables.context_tables([]) == {"columns": [], "views": []}
    assert figure_data.distribution_data([]) == {}
    assert figure_data.class_data([]) == []
    assert tables.comparison_tables({}) == []
    only_missing = tables.summary_tables([summary_row("sim_syn", None)])
    assert only_missing[0]["views"][0]["sections"][0]["rows"][0]["cells"][0]["mean"] == "–"


def test_correlations_hide_non_significant_cells_unless_all_are_asked_for():
    rows = [
        correlation_row("sim_syn", 0.62, 0.001, p_adjusted=0.004),
        correlation_row("sim_syn_std", 0.58, 0.002, p_adjusted=0.005),
        correlation_row("sim_rand", 0.05, 0.7, p_adjusted=0.9),
        correlation_row("sim_syn", 0.4, 0.03, subset="idiomatic", p_adjusted=0.06),
        correlation_row("sim_syn", None, None, subset="no_overlap"),
    ]

    (table,) = tables.correlation_tables(rows)
    (shown,) = tables.correlation_tables(rows, show_all=True)
    (corrected,) = tables.correlation_tables(rows, correction="bh")

    assert table["subsets"] == [("all", "All"), ("idiomatic", "Idiomatic"), ("no_overlap", "No lexical overlap")]
    assert table["has_bh"] and [v["key"] for v in table["views"]] == ["raw", "std"]
    raw, standardised = table["views"]
    assert [s["measure"] for s in raw["sections"]] == ["sim_syn", "sim_rand"]
    syn = raw["sections"][0]["rows"][0]["cells"]
    assert (syn[0]["text"], syn[0]["p"], syn[0]["q"], syn[0]["mark"]) == ("0.62", "1.0e-03", "4.0e-03", "strong")
    assert (syn[1]["text"], syn[1]["mark"]) == ("0.40", "weak")  # 0.01 < p <= 0.05: italics
    assert not syn[2]["shown"] and syn[2]["text"] == "–"  # rho None: nothing to show, even with all
    assert standardised["sections"][0]["rows"][0]["cells"][0]["text"] == "0.58"
    assert not raw["sections"][1]["rows"][0]["cells"][0]["shown"]
    assert shown["views"][0]["sections"][1]["rows"][0]["cells"][0]["text"] == "0.05"
    assert not corrected["views"][0]["sections"][0]["rows"][0]["cells"][1]["shown"]  # q = 0.06


@pytest.mark.parametrize(
    ("p", "text"), [(None, "–"), (0.0004, "4.0e-04"), (0.0123, "1.2e-02"), (float("nan"), "–"), (0.0, "0")]
)
def test_p_values_print_in_scientific_notation(p, text):
    assert tables.format_p(p) == text


def test_length_and_context_tables_read_like_their_papers_tables():
    length = [
        {"language": "en", "condition": "naturalistic", "level": "sentence", "measure": m, "rho": r, "p": p, "n": 30}
        for m, r, p in [("sim_rand", 0.81, 1e-8), ("sim_syn", 0.44, 0.02), ("sim_comp", -0.004, 0.9)]
    ]
    table = tables.length_table(length)
    assert table["groups"] == ["EN-Nat"]
    assert [r["label"] for r in table["rows"]] == ["P_Syn", "P_Comp", "P_Rand"]
    assert [r["cells"][0]["text"] for r in table["rows"]] == ["0.44", "–", "0.81"]
    assert tables.length_table(length, show_all=True)["rows"][1]["cells"][0]["text"] == "0.00"  # never -0.00
    context = [
        {"language": "en", "condition": "naturalistic", "probe": "nc_out_comp", "granularity": g, "against": a}
        | {"measure": m, "rho": 0.3, "p": 0.001, "n": 40}
        for g in ("type", "token")
        for a in ("ppmi", "comp")
        for m in ("sim", "sim_std")
    ]
    shaped = tables.context_tables(context)
    assert shaped["columns"] == [
        ("Token level", "Human score"),
        ("Token level", "PPMI"),
        ("Type level", "Human score"),
        ("Type level", "PPMI"),
    ]
    assert [v["key"] for v in shaped["views"]] == ["raw", "std"]
    assert shaped["views"][0]["rows"][0]["probe"] == "NC_outComp" and shaped["views"][0]["rows"][0]["group"] == "EN-Nat"


def compound(text: str, human, syn, level="nc", condition="naturalistic", cls="idiomatic"):
    return {
        "compound": text,
        "language": "en",
        "condition": condition,
        "level": level,
        "class": cls,
        "human": human,
        "sim": {"syn": syn, "comp": 0.7, "words_syn": 0.6, "rand": 0.2},
        "affinity": {"syn_words_syn": None, "syn_rand": 0.3},
        "scaled": {"syn": 0.4, "words_syn": 0.5},
    }


def test_per_compound_rows_filter_and_sort_with_missing_values_last():
    rows = [
        compound("olive oil", 4.6, 0.9, cls="compositional"),
        compound("eager beaver", 0.8, None),
        compound("guinea pig", 0.4, 0.5),
        compound("olive oil", 4.6, 0.8, level="sentence", cls="compositional"),
    ]

    by_syn = tables.compound_rows(rows, level="nc", sort="-sim_syn")
    by_name = tables.compound_rows(rows, level="nc", condition="naturalistic", language="en")
    unknown = tables.compound_rows(rows, sort="__class__")

    assert [r["compound"] for r in by_syn] == ["olive oil", "guinea pig", "eager beaver"]
    assert [r["compound"] for r in tables.compound_rows(rows, level="nc", sort="sim_syn")][-1] == "eager beaver"
    assert [r["compound"] for r in by_name] == ["eager beaver", "guinea pig", "olive oil"]
    assert len(unknown) == 4
    cells = tables.compound_cells(by_syn)
    assert [c["text"] for c in cells[0][:7]] == [
        "olive oil",
        "en",
        "Naturalistic",
        "NC level",
        "Compositional",
        "4.600",
        "0.900",
    ]
    assert cells[2][6] == {"text": "–", "numeric": True}
    narrow = tables.compound_cells(by_syn, ["compound", "class", "sim_syn"])
    assert [[c["text"] for c in row] for row in narrow][0] == ["olive oil", "Compositional", "0.900"]
    assert tables.compound_filters(rows) == {
        "level": ["sentence", "nc"],
        "condition": ["naturalistic"],
        "language": ["en"],
    }


def test_figure_data_groups_values_by_probe_and_by_class():
    rows = [compound("olive oil", 4.6, 0.9, cls="compositional"), compound("eager beaver", 0.8, None)]
    rows.append(compound("brick wall", 4.4, 0.7, cls=None))

    data = figure_data.distribution_data(rows)
    (by_class,) = figure_data.class_data(rows)

    assert list(data) == ["nc"]
    assert list(data["nc"]) == ["P_Syn", "P_Comp", "P_WordsSyn", "P_Rand"]
    assert data["nc"]["P_Syn"] == {"EN-Nat": [0.9, None, 0.7]}
    assert by_class["label"] == "EN-Nat"
    assert list(by_class["data"]["A_Syn|Rand"]) == ["idiomatic", "compositional"]  # unclassified left out
    assert by_class["data"]["A_Syn|WordsSyn"]["idiomatic"] == [None]


def test_runs_side_by_side_line_up_their_means():
    first = [summary_row("sim_syn", 0.7), summary_row("sim_syn_std", 0.6)]
    second = [summary_row("sim_syn", 0.8), summary_row("sim_rand", 0.3)]

    (table,) = tables.comparison_tables({"#1 minilm": first, "#2 glove": second})
    (standardised,) = tables.comparison_tables({"#1 minilm": first, "#2 glove": second}, standardised=True)

    assert table["runs"] == ["#1 minilm", "#2 glove"]
    rows = table["sections"][0]["rows"]
    assert [(r["label"], r["group"]) for r in rows] == [("P_Syn", "EN-Nat"), ("P_Rand", "EN-Nat")]
    assert [c["mean"] if c else None for c in rows[0]["cells"]] == ["0.700", "0.800"]
    assert rows[1]["cells"][0] is None
    assert [r["label"] for r in standardised["sections"][0]["rows"]] == ["P_Syn (standardised)"]


def test_provenance_flattens_to_dotted_keys():
    provenance = {
        "release": {"version": "1.0.0", "checksum": "abc"},
        "config": {"layers": [-2, -1], "dtype": None},
        "workers": [{"host": "a", "shards": [0, 1]}],
        "empty": {},
    }

    assert tables.provenance_rows(provenance) == [
        ("release.version", "1.0.0"),
        ("release.checksum", "abc"),
        ("config.layers", "-2, -1"),
        ("config.dtype", "–"),
        ("workers", '[{"host": "a", "shards": [0, 1]}]'),
        ("empty", "–"),
    ]


@pytest.mark.parametrize(
    ("seconds", "text"), [(None, "–"), (-1, "–"), (42.4, "42 s"), (185, "3 min 05 s"), (7620, "2 h 07 min")]
)
def test_durations_read_in_seconds_minutes_or_hours(seconds, text):
    assert tables.format_duration(seconds) == text
