"""Celery tasks of probe runs: thin wrappers that take ids and call ``probing.actions``/``probing.scheduling``.

Shard tasks are sent to the queue of the model's hardware (``settings.PROBE_QUEUES``) by
``probing.actions.enqueue_shards``; they are acknowledged late and requeued when their worker
dies, and idempotent, so a shard delivered twice is computed at most once.
"""

from __future__ import annotations

from celery import shared_task

MAX_RETRIES = 3


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES)
def run_probe_shard_task(self, run_id: int, index: int) -> bool:
    """Embed and measure one shard of a run (a shard done, or any shard of a finished run, is skipped).

    An error is retried with exponential backoff; when the retries run out the run fails with it.
    """
    from probing.actions import ProbeError, fail_run, run_shard

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
    from probing.actions import finish_run
    from probing.models import ProbeRun

    run = ProbeRun.objects.filter(pk=run_id).first()
    return finish_run(run) if run is not None else False


@shared_task(acks_late=True)
def nightly_probe_runs_task() -> list[int]:
    """Start a run of every active model on the newest published release (once per release, model and config)."""
    from probing.scheduling import start_nightly_runs

    return [run.pk for run in start_nightly_runs()]


@shared_task(acks_late=True, autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=MAX_RETRIES)
def probe_on_publish_task(release_id: int) -> list[int]:
    """Start runs of the models marked ``run_on_publish`` on a release just published."""
    from datasets.release_models import Release
    from probing.scheduling import start_publish_runs

    release = Release.objects.filter(pk=release_id).first()
    return [run.pk for run in start_publish_runs(release)] if release is not None else []
