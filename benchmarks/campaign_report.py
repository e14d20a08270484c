"""Time the campaign report as a curator gets it: ratings read from the database, every table, the PolicyRun saved.

Usage: .venv/bin/python benchmarks/campaign_report.py [--repeat 5]
Uses DATABASE_URL if set (e.g. PostgreSQL; a throwaway test database is made from it), else a throwaway
SQLite file; never your var/ database. It loads the demo, opens the demo campaigns and stores simulated
ratings (as ``make demo`` does), then times ``campaign_report`` under each saved filter policy, as the
campaign report page and ``campaign_report`` command call it. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.record import emit, save_flag  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed reports per policy (median is printed)")
    save_flag(parser)
    args = parser.parse_args()
    os.environ["WORKBENCH_VAR_DIR"] = tempfile.mkdtemp(prefix="workbench-bench-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    from annotation.models import Campaign, FilterPolicy, Rating
    from annotation.reports.build import campaign_report

    old = setup_databases(verbosity=0, interactive=False)
    try:
        for command, *rest in (
            ("load_demo",),
            ("create_demo_campaigns",),
            ("simulate_ratings", "demo-token", "demo-type"),
        ):
            call_command(command, *rest, stdout=StringIO())
        figures = {"database": connection.vendor}
        for slug in ("demo-token", "demo-type"):
            campaign = Campaign.objects.get(slug=slug)
            ratings = Rating.objects.filter(item__campaign=campaign).count()
            for policy in FilterPolicy.objects.order_by("name"):
                seconds = []
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    campaign_report(campaign, policy)
                    seconds.append(time.perf_counter() - started)
                median = statistics.median(seconds)
                print(
                    f"{slug:<12} {ratings:>5} ratings  policy {policy.name:<9} median {median:6.3f} s over {args.repeat}"
                )
                figures[f"{slug}/{policy.name}"] = round(median, 4)
        emit("campaign_report", figures, save=args.save)
    finally:
        teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
