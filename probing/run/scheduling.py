"""Runs nobody starts by hand: every night on the newest release, and when a release is published.

Both families: an embedding model gets a similarity run, a language model a likelihood run.

The nightly run is a django-celery-beat ``PeriodicTask`` ("nightly probe runs", 02:00, created by
migration 0003) that curators edit in the admin. A run is started at most once per release,
model and config: a second trigger finds the first run and leaves it (a failed run may be retried).
The runs are created here; the tasks that call these functions (``probing.tasks``) enqueue their shards.
"""

from __future__ import annotations

import logging

from django.db import transaction

from probing.actions import ProbeError, create_probe_run
from probing.models import EmbeddingModel, ProbeRun, config_hash
from releases.models import Release

log = logging.getLogger(__name__)

NIGHTLY_TASK_NAME = "nightly probe runs"
NIGHTLY_TASK = "probing.tasks.nightly_probe_runs_task"


def ensure_run(release: Release, model: EmbeddingModel) -> ProbeRun | None:
    """A run of ``model`` with its default config on ``release``, unless one exists (None then, or when it cannot run)."""
    resolved = model.run_config()
    with transaction.atomic():
        # The model's row lock makes two schedulers firing at once start one run, not two.
        EmbeddingModel.objects.select_for_update().get(pk=model.pk)
        runs = ProbeRun.objects.filter(release=release, model=model, config_hash=config_hash(resolved))
        if runs.exclude(status=ProbeRun.Status.FAILED).exists():
            return None
        try:
            return create_probe_run(release, model)
        except ProbeError as error:
            log.warning("no probe run of %s on release %s: %s", model.name, release.version, error)
            return None


def start_nightly_runs(release: Release | None = None) -> list[ProbeRun]:
    """Runs of every active model on ``release`` (default: the newest published one)."""
    release = release or Release.objects.current()
    if release is None:
        return []
    models = EmbeddingModel.objects.filter(active=True).exclude(kind=EmbeddingModel.Kind.OPENAI_CHAT)
    runs = [ensure_run(release, model) for model in models]
    return [run for run in runs if run is not None]


def start_publish_runs(release: Release) -> list[ProbeRun]:
    """Runs of the models marked ``run_on_publish`` on a published ``release``."""
    if not release.is_published:
        return []
    models = EmbeddingModel.objects.filter(run_on_publish=True).exclude(kind=EmbeddingModel.Kind.OPENAI_CHAT)
    runs = [ensure_run(release, model) for model in models]
    return [run for run in runs if run is not None]
