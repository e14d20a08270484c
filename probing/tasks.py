"""Celery for probe runs: the tasks, and the functions that start a run and enqueue its shards.

The only module of the app that knows Celery. The tasks take ids and call ``probing.actions``
and ``probing.run.scheduling``; ``start_probe_run`` and ``resume_probe_run`` change the run there and
enqueue its shards on the queue of the model's hardware (``settings.PROBE_QUEUES``) once the
transaction commits. Shard tasks are acknowledged late and requeued when their worker dies, and
idempotent, so a shard delivered twice is computed at most once. ``requeue_stale_probe_shards_task``
(every ``SHARD_REQUEUE_EVERY`` seconds, ``CELERY_BEAT_SCHEDULE``) enqueues again the shards whose
worker stopped beating (``core.shards``): a worker killed halfway does not leave its run waiting
for the broker's visibility timeout or a Resume. ``on_release_published``
(connected in ``ProbingConfig.ready``) enqueues the runs of a release just published.
"""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

from core.shards import lost_shards, requeue_stale
from probing.actions import SHARD_SIZE, ProbeError, create_probe_run, fail_run, finish_run, resume_run, run_shard
from probing.models import EmbeddingModel, ProbeRun, ProbeShard
from probing.run.scheduling import start_nightly_runs, start_publish_runs
from releases.models import Release

MAX_RETRIES = 3


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES)
def run_probe_shard_task(self, run_id: int, index: int) -> bool:
    """Embed and measure one shard of a run (a shard done, or any shard of a finished run, is skipped).

    An error is retried with exponential backoff; when the retries run out the run fails with it.
    """
    try:
        return run_shard(run_id, index)
    except ProbeError:
        raise  # the run is failed already: retrying would not change the answer
    except Exception as exc:
        if self.request.retries >= self.max_retries:
            fail_run(run_id, f"shard {index}: {type(exc).__name__}: {exc}")
            raise
        raise self.retry(exc=exc, countdown=2 ** (self.request.retries + 1)) from exc


@shared_task(acks_late=True, reject_on_worker_lost=True)
def finish_probe_run_task(run_id: int) -> bool:
    """Compute the report of a run whose shards are all done (after a resume)."""
    run = ProbeRun.objects.filter(pk=run_id).first()
    return finish_run(run) if run is not None else False


@shared_task(acks_late=True)
def nightly_probe_runs_task() -> list[int]:
    """Start a run of every active model on the newest published release (once per release, model and config)."""
    return [enqueue_run(run).pk for run in start_nightly_runs()]


@shared_task(acks_late=True, autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=MAX_RETRIES)
def probe_on_publish_task(release_id: int) -> list[int]:
    """Start runs of the models marked ``run_on_publish`` on a release just published."""
    release = Release.objects.filter(pk=release_id).first()
    return [enqueue_run(run).pk for run in start_publish_runs(release)] if release is not None else []


@shared_task(acks_late=True)
def requeue_stale_probe_shards_task() -> list[list[int]]:
    """Enqueue again the running shards whose worker stopped beating, and the pending shards whose message the broker
    lost (``core.shards.lost_shards``); the [run, shard index] pairs enqueued."""
    again = requeue_stale(ProbeShard) + lost_shards(ProbeShard)
    requeued = [(shard.run_id, shard.index, shard.run.queue) for shard in again]
    for run_id, index, queue in requeued:
        run_probe_shard_task.apply_async((run_id, index), queue=queue)
    return [[run_id, index] for run_id, index, _ in requeued]


def enqueue_shards(run_id: int, queue: str, indices: list[int]) -> None:
    for index in indices:
        run_probe_shard_task.apply_async((run_id, index), queue=queue)


def enqueue_run(run: ProbeRun) -> ProbeRun:
    """Enqueue every shard of a run just created, once the transaction commits."""
    indices = list(range(run.shards_total))
    transaction.on_commit(lambda: enqueue_shards(run.pk, run.queue, indices))
    return run


def start_probe_run(
    release: Release, model: EmbeddingModel, config: dict | None = None, user=None, shard_size: int = SHARD_SIZE
) -> ProbeRun:
    """A run of ``model`` on a published ``release`` (``probing.actions.create_probe_run``), its shards enqueued after commit."""
    return enqueue_run(create_probe_run(release, model, config=config, user=user, shard_size=shard_size))


def resume_probe_run(run: ProbeRun) -> list[int]:
    """Enqueue again the shards of ``run`` that are not done, or finish it when none is left; the shard indices enqueued.

    ProbeError for a run done (``probing.actions.resume_run``).
    """
    pending = resume_run(run)
    if pending:
        transaction.on_commit(lambda: enqueue_shards(run.pk, run.queue, pending))
    else:
        transaction.on_commit(lambda: finish_probe_run_task.apply_async((run.pk,), queue=run.queue))
    return pending


def on_release_published(sender, release: Release, **kwargs) -> None:
    """Receiver of ``releases.signals.release_published``: the release's runs start once the transaction commits."""
    if release.is_published and EmbeddingModel.objects.filter(run_on_publish=True).exists():
        transaction.on_commit(lambda: probe_on_publish_task.delay(release.pk))
