"""What writing a release's files costs, by format: the public NCIMP data (PT + EN neutral) as one snapshot.

    .venv/bin/python benchmarks/release_files.py [--repeat 3] [--baseline-tree DIR]

Measures ``releases.formats.build_files`` (every file of a release: what ``create_release`` and a DOI
entry build) and, inside it, each format's writer, as medians of ``--repeat`` runs in this process,
plus the files' sizes. ``--baseline-tree DIR`` runs the same measurement in a fresh process on another
checkout's code (e.g. ``git worktree add /tmp/base <commit>``), so the cost of new formats is read
against the code before them on the same machine and data. Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "ncimp"


def _median_seconds(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times), 3)


def measure(repeat: int) -> dict:
    """Timings of this tree's writers on the public data."""
    from datasets.formats.ncimp import parse_directory
    from releases.formats import ReleaseMeta, build_files, snapshot_from_records

    result = parse_directory(DATA / "PT", "pt")
    english = parse_directory(DATA / "EN", "en")
    for name in ("compounds", "sentences", "variants", "paraphrases"):
        getattr(result, name).extend(getattr(english, name))
    snapshot = snapshot_from_records(result).sorted()
    meta = ReleaseMeta(version="1.0.0", created="2026-11-27", code_version="bench")
    files = build_files(snapshot, meta)
    out = {
        "pairs": sum(len(s.variants) for c in snapshot.compounds for s in c.sentences),
        "files": len(files),
        "bytes": sum(len(data) for data in files.values()),
        "build_files_s": _median_seconds(lambda: build_files(snapshot, meta), repeat),
    }
    writers = _writers(snapshot, meta, files)
    out["by_writer_s"] = {name: _median_seconds(fn, repeat) for name, fn in writers.items()}
    out["bytes_by_group"] = _bytes_by_group(files)
    return out


def _writers(snapshot, meta, files) -> dict:
    """Each format's writer of this tree, by name (those the tree has)."""
    from releases.formats import tidy
    from releases.formats.card import build_readme
    from releases.formats.datapackage import build_datapackage
    from releases.formats.ncimp_writer import ncimp_files

    writers = {
        "ncimp": lambda: ncimp_files(snapshot),
        "tidy": lambda: tidy.tidy_files(snapshot),
        "card": lambda: build_readme(list(files), snapshot, meta),
        "datapackage": lambda: build_datapackage(files, snapshot, meta),
    }
    try:
        from releases.formats.croissant import build_croissant
        from releases.formats.deposit import deposit_files
        from releases.formats.hf import hf_data_files
    except ImportError:  # the baseline tree has none of them
        return writers
    writers["hf_parquet"] = lambda: hf_data_files(snapshot)
    writers["croissant"] = lambda: build_croissant(files, snapshot, meta)
    writers["deposit"] = lambda: deposit_files(snapshot, meta)
    return writers


def _bytes_by_group(files: dict[str, bytes]) -> dict[str, int]:
    groups: dict[str, int] = {}
    for path, data in files.items():
        group = path.split("/", 1)[0] if "/" in path else path
        groups[group] = groups.get(group, 0) + len(data)
    return dict(sorted(groups.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="Runs per measurement (the median is reported).")
    parser.add_argument("--baseline-tree", help="Another checkout to measure the same way, in a fresh process.")
    parser.add_argument("--json-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    report = {"this_tree": measure(args.repeat)}
    if args.baseline_tree:
        env = {**os.environ, "PYTHONPATH": args.baseline_tree}
        code = (
            "import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]);"
            "import release_files as bench; print(json.dumps(bench.measure(int(sys.argv[3]))))"
        )
        done = subprocess.run(
            [sys.executable, "-c", code, args.baseline_tree, str(ROOT / "benchmarks"), str(args.repeat)],
            cwd=args.baseline_tree,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        report["baseline_tree"] = json.loads(done.stdout.strip().splitlines()[-1])
        report["build_files_over_baseline"] = round(
            report["this_tree"]["build_files_s"] / report["baseline_tree"]["build_files_s"], 2
        )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
