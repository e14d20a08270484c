"""Celery: the tasks of the building jobs, and the functions that start a job and enqueue its parts.

The only module of the app that knows Celery. The work itself is in ``building.variants.jobs``
(a batch of compounds) and ``building.counts.actions`` (a chunk of a corpus, wordfreq
frequencies); each task takes ids and calls it, and each ``start_*`` creates the job there and
enqueues one task per part once the transaction commits. Parts are idempotent: a part done, or
any part of a finished or cancelled job, is skipped. ``requeue_stale_build_shards_task`` (every
``SHARD_REQUEUE_EVERY`` seconds, ``CELERY_BEAT_SCHEDULE``) enqueues again the parts whose worker
stopped beating (``core.shards``).

The task names are the ones these tasks had in the datasets app, so that messages queued before
an upgrade still find their task.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from celery import shared_task
from django.db import transaction

from building.counts.actions import count_corpus_chunk, create_corpus_count, fill_frequencies
from building.jobs import fail_build_job, resume_build_job
from building.models import BuildJob, BuildShard
from building.storage import StoredFile
from building.variants.jobs import BATCH, create_generation_job, run_generation_batch
from building.variants.resources import GenerationOptions
from core.shards import lost_shards, requeue_stale
from datasets.models import Compound


@shared_task(
    name="datasets.tasks.fill_frequencies_task",
    acks_late=True,
    autoretry_for=(ConnectionError,),
    retry_backoff=True,
    max_retries=3,
)
def fill_frequencies_task(collection: str, language: str, overwrite: bool = False) -> int:
    """Fill wordfreq frequencies for a collection's compounds in one language (idempotent)."""
    return fill_frequencies(collection, language, overwrite=overwrite)


@shared_task(
    name="datasets.tasks.generate_variants_batch_task",
    acks_late=True,
    autoretry_for=(ConnectionError,),
    retry_backoff=True,
    max_retries=3,
)
def generate_variants_batch_task(job_id: int, index: int) -> bool:
    """Generate one batch of compounds of a generation job (a batch already done is skipped)."""
    return run_generation_batch(job_id, index)


@shared_task(name="datasets.tasks.count_corpus_chunk_task", bind=True, acks_late=True, max_retries=4)
def count_corpus_chunk_task(self, job_id: int, index: int) -> bool:
    """Count one chunk of a corpus-count job; a chunk already done, or a finished job, is skipped.

    A read error (file on a network mount, say) is retried with backoff; when the retries run out
    the job is marked failed.
    """
    try:
        return count_corpus_chunk(job_id, index)
    except OSError as exc:
        if self.request.retries >= self.max_retries:
            fail_build_job(job_id, f"chunk {index + 1}: {type(exc).__name__}: {exc}")
            raise
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc


PART_TASKS = {
    BuildJob.Kind.GENERATE_VARIANTS: generate_variants_batch_task,
    BuildJob.Kind.COUNT_CORPUS: count_corpus_chunk_task,
}


def enqueue_parts(job: BuildJob, indices: list[int]) -> None:
    for index in indices:
        PART_TASKS[job.kind].delay(job.pk, index)


@shared_task(acks_late=True)
def requeue_stale_build_shards_task() -> list[list[int]]:
    """Enqueue again the running parts whose worker stopped beating, and the pending parts whose message the broker
    lost (``core.shards.lost_shards``); the [job, part index] pairs enqueued."""
    requeued = requeue_stale(BuildShard) + lost_shards(BuildShard)
    for shard in requeued:
        enqueue_parts(shard.job, [shard.index])
    return [[shard.job_id, shard.index] for shard in requeued]


def resume_building_job(job: BuildJob) -> list[int]:
    """Enqueue again the parts of a cancelled, failed or stalled job that are not done, after commit; their indices.

    BuildJobDone for a job that is done (``building.jobs.resume_build_job``).
    """
    pending = resume_build_job(job.pk)
    transaction.on_commit(lambda: enqueue_parts(job, pending))
    return pending


def start_generation_job(
    compounds: Iterable[Compound], options: GenerationOptions | None = None, user=None, batch: int = BATCH
) -> BuildJob:
    """A generation job cut into batches of compounds, one task each, enqueued after commit."""
    job = create_generation_job(compounds, options, user=user, batch=batch)
    if not job.is_finished:
        parts = job.options["parts"]
        transaction.on_commit(lambda: [generate_variants_batch_task.delay(job.pk, i) for i in range(parts)])
    return job


def start_corpus_count(
    path: str | Path | StoredFile,
    language: str,
    name: str,
    fmt: str | None = None,
    chunks: int = 8,
    collection: str | None = None,
    extra: Iterable[str] = (),
    user=None,
    pool: bool = True,
) -> BuildJob:
    """A corpus-count job, one task per chunk of the file enqueued after commit.

    Raises ``CorpusError`` (a ValueError) for a missing or empty file or an unknown format.
    """
    job = create_corpus_count(path, language, name, fmt, chunks, collection, extra, user, pool)
    parts = len(job.options["ranges"])
    transaction.on_commit(lambda: [count_corpus_chunk_task.delay(job.pk, i) for i in range(parts)])
    return job
