"""Celery for machine-annotation jobs: the shard task, the stale-shard requeue, and the functions that enqueue.

The only module of the app that knows Celery. Shards go to the queue of the model's hardware
(``settings.PROBE_QUEUES``, as probe runs): a local causal LM answers on the GPU workers when it is
registered there, a chat endpoint on any worker. Shard tasks are acknowledged late, requeued when
their worker dies, and idempotent (``annotators.actions.run_shard``).
"""

from __future__ import annotations

from celery import shared_task
from django.contrib.auth import get_user_model
from django.db import transaction

from annotators.actions import AnnotatorError, create_job, fail_job, resume_job_shards, run_shard
from annotators.models import AnnotationJob, AnnotationShard
from annotators.proposing import propose_synonyms
from core.shards import lost_shards, requeue_stale
from datasets.models import Compound
from probing.models import EmbeddingModel

MAX_RETRIES = 3


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=MAX_RETRIES)
def annotate_shard_task(self, job_id: int, index: int) -> bool:
    """Answer one shard of a job; an error is retried with backoff, then fails the job with the reason."""
    try:
        return run_shard(job_id, index)
    except AnnotatorError:
        raise  # the job is failed already: asking again would not change the answer
    except Exception as exc:
        if self.request.retries >= self.max_retries:
            fail_job(job_id, f"shard {index}: {type(exc).__name__}: {exc}")
            raise
        raise self.retry(exc=exc, countdown=2 ** (self.request.retries + 1)) from exc


@shared_task(acks_late=True)
def requeue_stale_annotation_shards_task() -> list[list[int]]:
    """Enqueue again the running shards whose worker stopped beating, and the pending shards whose message the broker
    lost (``core.shards.lost_shards``); the [job, shard index] pairs enqueued."""
    again = requeue_stale(AnnotationShard) + lost_shards(AnnotationShard)
    requeued = [(shard.job_id, shard.index, shard.job.queue) for shard in again]
    for job_id, index, queue in requeued:
        annotate_shard_task.apply_async((job_id, index), queue=queue)
    return [[job_id, index] for job_id, index, _ in requeued]


def enqueue(job: AnnotationJob, indices: list[int]) -> None:
    transaction.on_commit(
        lambda: [annotate_shard_task.apply_async((job.pk, index), queue=job.queue) for index in indices]
    )


def start_job(campaign, model, template_name=None, samples=1, settings=None, user=None) -> AnnotationJob:
    """A job (``annotators.actions.create_job``) with its shards enqueued once the transaction commits."""
    job = create_job(campaign, model, template_name, samples, settings, user)
    enqueue(job, list(range(job.shards_total)))
    return job


def resume(job: AnnotationJob) -> list[int]:
    """Enqueue again the shards of ``job`` that are not done; AnnotatorError for a job done."""
    pending = resume_job_shards(job)
    enqueue(job, pending)
    return pending


@shared_task(acks_late=True)
def propose_synonyms_task(
    model_id: int, compound_ids: list[int], template_name: str | None = None, settings: dict | None = None, user_id=None
) -> dict:
    """Ask a model for the synonyms of these compounds (``annotators.proposing``); asked again, the cache answers."""
    model = EmbeddingModel.objects.get(pk=model_id)
    user = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    compounds = Compound.objects.filter(pk__in=compound_ids).order_by("pk")
    return vars(propose_synonyms(model, compounds, template_name, settings, user))


def start_proposals(model, compound_ids: list[int], template_name=None, settings=None, user=None) -> None:
    """Enqueue a proposal request on the model's queue once the transaction commits."""
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    arguments = (model.pk, list(compound_ids), template_name, settings, user_id)
    transaction.on_commit(lambda: propose_synonyms_task.apply_async(arguments, queue=model.celery_queue))
