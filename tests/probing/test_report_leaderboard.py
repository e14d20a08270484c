"""The leaderboard: runs against measures in one chosen cell, ranked by any column, missing values last."""

from __future__ import annotations

from probing.report import leaderboard


def rho(measure: str, value, n: int = 30, p: float = 0.001, **cell) -> dict:
    row = {"language": "en", "level": "nc", "condition": "naturalistic", "subset": "all", "measure": measure}
    return row | {"rho": value, "p": p, "n": n} | cell


def run(pk: int, *rows) -> dict:
    return {"id": pk, "model": f"model-{pk}", "correlations": list(rows)}


RUNS = [
    run(1, rho("sim_syn", 0.30), rho("sim_rand", 0.05, p=0.7)),
    run(2, rho("sim_syn", 0.62), rho("sim_rand", -0.10, p=0.4), rho("sim_syn", 0.9, level="sentence")),
    run(3, rho("sim_rand", 0.20, p=0.2)),  # no P_Syn in this cell: ranked last
    run(4, rho("sim_syn", 0.50, language="pt")),  # another language only
]


def test_runs_rank_by_the_chosen_measure_with_missing_values_last():
    chosen = leaderboard.selection(RUNS, {})

    table = leaderboard.board(RUNS, chosen)

    assert chosen == {"language": "en", "level": "nc", "condition": "naturalistic", "subset": "all"}
    assert [row["run"]["id"] for row in table["rows"]] == [2, 1, 3]
    assert [row["rank"] for row in table["rows"]] == [1, 2, None]
    assert table["columns"][0] == {"key": "sim_syn", "label": "P_Syn", "sorted": "descending"}
    first = table["rows"][0]["cells"]
    assert first[0]["text"] == "0.62" and first[0]["mark"] == "strong" and first[0]["n"] == "30"
    assert first[3]["text"] == "-0.10" and first[3]["mark"] == ""  # p > 0.05: shown on a board, unmarked
    assert first[1] is None  # P_Comp was not measured


def test_any_column_sorts_either_way_and_the_cell_is_chosen_from_what_exists():
    by_random = leaderboard.board(RUNS, leaderboard.selection(RUNS, {}), sort="sim_rand", descending=False)
    assert [row["run"]["id"] for row in by_random["rows"]] == [2, 1, 3]
    assert by_random["columns"][3]["sorted"] == "ascending"

    portuguese = leaderboard.selection(RUNS, {"language": "pt", "level": "nowhere"})
    assert portuguese["language"] == "pt" and portuguese["level"] == "nc"
    assert [row["run"]["id"] for row in leaderboard.board(RUNS, portuguese)["rows"]] == [4]
    sentence = leaderboard.board(RUNS, {**leaderboard.selection(RUNS, {}), "level": "sentence"})
    assert [row["run"]["id"] for row in sentence["rows"]] == [2]
    assert leaderboard.choices(RUNS)["level"] == ["sentence", "nc"]


def test_standardised_columns_and_an_unknown_sort_fall_back():
    table = leaderboard.board(RUNS, leaderboard.selection(RUNS, {}), standardised=True, sort="os.system")
    assert table["sort"] == "sim_syn_std" and table["columns"][0]["label"] == "P_Syn (standardised)"
    assert table["rows"] == []
    assert leaderboard.board([], leaderboard.selection([], {}))["rows"] == []
