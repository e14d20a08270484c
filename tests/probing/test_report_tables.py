"""Shaping a probe report into the report pages' tables: partial reports, missing values, the papers' order."""

from __future__ import annotations

import pytest

from probing import report_tables as tables


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


def test_the_summary_puts_standardised_values_beside_raw_ones_in_the_papers_order():
    rows = [
        summary_row("scaled_syn", 0.2),
        summary_row("sim_syn_std", 0.6),
        summary_row("sim_syn", 0.7),
        summary_row("sim_syn", 0.8, condition="neutral"),
        summary_row("sim_syn", 0.9, level="sentence", language="pt"),
    ]

    nc, sentence = sorted(tables.summary_tables(rows), key=lambda t: t["level"])

    assert [t["level"] for t in tables.summary_tables(rows)] == ["sentence", "nc"]
    assert nc["groups"] == ["EN-Nat", "EN-Neut"]
    assert nc["has_standardised"] and nc["width"] == 9
    assert [s["title"] for s in nc["sections"]] == ["Similarity (tables 10 and 11)", "Scaled similarity (table 13)"]
    syn = nc["sections"][0]["rows"][0]
    assert syn["label"] == "P_Syn"
    assert syn["cells"][0]["raw"]["mean"] == 0.7 and syn["cells"][0]["standardised"]["mean"] == 0.6
    assert syn["cells"][1]["standardised"] is None
    assert sentence["groups"] == ["PT-Nat"] and not sentence["has_standardised"]


def test_an_empty_or_partial_report_gives_empty_tables():
    assert tables.summary_tables([]) == []
    assert tables.correlation_tables([]) == []
    assert tables.compound_rows([]) == []
    assert tables.distribution_data([]) == {}
    assert tables.class_data([]) == []
    assert tables.comparison_tables({}) == []
    only_missing = tables.summary_tables([summary_row("sim_syn", None)])
    assert only_missing[0]["sections"][0]["rows"][0]["cells"][0]["raw"]["mean"] is None


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

    assert table["subsets"] == [("all", "All"), ("idiomatic", "Idiomatic"), ("no_overlap", "No lexical overlap")]
    assert table["has_standardised"] and table["has_bh"] and table["width"] == 7
    assert [s["measure"] for s in table["sections"]] == ["sim_syn", "sim_rand"]
    syn = table["sections"][0]["rows"][0]["cells"]
    assert syn[0]["raw"]["shown"] and syn[0]["raw"]["p"] == "0.001" and syn[0]["raw"]["p_bh"] == "0.004"
    assert syn[0]["standardised"]["rho"] == 0.58
    assert syn[1]["raw"]["shown"] and syn[1]["standardised"] is None
    assert not syn[2]["raw"]["shown"]  # rho None: nothing to show, even with all
    assert not table["sections"][1]["rows"][0]["cells"][0]["raw"]["shown"]
    assert shown["sections"][1]["rows"][0]["cells"][0]["raw"]["shown"]
    assert not shown["sections"][0]["rows"][0]["cells"][2]["raw"]["shown"]


@pytest.mark.parametrize(("p", "text"), [(None, "–"), (0.0004, "<0.001"), (0.0123, "0.012"), (float("nan"), "–")])
def test_p_values_print_like_the_papers(p, text):
    assert tables.format_p(p) == text


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
    assert [c["value"] for c in cells[0][:6]] == ["olive oil", "en", "naturalistic", "nc", "Compositional", 4.6]
    assert cells[2][6] == {"value": None, "numeric": True}
    assert tables.compound_filters(rows) == {
        "level": ["sentence", "nc"],
        "condition": ["naturalistic"],
        "language": ["en"],
    }


def test_figure_data_groups_values_by_probe_and_by_class():
    rows = [compound("olive oil", 4.6, 0.9, cls="compositional"), compound("eager beaver", 0.8, None)]
    rows.append(compound("brick wall", 4.4, 0.7, cls=None))

    data = tables.distribution_data(rows)
    (by_class,) = tables.class_data(rows)

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
    assert [c["mean"] if c else None for c in rows[0]["cells"]] == [0.7, 0.8]
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


def test_plain_tables_keep_the_chosen_columns_first_and_hide_non_significant_rows():
    rows = [
        {"rho": 0.5, "p": 0.01, "language": "en", "significant": True},
        {"rho": 0.1, "p": 0.6, "language": "pt", "significant": False},
    ]

    shown = tables.plain_table(tables.significant_only(rows), first=["language", "measure"])

    assert shown["columns"] == ["language", "rho", "p", "significant"]
    assert shown["rows"] == [
        [
            {"value": "en", "numeric": False},
            {"value": 0.5, "numeric": True},
            {"value": 0.01, "numeric": True},
            {"value": True, "numeric": False},
        ]
    ]
    assert len(tables.significant_only(rows, show_all=True)) == 2


@pytest.mark.parametrize(
    ("seconds", "text"), [(None, "–"), (-1, "–"), (42.4, "42 s"), (185, "3 min 05 s"), (7620, "2 h 07 min")]
)
def test_durations_read_in_seconds_minutes_or_hours(seconds, text):
    assert tables.format_duration(seconds) == text
