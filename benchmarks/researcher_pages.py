"""Server time of the pages a researcher uses, on the demo and on the full public data.

Usage: .venv/bin/python benchmarks/researcher_pages.py [--data PATH/TO/shared/data] [--repeat N] [--demo-only]

A throwaway database (PostgreSQL from DATABASE_URL, else SQLite) gets the demo exactly as
``make demo`` builds it (load_demo, generate_variants, the demo campaigns with their SIMULATED
ratings, approve_variants); the pages are timed there. Then the public data (NCTTI, NCS, NCIMP PT
and EN) is imported beside it, a token-level campaign over every imported English sentence is filled
with simulated ratings, and the pages are timed again. Each page is requested through Django's test
client as a logged-in curator (middleware, view, queries, template): the first request of the
process (cold: nothing imported or cached yet) and the median of ``--repeat`` more (warm). Creating
a release is a POST of the release form (a draft over every language; each request a new version).

Pages: the campaign dashboard, the campaign report, the review page of the compound with the most
variants (and of *hot potato*), the release form, creating a release (the form's POST: it checks
the request and queues the build for a Celery worker), the page of the release just built. The
worker's build of each release is timed too (``worker_build_s``), apart: no page waits for it.
Goal: every warm page under 500 ms. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time
from io import StringIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from benchmarks.record import emit, save_flag  # noqa: E402

DEMO = [
    ("load_demo",),
    ("generate_variants", "--language", "en"),
    ("generate_variants", "--language", "pt"),
    ("create_demo_campaigns",),
    ("simulate_ratings", "demo-token", "demo-type"),
    ("create_demo_admin",),
    ("approve_variants", "--user", "admin", "--collection", "demo"),
]
PUBLIC = [
    ("import_nctti", "nctti"),
    ("import_ncs", "ncs"),
    ("import_ncimp", "ncimp/PT", "--language", "pt"),
    ("import_ncimp", "ncimp/EN", "--language", "en"),
]


def timed(client, method: str, url: str, repeat: int, data=None) -> dict:
    """The first request's and the median of ``repeat`` more requests' server time, in ms."""
    times = []
    for index in range(repeat + 1):
        body = data(index) if callable(data) else data
        started = time.perf_counter()
        response = client.post(url, body) if method == "POST" else client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code not in (200, 302):
            errors = re.findall(r'class="error[^"]*"[^>]*>([^<]+)<', response.content.decode())
            raise SystemExit(f"{method} {url}: {response.status_code} {errors}")
    return {
        "first_ms": round(times[0], 1),
        "median_ms": round(statistics.median(times[1:]), 1),
        "bytes": len(response.content),
    }


def pages(client, repeat: int, campaign: str, label: str, versions: list[int], collection: str = "") -> dict:
    from django.db.models import Count
    from django.urls import reverse

    from datasets.models import Compound

    busiest = Compound.objects.annotate(n=Count("sentences__variants")).order_by("-n", "pk").first()
    hot = Compound.objects.filter(text="hot potato").first()

    def release(index: int) -> dict:
        versions[0] += 1
        return {
            "version": f"{versions[0]}.0.0",
            "languages": ["en", "pt"],
            "title": "benchmark",
            "collection": collection,
        }

    found = {
        "dashboard": timed(client, "GET", reverse("curator:dashboard", args=[campaign]), repeat),
        "campaign report": timed(client, "GET", reverse("curator:report", args=[campaign]), repeat),
        f"review page ({busiest.text}, {busiest.n} variants)": timed(
            client, "GET", reverse("review_compound", args=[busiest.pk]), repeat
        ),
        "release form": timed(client, "GET", reverse("releases"), repeat),
        "create release (draft)": timed(client, "POST", reverse("releases"), repeat, data=release),
    }
    built = build_queued_releases()
    found["release page (just built)"] = timed(client, "GET", reverse("release", args=[built["version"]]), repeat)
    if hot is not None:
        found["review page (hot potato)"] = timed(client, "GET", reverse("review_compound", args=[hot.pk]), repeat)
    print(f"\n{label} ({campaign}); first request, then the median of {repeat}:")
    for name, figures in found.items():
        print(
            f"  {name:<48} {figures['first_ms']:>9.1f} ms {figures['median_ms']:>9.1f} ms {figures['bytes'] / 1024:>8.1f} KB"
        )
    print(f"  (the worker built each release in {built['seconds']} s: not server time of a page)")
    return found | {"worker_build_s": built["seconds"]}


QUEUED: list[int] = []


def build_queued_releases() -> dict:
    """Build the release jobs the form queued, as the Celery worker would; the last version and each build's seconds."""
    from releases.jobs import run_release_job
    from releases.models import ReleaseJob

    seconds = []
    while QUEUED:
        job_id = QUEUED.pop(0)
        started = time.perf_counter()
        if run_release_job(job_id) != "done":
            raise SystemExit(f"release job {job_id}: {ReleaseJob.objects.get(pk=job_id).message}")
        seconds.append(round(time.perf_counter() - started, 2))
    return {"version": ReleaseJob.objects.latest("pk").version, "seconds": seconds}


def full_campaign() -> str:
    """A token-level campaign over every imported English sentence (the default collection), with simulated ratings."""
    from django.core.management import call_command

    from annotation.models import Campaign
    from annotation.setup_actions import create_campaign
    from datasets.importing import DEFAULT_COLLECTION
    from datasets.models import Collection

    collection = Collection.objects.get(slug=DEFAULT_COLLECTION)
    campaign = Campaign(
        slug="public-en-token",
        name="Public data, English, token level",
        collection=collection,
        language="en",
        level=Campaign.Level.TOKEN,
        ratings_per_item=5,
        status=Campaign.Status.OPEN,
    )
    create_campaign(campaign)
    call_command("simulate_ratings", campaign.slug, "--annotators", "10", stdout=StringIO())
    return campaign.slug


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=5, help="warm requests per page (the median is printed)")
    parser.add_argument("--demo-only", action="store_true", help="skip the full public data")
    save_flag(parser)
    args = parser.parse_args()
    os.environ["WORKBENCH_VAR_DIR"] = tempfile.mkdtemp(prefix="workbench-bench-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    from releases import tasks

    tasks.build_release_task.delay = QUEUED.append  # the form's jobs are built here, timed apart from the pages
    old = None
    if connection.vendor == "postgresql":
        from django.test.utils import setup_databases, teardown_databases

        old = setup_databases(verbosity=0, interactive=False)
    else:
        call_command("migrate", verbosity=0)
    results: dict = {"database": connection.vendor, "repeat": args.repeat}
    try:
        started = time.perf_counter()
        for command, *rest in DEMO:
            call_command(command, *rest, stdout=StringIO(), stderr=StringIO())
        results["demo_setup_s"] = round(time.perf_counter() - started, 1)
        client = Client()
        client.force_login(get_user_model().objects.get(username="admin"))
        versions = [1]
        results["demo"] = pages(client, args.repeat, "demo-token", "Demo", versions)
        if not args.demo_only:
            data = Path(args.data).resolve()
            started = time.perf_counter()
            for command, folder, *options in PUBLIC:
                call_command(command, str(data / folder), *options, stdout=StringIO(), stderr=StringIO())
            slug = full_campaign()
            results["full_setup_s"] = round(time.perf_counter() - started, 1)
            results["full"] = pages(client, args.repeat, slug, "Full public data", versions, collection="default")
        warm = [
            f["median_ms"] for part in ("demo", "full") for f in results.get(part, {}).values() if isinstance(f, dict)
        ]
        results["slowest_warm_ms"] = max(warm)
        results["goal_met"] = max(warm) < 500
    finally:
        if old is not None:
            teardown_databases(old, verbosity=0)
    emit("researcher_pages", results, save=args.save)


if __name__ == "__main__":
    main()
