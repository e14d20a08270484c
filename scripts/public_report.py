#!/usr/bin/env python3
"""The probe report of the full public release, as a fingerprint: to show that a change moved no number.

    .venv/bin/python scripts/public_report.py [--data ../shared/data] [--out report.json]

A throwaway database (DATABASE_URL's server, as a test database dropped at the end; else SQLite
in a scratch folder) receives the public NCIMP Portuguese folder (with the human scores beside it)
and the English one, published as release 1.0.0; ``run_probes --release 1.0.0 --model minilm
--inline`` measures it, as a user would. The report is written with sorted keys, less what
changes from run to run whatever the code (the run's id and times, the worker's host, the code
version, timings); the last line printed is its sha256. Two commits that print the same digest
computed the same report, byte for byte.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
# What differs between two runs of the same code on the same data: not the numbers.
VOLATILE = {"run", "provenance", "timings", "seconds", "started_at", "finished_at", "created_at", "duration_s"}


def stable(value):
    """The report without its volatile keys, at any depth."""
    if isinstance(value, dict):
        return {key: stable(item) for key, item in value.items() if key not in VOLATILE}
    if isinstance(value, list):
        return [stable(item) for item in value]
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=Path("public-report.json"))
    args = parser.parse_args()

    os.environ["WORKBENCH_VAR_DIR"] = tempfile.mkdtemp(prefix="workbench-report-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    names = setup_databases(verbosity=0, interactive=False) if connection.vendor == "postgresql" else None
    if names is None:
        call_command("migrate", verbosity=0)
    try:
        quiet = StringIO()
        call_command("import_ncimp", str(args.data / "ncimp" / "PT"), "--language", "pt", stdout=quiet)
        call_command("import_ncimp", str(args.data / "ncimp" / "EN"), "--language", "en", stdout=quiet)
        from releases.actions import create_release

        create_release("1.0.0", languages=["pt", "en"], publish=True)
        out = StringIO()
        call_command("run_probes", "--release", "1.0.0", "--model", "minilm", "--inline", stdout=out, stderr=quiet)
        from probing.models import ProbeRun

        run = ProbeRun.objects.get(pk=int(out.getvalue().strip().split()[-1]))
        if run.status != ProbeRun.Status.DONE:
            raise SystemExit(f"run {run.pk} {run.status}: {run.error}")
        text = json.dumps(stable(run.report), sort_keys=True, ensure_ascii=False, indent=1)
        args.out.write_text(text + "\n", encoding="utf-8")
        print(f"{args.out}: {len(text)} characters")
        print(hashlib.sha256((text + "\n").encode()).hexdigest())
    finally:
        if names is not None:
            teardown_databases(names, verbosity=0)


if __name__ == "__main__":
    main()
