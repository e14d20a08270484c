"""How long a process takes to start, as users start them: a command, a command's help, a Celery worker.

Usage: .venv/bin/python benchmarks/startup.py [--repeat 5] [--baseline REF]

Each is a fresh interpreter, started as a user starts it:

- ``manage.py check`` (every command pays this start: settings, apps, models, URL conf, checks);
- ``manage.py help run_probes`` (a command's parser);
- ``celery -A config worker --pool solo`` until it logs ``ready`` (what a worker costs after a
  deploy before its first task), then stopped.

For each: the median of ``--repeat`` runs of the wall time and of the CPU seconds the process used
(user + system; the worker's read from /proc when it is ready). Goal: under 1.0 s of CPU each.
``--baseline REF`` measures a checkout of REF (a git worktree in a scratch folder, with this
``.venv``) in the same run, interleaved, so that the machine's load falls on both alike. The
broker is ``REDIS_URL`` (run under ``scripts/services.py``). The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = ROOT / ".venv" / "bin" / "python"
CLOCK = os.sysconf("SC_CLK_TCK")
sys.path.insert(0, str(ROOT))
from benchmarks.record import emit, save_flag  # noqa: E402


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def command(tree: Path, *args: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``manage.py ARGS`` in ``tree``."""
    cpu, started = _children_cpu(), time.perf_counter()
    subprocess.run([str(PYTHON), "manage.py", *args], cwd=tree, check=True, capture_output=True, timeout=300)
    return time.perf_counter() - started, _children_cpu() - cpu


def worker(tree: Path) -> tuple[float, float]:
    """Wall seconds until a Celery worker logs that it is ready, and the CPU seconds it used until then."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [str(PYTHON), "-m", "celery", "-A", "config", "worker", "--pool", "solo", "-l", "info", "--without-heartbeat",
         "--without-mingle", "--without-gossip", "-Q", "startup-benchmark", "-n", f"startup-{os.getpid()}@%h"],
        cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        for line in process.stderr:  # Celery logs to stderr
            if " ready." in line:
                wall = time.perf_counter() - started
                fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
                return wall, (int(fields[11]) + int(fields[12])) / CLOCK  # utime, stime
        raise SystemExit(f"the worker in {tree} exited before it was ready")
    finally:
        process.terminate()
        process.wait(timeout=30)


MEASURES = {
    "check": lambda tree: command(tree, "check"),
    "help": lambda tree: command(tree, "help", "run_probes"),
    "worker_ready": worker,
}


def baseline_tree(ref: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="startup-baseline-")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(folder), ref], cwd=ROOT, check=True, capture_output=True)
    (folder / ".venv").symlink_to(ROOT / ".venv")
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each measure (the median is printed)")
    parser.add_argument("--baseline", help="a git ref measured in the same run, interleaved (e.g. HEAD~3)")
    save_flag(parser)
    args = parser.parse_args()
    trees = {"now": ROOT}
    if args.baseline:
        trees["baseline"] = baseline_tree(args.baseline)
    samples: dict[str, dict[str, list[tuple[float, float]]]] = {name: {m: [] for m in MEASURES} for name in trees}
    try:
        for tree in trees.values():  # one run each first: bytecode compiled, files in the page cache
            command(tree, "check")
        for _ in range(args.repeat):
            for measure, run in MEASURES.items():
                for name, tree in trees.items():
                    samples[name][measure].append(run(tree))
    finally:
        if "baseline" in trees:
            subprocess.run(["git", "worktree", "remove", "--force", str(trees["baseline"])], cwd=ROOT, check=False)
    result: dict = {"repeat": args.repeat, "baseline": args.baseline}
    for name, by_measure in samples.items():
        prefix = "" if name == "now" else "baseline_"
        print(f"\n{name} ({trees[name]}): median of {args.repeat}, wall and CPU seconds")
        for measure, runs in by_measure.items():
            wall = statistics.median(w for w, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            print(f"  {measure:<14} {wall:7.2f} s wall {cpu:7.2f} s CPU")
            if measure == "worker_ready":
                result[f"{prefix}worker_ready_s"] = round(wall, 2)
                result[f"{prefix}worker_ready_cpu_s"] = round(cpu, 2)
            else:
                result[f"{prefix}{measure}_cpu_s"] = round(cpu, 2)
                result[f"{prefix}{measure}_wall_s"] = round(wall, 2)
    result["goal_met"] = all(result[k] < 1.0 for k in ("check_cpu_s", "help_cpu_s", "worker_ready_cpu_s"))
    result["load_average"] = os.getloadavg()[0]
    emit("startup", result, save=args.save)  # with the commit and date


if __name__ == "__main__":
    sys.exit(main())
