"""The two programs the compose check runs against a live site: the crowd client over HTTP (from the
host) and the state reader (inside the web container), here against a live test server and this
test's database, as separate processes."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.apps import apps
from django_celery_beat.models import PeriodicTask

from annotation.models import Rating
from probing.run.scheduling import NIGHTLY_TASK_NAME
from tests.annotation.test_views import make_campaign
from tests.probing.worker_processes import database_url

pytestmark = pytest.mark.django_db(transaction=True)
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


def run(*command: str, stdin: Path | None = None) -> str:
    environment = {**os.environ, "DATABASE_URL": database_url()}
    done = subprocess.run(
        [sys.executable, *command],
        cwd=SCRIPTS.parent,
        env=environment,
        stdin=stdin.open() if stdin else None,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_crowd_client_enrols_and_saves_one_rating_over_http(live_server):
    campaign = make_campaign(regular=3)
    printed = json.loads(run(str(SCRIPTS / "crowd_client.py"), live_server.url, campaign.slug, "compose-check-7"))

    rating = Rating.objects.get()
    assert rating.annotator.external_id == "compose-check-7" and rating.annotator.study_id == "compose-check"
    assert (rating.head_score, rating.modifier_score, rating.compound_score) == (4, 3, 4)
    assert str(rating.assignment.token) == printed["item"]
    assert printed["after"] == f"/annotate/{campaign.slug}/"  # the next item's page


def test_the_crowd_client_says_when_there_is_nothing_to_rate(live_server):
    campaign = make_campaign(regular=0)
    done = subprocess.run(
        [sys.executable, str(SCRIPTS / "crowd_client.py"), live_server.url, campaign.slug, "compose-check-8"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0 and "no item to rate" in done.stderr
    assert not Rating.objects.exists()


def test_the_state_reader_counts_the_checks_ratings_and_sets_beat_to_every_minute(live_server):
    campaign = make_campaign(regular=3)
    run(str(SCRIPTS / "crowd_client.py"), live_server.url, campaign.slug, "compose-check-1")
    run(str(SCRIPTS / "crowd_client.py"), live_server.url, campaign.slug, "someone-else")

    state = json.loads(run("-", "state", stdin=SCRIPTS / "compose_check_state.py"))
    assert state["crowd_ratings"] == {"compose-check-1": 1}  # only the check's own participants
    assert state["campaigns"] == [campaign.slug] and state["compounds"] == 3
    assert state["releases"] == {} and state["probe_runs"] == []

    # The nightly task as its migration makes it (a transactional test's database was emptied before it).
    importlib.import_module("probing.migrations.0003_nightly_probe_runs").create(apps, None)
    assert PeriodicTask.objects.get(name=NIGHTLY_TASK_NAME).crontab.minute == "0"
    changed = json.loads(run("-", "every-minute", stdin=SCRIPTS / "compose_check_state.py"))
    task = PeriodicTask.objects.get(name=NIGHTLY_TASK_NAME)
    assert (task.crontab.minute, task.crontab.hour, task.enabled) == ("*", "*", True)
    assert changed["task"] == NIGHTLY_TASK_NAME
