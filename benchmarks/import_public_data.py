"""Time the importers on the public data: rows per second, first import and re-import.

Usage: .venv/bin/python benchmarks/import_public_data.py [PATH/TO/shared/data]
Uses DATABASE_URL if set (e.g. PostgreSQL), else a throwaway SQLite file; never your var/ database.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    data = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT.parent / "shared" / "data").resolve()
    scratch = tempfile.mkdtemp(prefix="workbench-bench-")
    os.environ["WORKBENCH_VAR_DIR"] = scratch
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    if connection.vendor == "postgresql":
        from django.test.utils import setup_databases, teardown_databases

        old = setup_databases(verbosity=0, interactive=False)
    else:
        old = None
        call_command("migrate", verbosity=0)
    jobs = [
        ("import_nctti", [str(data / "nctti")]),
        ("import_ncs", [str(data / "ncs")]),
        ("import_ncimp", [str(data / "ncimp" / "PT"), "--language", "pt"]),
        ("import_ncimp", [str(data / "ncimp" / "EN"), "--language", "en"]),
    ]
    print(f"database: {connection.vendor}")
    for label in ("first import", "re-import"):
        for command, args in jobs:
            out = StringIO()
            started = time.perf_counter()
            call_command(command, *args, "--json", stdout=out)
            seconds = time.perf_counter() - started
            summary = json.loads(out.getvalue())
            rows = sum(sum(summary[k].values()) for k in ("compounds", "sentences", "paraphrases", "variants"))
            print(
                f"{label:<13} {command:<13} {' '.join(args[1:]) or '':<13} {seconds:6.2f} s  "
                f"{rows:>6} records  {rows / seconds:8.0f} records/s"
            )
    if old is not None:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
