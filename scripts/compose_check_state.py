"""What the compose check reads or changes inside the web container, one JSON object on stdout.

scripts/compose_check.sh runs it through ``docker compose exec -T web python - COMMAND < this file``
(so the image need not carry it):

- ``state``: counts of compounds and campaigns; the crowd ratings of the check's own participants
  (external ids starting ``compose-check``); each release, published or not, and whether every file
  still hashes to its recorded sha256; each probe run with its status and the hosts whose workers
  did its shards (the host part of ``Shard.worker``).
- ``every-minute``: the nightly probe-run schedule (django-celery-beat's "nightly probe runs") set to
  fire every minute, as a curator would in the admin, so that beat fires it during the check.
"""

from __future__ import annotations

import json
import sys

import django

django.setup()

from django.db.models import Count  # noqa: E402  (after django.setup())
from django_celery_beat.models import CrontabSchedule, PeriodicTask  # noqa: E402

from annotation.models import Campaign, Rating  # noqa: E402
from datasets.models import Compound  # noqa: E402
from probing.models import ProbeRun  # noqa: E402
from probing.run.scheduling import NIGHTLY_TASK_NAME  # noqa: E402
from releases.models import Release  # noqa: E402

CHECK_PARTICIPANTS = "compose-check"


def verifies(release: Release) -> bool:
    try:
        release.verified_files()
    except Exception:  # noqa: BLE001 - any failure to read or hash is "does not verify"
        return False
    return True


def state() -> dict:
    ratings = (
        Rating.objects.filter(annotator__external_id__startswith=CHECK_PARTICIPANTS)
        .values("annotator__external_id")
        .annotate(n=Count("id"))
    )
    runs = []
    for run in ProbeRun.objects.select_related("release", "model").order_by("id"):
        hosts = {worker.split(":")[0] for worker in run.shards.exclude(worker="").values_list("worker", flat=True)}
        runs.append(
            {
                "id": run.id,
                "release": run.release.version,
                "model": run.model.name,
                "status": run.status,
                "hosts": sorted(hosts),
            }
        )
    return {
        "compounds": Compound.objects.count(),
        "campaigns": sorted(Campaign.objects.values_list("slug", flat=True)),
        "crowd_ratings": {row["annotator__external_id"]: row["n"] for row in ratings},
        "releases": {
            release.version: {"published": release.is_published, "verified": verifies(release)}
            for release in Release.objects.order_by("id")
        },
        "probe_runs": runs,
    }


def every_minute() -> dict:
    task = PeriodicTask.objects.get(name=NIGHTLY_TASK_NAME)
    task.crontab, _ = CrontabSchedule.objects.get_or_create(
        minute="*", hour="*", day_of_week="*", day_of_month="*", month_of_year="*", timezone=task.crontab.timezone
    )
    task.enabled = True
    task.save()  # saving a PeriodicTask tells beat's DatabaseScheduler to read the schedule again
    return {"task": task.name, "crontab": str(task.crontab)}


if __name__ == "__main__":
    commands = {"state": state, "every-minute": every_minute}
    print(json.dumps(commands[sys.argv[1]]()))
