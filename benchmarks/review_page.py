"""Server time and size of the first screen of the review page, for the compounds with the most variants.

Usage: .venv/bin/python benchmarks/review_page.py [PATH/TO/shared/data] [--existing] [--top N] [--runs N]

By default it makes a throwaway database (PostgreSQL from DATABASE_URL, or a SQLite file), imports the
public data into it with the product's importers (NCTTI, NCS, NCIMP PT and EN: about a minute), and
measures there. ``--existing`` measures the database DATABASE_URL names, as it is. Server time is the
whole request through Django's test client (middleware, views, templates), the median of the runs.
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

IMPORTS = [
    ("import_nctti", ["nctti"]),
    ("import_ncs", ["ncs"]),
    ("import_ncimp", ["ncimp/PT", "--language", "pt"]),
    ("import_ncimp", ["ncimp/EN", "--language", "en"]),
]


def measure(top: int, runs: int) -> None:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.db import connection
    from django.db.models import Count
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from core.permissions import CURATORS_GROUP
    from datasets.models import Compound

    user, _ = get_user_model().objects.get_or_create(username="review-benchmark")
    user.groups.add(Group.objects.get_or_create(name=CURATORS_GROUP)[0])
    client = Client()
    client.force_login(user)
    compounds = Compound.objects.annotate(variants=Count("sentences__variants")).order_by("-variants", "pk")[:top]
    print(f"database: {connection.vendor}; median of {runs} runs after one warm-up")
    print(f"{'compound':<28} {'variants':>8} {'server ms':>10} {'HTML KB':>8} {'queries':>8}")
    for compound in compounds:
        url = reverse("review_compound", args=[compound.pk])
        client.get(url)
        times = []
        for _ in range(runs):
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                response = client.get(url)
                times.append(time.perf_counter() - started)
        assert response.status_code == 200, response.status_code
        name = f"{compound.text} ({compound.language})"
        print(
            f"{name:<28} {compound.variants:>8} {statistics.median(times) * 1000:>10.1f} "
            f"{len(response.content) / 1024:>8.1f} {len(queries):>8}"
        )
    user.delete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--existing", action="store_true", help="measure DATABASE_URL's data, import nothing")
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    os.environ["WORKBENCH_VAR_DIR"] = tempfile.mkdtemp(prefix="workbench-bench-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    if args.existing:
        measure(args.top, args.runs)
        return
    old = None
    if connection.vendor == "postgresql":
        from django.test.utils import setup_databases, teardown_databases

        old = setup_databases(verbosity=0, interactive=False)
    else:
        call_command("migrate", verbosity=0)
    data = Path(args.data).resolve()
    try:
        for command, (folder, *options) in IMPORTS:
            call_command(command, str(data / folder), *options, stdout=StringIO(), stderr=StringIO())
        measure(args.top, args.runs)
    finally:
        if old is not None:
            teardown_databases(old, verbosity=0)


if __name__ == "__main__":
    main()
