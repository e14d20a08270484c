"""A machine-annotation job through a real Celery worker: shards on the model's queue, cancelled, resumed, done."""

from __future__ import annotations

import os
import time

import pytest

from annotation.models import Item, MachineAnswer
from annotators import tasks
from annotators.models import AnnotationJob

QUEUE = f"probe_cpu_annotators_{os.getpid()}"


def wait(job: AnnotationJob, until, seconds: float = 120) -> AnnotationJob:
    deadline = time.monotonic() + seconds
    while not until(job) and time.monotonic() < deadline:
        time.sleep(0.1)
        job.refresh_from_db()
    return job


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_job_through_celery_cancelled_halfway_resumes_and_finishes(
    celery_worker, settings, demo_campaign, local_llama
):
    settings.PROBE_QUEUES = {"cpu": QUEUE, "gpu": QUEUE}
    regular = Item.objects.filter(campaign=demo_campaign, role=Item.Role.REGULAR).count()
    with celery_worker(queues=[QUEUE], shutdown_timeout=30):
        job = tasks.start_job(demo_campaign, local_llama, settings={"seed": 7})
        job = wait(job, lambda j: j.shards_done >= 1)
        tasks_cancelled = job.shards_done
        from annotators.actions import cancel_job

        cancel_job(job)
        assert job.status == AnnotationJob.Status.CANCELLED and job.shards_done < job.shards_total
        time.sleep(1.0)  # a shard in flight when cancelled goes back to pending, recorded by nobody
        job.refresh_from_db()
        answered = MachineAnswer.objects.count()
        assert answered == job.answered and tasks_cancelled <= job.shards_done < job.shards_total
        pending = tasks.resume(job)
        assert pending and job.status in (AnnotationJob.Status.QUEUED, AnnotationJob.Status.RUNNING)
        job = wait(job, lambda j: j.is_finished)
    assert job.status == AnnotationJob.Status.DONE, job.error
    assert job.answered == regular == MachineAnswer.objects.count() == job.cached + job.requests
    assert job.shards.filter(status="done").count() == job.shards_total
    assert all(shard.worker for shard in job.shards.all())


@pytest.mark.django_db
def test_a_dead_workers_shard_is_enqueued_again_by_the_periodic_task(demo_campaign, local_llama, monkeypatch, settings):
    from datetime import timedelta

    from django.utils import timezone

    from annotators.actions import create_job
    from annotators.models import AnnotationShard

    sent = []
    monkeypatch.setattr(tasks.annotate_shard_task, "apply_async", lambda args, queue: sent.append((tuple(args), queue)))
    job = create_job(demo_campaign, local_llama)
    silent = timezone.now() - timedelta(seconds=settings.SHARD_HEARTBEAT_TIMEOUT + 5)
    job.shards.filter(index=1).update(status="running", worker="gone-host:1", heartbeat_at=silent, started_at=silent)
    job.shards.filter(index=0).update(status="running", worker="live-host:2", heartbeat_at=timezone.now())
    assert tasks.requeue_stale_annotation_shards_task() == [[job.pk, 1]]
    assert sent == [((job.pk, 1), job.queue)]
    assert AnnotationShard.objects.get(job=job, index=1).status == "pending"
    assert AnnotationShard.objects.get(job=job, index=0).status == "running"
    assert "annotators.tasks.requeue_stale_annotation_shards_task" in {
        e["task"] for e in settings.CELERY_BEAT_SCHEDULE.values()
    }
