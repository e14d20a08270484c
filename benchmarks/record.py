"""The last line every benchmark prints: its figures as one JSON object with the commit measured (pure: no Django).

``emit(name, figures)`` prints that line and, with ``save=True``, appends it to
``benchmarks/results/<name>.jsonl``, from which ``benchmarks/table.py`` writes the README's
performance table: a figure in the table is always one a benchmark printed, never one typed.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"


def commit() -> str:
    """The checkout's short commit hash, with "-dirty" when tracked files differ from it (figures of unsaved code).

    The saved results themselves (``benchmarks/results/``) do not count: a run of several
    benchmarks saves a line after each, and the next one measures the same code.
    """

    def git(*args: str) -> subprocess.CompletedProcess:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30, check=False)
        except OSError:  # no git on the machine (a bare GPU host): see below
            return subprocess.CompletedProcess(args, 1, "", "")

    head = git("rev-parse", "--short", "HEAD").stdout.strip()
    if not head:  # no git there (a copy of the checkout on a GPU host): the commit it was copied from, if given
        return os.environ.get("BENCHMARK_COMMIT") or "unknown"
    dirty = git(
        "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)benchmarks/results"
    ).stdout.strip()
    return f"{head}-dirty" if dirty else head


def machine() -> dict:
    """The CPU a figure was measured on: ratios of two engines moved between runs on different hosts of one pool."""
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "")
    except OSError:
        pass
    return {"cpu": model or platform.processor() or platform.machine(), "cores": os.cpu_count()}


def save_flag(parser) -> None:
    """Add ``--save`` to a benchmark's argument parser."""
    parser.add_argument(
        "--save", action="store_true", help="Also append the JSON line to benchmarks/results/<benchmark>.jsonl."
    )


def emit(name: str, figures: dict, save: bool = False, measured: str | None = None) -> dict:
    """Print ``figures`` with the benchmark's name, the commit and the UTC date as one JSON line; append it if ``save``.

    ``measured``: the commit taken when a long benchmark started (the code it ran), else the one now.
    """
    line = {"benchmark": name, "commit": measured or commit(), "date": time.strftime("%Y-%m-%d", time.gmtime())}
    line["machine"] = machine()  # which host of the pool: engines compare differently on different CPUs
    line.update(figures)
    text = json.dumps(line)
    print(text, flush=True)
    if save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        with (RESULTS / f"{name}.jsonl").open("a", encoding="utf-8") as out:
            out.write(text + "\n")
    return line


if __name__ == "__main__":
    sys.exit(print(commit()))
