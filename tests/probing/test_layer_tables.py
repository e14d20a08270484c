"""A layer sweep's report as tables (layers down, measures across) and as curves of ρ against the layer."""

from __future__ import annotations

import pytest

from probing.report.layer_tables import layer_curves, layer_tables
from tests.probing.report_factories import layers_report


@pytest.mark.usefixtures("p_for_five_compounds")
def test_each_level_and_group_gets_a_row_per_layer_and_a_column_per_measure():
    layers = layers_report(3)

    sentence, nc = layer_tables(layers)

    assert (sentence["level"], nc["level"]) == ("sentence", "nc")
    assert [g["label"] for g in nc["groups"]] == ["EN-Nat", "EN-Neut"]
    group = nc["groups"][0]
    assert group["measures"][:4] == ["P_Syn", "P_Comp", "P_WordsSyn", "P_Rand"] and len(group["measures"]) == 8
    assert [row["layer"] for row in group["rows"]] == ["0", "1", "2"]
    # The factory moves P_Syn up by 0.01 a layer; its ρ with the human scores stays 1.
    assert [row["mean"][0] for row in group["rows"]] == ["0.698", "0.708", "0.718"]
    assert {row["rho"][0]["text"] for row in group["rows"]} == {"1.00"}
    assert group["rows"][0]["rho"][3]["text"] == "–"  # P_Rand: p > 0.05
    assert layer_tables(None) == [] and layer_tables({}) == []


@pytest.mark.usefixtures("p_for_five_compounds")
def test_curves_give_rho_per_layer_with_its_significance():
    curves = layer_curves(layers_report(3), "nc")

    assert list(curves)[:2] == ["P_Syn", "P_Comp"]
    assert curves["P_Syn"]["EN-Nat"] == [(0, 1.0, True), (1, 1.0, True), (2, 1.0, True)]
    assert all(not significant for _, _, significant in curves["P_Rand"]["EN-Nat"])
    assert layer_curves(None, "nc") == {}
