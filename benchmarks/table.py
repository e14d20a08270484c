"""The README's performance table, written from the JSON lines the benchmarks printed (pure: no Django).

Usage: .venv/bin/python benchmarks/table.py [FILE.jsonl ...] [--readme README.md] [--check]

Each benchmark's last line is one JSON object with its figures, the commit and the date
(``benchmarks/record.py``; ``--save`` appends it to ``benchmarks/results/<benchmark>.jsonl``).
This reads those lines (by default every ``benchmarks/results/*.jsonl``), keeps for each figure
of ``FIGURES`` the newest line that has it, and replaces what stands between
``<!-- perf:start -->`` and ``<!-- perf:end -->`` in the README with a table: figure, value,
goal, whether it is met, commit, date. A line without a commit is refused: a number nobody can
trace to the code it measured does not go in. ``--check`` writes nothing and fails when the
README's table differs from the one the lines give (for CI).
"""

from __future__ import annotations

import argparse
import json
import operator
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- perf:start -->", "<!-- perf:end -->"
OPERATORS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


@dataclass(frozen=True)
class Figure:
    """One row: a figure of a benchmark's JSON line (a dotted key reaches into nested objects) and its goal."""

    benchmark: str
    key: str
    label: str
    unit: str = ""
    goal: tuple[str, float] | None = None  # (operator, threshold), e.g. ("<", 30.0)
    why_none: str = ""  # a key saying why the figure is null (a step stopped or failed), shown in its place
    scope: str = ""  # only lines of this ``scope`` (a benchmark run at several sizes prints which)


SMALL, FULL = "first 60 compounds per language", "full release"
# As docs/deployment.md runs it: four workers and the shared Redis cache (CACHE_URL).
THINK = "100 annotators, think 2 s, 4 workers, Redis cache"
HAMMER = "50 annotators, think 0 s, 4 workers, Redis cache"
FIGURES = [
    Figure("startup", "check_cpu_s", "`manage.py check`, CPU", "s", ("<", 1.0)),
    Figure("startup", "help_cpu_s", "`manage.py help run_probes`, CPU", "s", ("<", 1.0)),
    Figure("startup", "worker_ready_s", "Celery worker until ready, wall", "s"),
    Figure("startup", "worker_ready_cpu_s", "Celery worker until ready, CPU", "s", ("<", 1.0)),
]
# The probe run's goals, at both sizes: (key, label, unit, goal).
PROBE_GOALS = [
    ("cold_s", "probe run, cold cache", "s", None),
    ("fraction_of_limit", "cold run / bare fp32 forward", "", (">=", 0.9)),
    ("vs_st_encode", "cold run vs `SentenceTransformer.encode`", "×", (">", 1.0)),
    ("warm_speedup", "warm over cold, same process", "×", (">=", 30)),
    ("fresh_warm_speedup", "warm in a new process over cold", "×", (">=", 25)),
    ("sweep_ratio", "layer sweep over cold run", "×", ("<=", 1.3)),
    ("fast_vs_limit", "onnx engine cold run over bare fp32 forward", "×", (">=", 1.3)),
    ("fast_vs_st_onnx", "onnx engine cold run vs ST onnx encode", "×", (">", 1.0)),
]
for _scope, _name in ((SMALL, "2,925 pairs"), (FULL, "public release, 10,244 pairs")):
    FIGURES += [
        Figure("probe_throughput", key, f"{label} ({_name})", unit, goal, scope=_scope)
        for key, label, unit, goal in PROBE_GOALS
    ]
FIGURES += [
    Figure(
        "probe_throughput",
        "fast_equal_max_abs",
        "onnx engine vs eager fp32, max abs over the run's vectors",
        "",
        ("<=", 1e-5),
    ),
    Figure(
        "annotation_load",
        "server_cpu_ms_per_cycle",
        "annotation: server CPU per submit-and-next",
        "ms",
        ("<=", 12),
        scope=THINK,
    ),
    Figure(
        "annotation_load",
        "p95_ms",
        "annotation: p95 of submit-and-next, 100 annotators, 2 s think",
        "ms",
        ("<=", 150),
        scope=THINK,
    ),
    Figure(
        "annotation_load",
        "ratings_per_s",
        "annotation: cycles/s with no think time, 4 workers",
        "/s",
        (">=", 100),
        scope=HAMMER,
    ),
    Figure(
        "likelihood_throughput",
        "tiny-llama.fraction_of_limit",
        "likelihood scorer vs bare forward, tiny LLaMA (23,345 texts)",
        "",
        (">=", 0.9),
    ),
    Figure(
        "likelihood_throughput",
        "llama-6l.fraction_of_limit",
        "likelihood scorer vs bare forward, 6-layer LLaMA (23,345 texts)",
        "",
        (">=", 0.9),
    ),
    Figure(
        "likelihood_runs",
        "tiny-llama.fraction_of_limit",
        "likelihood run (`run_probes`) vs bare forward, tiny LLaMA",
        "",
        (">=", 0.9),
        scope=FULL,
    ),
    Figure(
        "likelihood_runs",
        "llama-6l.fraction_of_limit",
        "likelihood run (`run_probes`) vs bare forward, 6-layer LLaMA",
        "",
        (">=", 0.9),
        scope=FULL,
    ),
    Figure(
        "likelihood_runs",
        "llama-6l.fresh_warm_speedup",
        "likelihood run warm in a new process over cold, 6-layer LLaMA",
        "×",
        (">=", 25),
        scope=FULL,
    ),
    Figure(
        "shared_pass",
        "llama-6l.speedup",
        "both families in one run (shared pass) over two runs apart, 6-layer LLaMA",
        "×",
        scope=FULL,
    ),
    Figure("scale", "s_per_text_1x", "probe run per text, 1× release", "s"),
    Figure("scale", "s_per_text_10x", "probe run per text, 10× release", "s"),
    Figure("scale", "per_text_growth", "per-text cost growth, 1× → 10×", "", ("<=", 0.10)),
    Figure("scale", "probe_peak_rss_mb", "probe run peak RSS, 10× release", "MB", ("<", 3000)),
    Figure("scale", "probe_peak_rss_1x_mb", "probe run peak RSS, 1× release", "MB"),
    Figure("scale", "probe_scaled.cache_mb", "probe run's vector cache, 10× release", "MB"),
    Figure(
        "scale",
        "report_1m_s",
        "campaign report (bootstrap) at 1M ratings",
        "s",
        ("<", 30),
        "campaign.runs.-1.report_outcome",
    ),
    Figure(
        "scale",
        "agreement_1m_s",
        "agreement with bootstrap at 1M ratings",
        "s",
        ("<", 30),
        "campaign.runs.-1.agreement_outcome",
    ),
    Figure("scale", "export_10x_s", "release export, 10× release", "s"),
    Figure("scale", "release_scaled.create_s", "release build (`create_release`), 10× release", "s"),
]
# Machine annotators (issue 31): the default run of benchmarks/machine_annotators.py.
MACHINE = "100 items at concurrency 8; report of 10,000 human and 10,000 machine ratings"
FIGURES += [
    Figure(
        "machine_annotators",
        "platform_cpu_ms_per_item",
        "machine annotators: platform CPU per item beyond a bare client (warm job, 8 in flight)",
        "ms",
        ("<=", 5),
        scope=MACHINE,
    ),
    Figure(
        "machine_annotators",
        "answering.command_platform_cpu_ms_per_item",
        "machine annotators: the same in a fresh `annotate_with_model --inline` (start-up included)",
        "ms",
        scope=MACHINE,
    ),
    Figure(
        "machine_annotators",
        "items_per_s_ratio",
        "machine annotators: items/s of the job over the bare client's",
        "",
        scope=MACHINE,
    ),
    Figure(
        "machine_annotators",
        "answering.cached.items_per_s",
        "machine annotators: items/s with every answer in the response cache",
        "/s",
        scope=MACHINE,
    ),
    Figure(
        "machine_annotators",
        "report_with_machine_s",
        "campaign report, 10,000 human + 10,000 machine ratings",
        "s",
        ("<", 2.0),
        scope=MACHINE,
    ),
    Figure(
        "machine_annotators",
        "report.baseline_s",
        "campaign report, the same 10,000 human ratings alone",
        "s",
        scope=MACHINE,
    ),
]
# Adaptive allocation (issue 32): benchmarks/adaptive_allocation.py, its default run (20 seeds, 10% careless).
FIGURES += [
    Figure(
        "adaptive_allocation",
        f"saving_{language}",
        f"adaptive allocation: ratings saved at fixed N = 10's error, NCTTI {name} (simulated crowds, median of 20)",
        "",
        (">=", 0.3),
    )
    for language, name in (("en", "English"), ("pt", "Portuguese"))
]


def read_lines(texts: Iterable[tuple[str, str]]) -> list[dict]:
    """The JSON objects of (file name, text) pairs, one per non-empty line, in order; a line without a commit is refused.

    A line without a ``benchmark`` key belongs to the benchmark its file is named after
    (``results/probe_throughput.jsonl``).
    """
    lines = []
    for name, text in texts:
        for number, raw in enumerate(text.splitlines(), 1):
            if not raw.strip():
                continue
            line = json.loads(raw)
            if not isinstance(line, dict) or not line.get("commit"):
                raise ValueError(f"{name}:{number}: a benchmark line needs its commit: {raw[:120]}")
            # probe_throughput.py and annotation_load.py print no name: their file's name says it
            lines.append({"benchmark": Path(name).stem, **line})
    return lines


def lookup(line: dict, key: str):
    """``line``'s value at a dotted ``key`` (a number indexes a list: ``runs.-1``), or None."""
    value = line
    for part in key.split("."):
        if isinstance(value, list) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def _number(value, unit: str) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    text = f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    return f"{text} {unit}".strip() if unit not in ("×",) else f"{text}×"


def _goal(figure: Figure) -> str:
    if figure.goal is None:
        return "—"
    op, threshold = figure.goal
    return f"{op} {_number(threshold, figure.unit)}"


def _met(figure: Figure, value) -> str:
    if figure.goal is None:
        return ""
    if value is None:  # measured without a number: a step stopped at its time limit or failed (out of memory)
        return "no"
    op, threshold = figure.goal
    return "yes" if OPERATORS[op](value, threshold) else "no"


def table(lines: list[dict], figures: list[Figure] = FIGURES) -> str:
    """The markdown table of ``figures`` from the newest line of each benchmark that has the figure."""
    rows = [
        "| figure | value | goal | met | benchmark | commit | date |",
        "|---|---|---|---|---|---|---|",
    ]
    for figure in figures:
        newest = next(
            (
                line
                for line in reversed(lines)
                if line["benchmark"] == figure.benchmark
                and figure.key in _keys(line)
                and (not figure.scope or line.get("scope") == figure.scope)
            ),
            None,
        )
        if newest is None:
            rows.append(f"| {figure.label} | not measured | {_goal(figure)} |  | `{figure.benchmark}.py` |  |  |")
            continue
        value = lookup(newest, figure.key)
        shown = _number(value, figure.unit)
        if value is None:
            why = lookup(newest, figure.why_none) if figure.why_none else None
            why = re.sub(r"^[\w.]*\.(\w+Error)", r"\1", str(why)) if why else ""  # numpy._core…MemoryError
            shown = f"none: {why[:100]}" if why else "no result (stopped at its limit or failed)"
        rows.append(
            f"| {figure.label} | {shown} | {_goal(figure)} | {_met(figure, value)} | `{figure.benchmark}.py` "
            f"| {newest['commit']} | {newest.get('date', '')} |"
        )
    return "\n".join(rows)


def _keys(line: dict) -> set[str]:
    """Every dotted key of ``line``."""
    keys: set[str] = set()
    for key, value in line.items():
        keys.add(key)
        if isinstance(value, dict):
            keys |= {f"{key}.{inner}" for inner in _keys(value)}
    return keys


def replace_table(readme: str, markdown: str) -> str:
    """``readme`` with what stands between the markers replaced by ``markdown``; refuses a README without them."""
    if readme.count(START) != 1 or readme.count(END) != 1 or readme.index(START) > readme.index(END):
        raise ValueError(f"the README needs one {START} line and, after it, one {END} line")
    head, rest = readme.split(START)
    _, tail = rest.split(END)
    return f"{head}{START}\n{markdown}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path, help="JSON-lines files (default: benchmarks/results/*.jsonl).")
    parser.add_argument("--readme", type=Path, default=ROOT / "README.md")
    parser.add_argument("--check", action="store_true", help="Fail if the README's table is not the one given.")
    args = parser.parse_args(argv)
    files = args.files or sorted((ROOT / "benchmarks" / "results").glob("*.jsonl"))
    lines = read_lines((str(path), path.read_text(encoding="utf-8")) for path in files)
    lines.sort(key=lambda line: line.get("date", ""))  # stable: within a date, the order the files gave
    old = args.readme.read_text(encoding="utf-8")
    new = replace_table(old, table(lines))
    if args.check:
        if new != old:
            print(f"{args.readme}: the performance table is not the one benchmarks/results gives; run {__file__}")
            return 1
        return 0
    args.readme.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
