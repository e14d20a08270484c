"""benchmarks/table.py: the README's performance table comes from the benchmarks' JSON lines, never typed."""

import json

import pytest

from benchmarks.table import END, START, Figure, read_lines, replace_table, table

FIGURES = [
    Figure("scale", "report_1m_s", "campaign report at 1M ratings", "s", ("<", 30)),
    Figure("scale", "release_scaled.pairs", "pairs at 10×"),
    Figure("startup", "check_cpu_s", "manage.py check, CPU", "s", ("<", 1.0)),
]


def lines_of(*objects) -> str:
    return "\n".join(json.dumps(o) for o in objects)


def test_it_writes_each_figure_with_its_goal_commit_and_date():
    text = lines_of(
        {"benchmark": "scale", "commit": "abc1234", "date": "2026-11-27", "report_1m_s": 41.5,
         "release_scaled": {"pairs": 440630}},
        {"benchmark": "startup", "commit": "def5678", "date": "2026-11-26", "check_cpu_s": 0.71},
    )  # fmt: skip
    markdown = table(read_lines([("results.jsonl", text)]), FIGURES)
    rows = markdown.splitlines()
    assert rows[2] == "| campaign report at 1M ratings | 41.5 s | < 30 s | no | `scale.py` | abc1234 | 2026-11-27 |"
    assert rows[3] == "| pairs at 10× | 440,630 | — |  | `scale.py` | abc1234 | 2026-11-27 |"
    assert rows[4] == "| manage.py check, CPU | 0.71 s | < 1 s | yes | `startup.py` | def5678 | 2026-11-26 |"


def test_the_newest_line_with_the_figure_wins_and_a_missing_one_says_so():
    text = lines_of(
        {"benchmark": "scale", "commit": "old0000", "date": "2026-11-01", "report_1m_s": 50},
        {"benchmark": "scale", "commit": "new1111", "date": "2026-11-27", "report_1m_s": 12},
        {"benchmark": "scale", "commit": "new2222", "date": "2026-11-27", "export_10x_s": 3},
    )
    rows = table(read_lines([("r.jsonl", text)]), FIGURES).splitlines()
    assert "| 12 s | < 30 s | yes | `scale.py` | new1111 |" in rows[2]
    assert rows[4].startswith("| manage.py check, CPU | not measured |")


def test_a_step_stopped_at_its_limit_misses_its_goal():
    text = lines_of({"benchmark": "scale", "commit": "abc1234", "date": "2026-11-27", "report_1m_s": None})
    rows = table(read_lines([("r.jsonl", text)]), FIGURES).splitlines()
    assert "| no result (stopped at its limit or failed) | < 30 s | no |" in rows[2]


@pytest.mark.parametrize(
    "line",
    [
        {"benchmark": "scale", "date": "2026-11-27", "report_1m_s": 12},
        {"benchmark": "scale", "commit": "", "report_1m_s": 12},
    ],
)
def test_it_refuses_a_line_without_its_commit(line):
    with pytest.raises(ValueError, match="r.jsonl:2"):
        read_lines([("r.jsonl", lines_of({"benchmark": "x", "commit": "abc"}, line))])


def test_it_replaces_only_what_stands_between_the_markers():
    readme = f"# Title\n\nBefore.\n\n{START}\nold table\n{END}\n\nAfter.\n"
    assert replace_table(readme, "| new |") == f"# Title\n\nBefore.\n\n{START}\n| new |\n{END}\n\nAfter.\n"


@pytest.mark.parametrize("readme", ["no markers", f"{END}\n{START}\n", f"{START}\n{START}\n{END}\n"])
def test_it_refuses_a_readme_without_one_pair_of_markers(readme):
    with pytest.raises(ValueError, match="perf:start"):
        replace_table(readme, "| new |")


def test_a_line_without_a_name_belongs_to_its_file():
    lines = read_lines([("results/startup.jsonl", lines_of({"commit": "abc1234", "check_cpu_s": 0.5}))])
    assert lines[0]["benchmark"] == "startup"
    assert "| 0.5 s | < 1 s | yes | `startup.py` | abc1234 |" in table(lines, FIGURES)


def test_a_null_figure_shows_why_when_the_line_says():
    figure = Figure("scale", "report_1m_s", "report at 1M", "s", ("<", 30), "campaign.runs.-1.report_outcome")
    line = {"benchmark": "scale", "commit": "abc1234", "report_1m_s": None,
            "campaign": {"runs": [{"report_outcome": "done"}, {"report_outcome": "MemoryError: 24 GiB"}]}}  # fmt: skip
    rows = table(read_lines([("r.jsonl", lines_of(line))]), [figure]).splitlines()
    assert "| report at 1M | none: MemoryError: 24 GiB | < 30 s | no |" in rows[2]


def test_a_figure_with_a_scope_reads_only_the_lines_of_that_scope():
    figures = [
        Figure("probe_throughput", "warm_speedup", "warm, small", "×", (">=", 30), scope="first 60"),
        Figure("probe_throughput", "warm_speedup", "warm, full", "×", (">=", 30), scope="full release"),
    ]
    text = lines_of(
        {"benchmark": "probe_throughput", "commit": "aaa", "date": "d", "scope": "full release", "warm_speedup": 41},
        {"benchmark": "probe_throughput", "commit": "bbb", "date": "d", "scope": "first 60", "warm_speedup": 28},
    )
    rows = table(read_lines([("p.jsonl", text)]), figures).splitlines()
    assert rows[2].startswith("| warm, small | 28× | >= 30× | no |") and "bbb" in rows[2]
    assert rows[3].startswith("| warm, full | 41× | >= 30× | yes |") and "aaa" in rows[3]
