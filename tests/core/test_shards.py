"""The sharded-job coordinator on building jobs' shards: claims, completion, staleness, resume, heartbeat."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.utils import timezone
from django_celery_beat.models import PeriodicTask
from django_celery_beat.schedulers import DatabaseScheduler

from building.jobs import create_shards
from building.models import BuildJob, BuildShard
from config.celery import app
from core.shards import (
    MAX_ATTEMPTS,
    Completion,
    JobDone,
    ShardExhausted,
    beat,
    claim_or_fail,
    claim_shard,
    complete_shard,
    finish_job,
    heartbeat,
    lost_shards,
    requeue_stale,
    resume_job,
    stale_shards,
    worker_name,
)

pytestmark = pytest.mark.django_db


def make_job(parts: int = 3) -> BuildJob:
    job = BuildJob.objects.create(kind=BuildJob.Kind.COUNT_CORPUS, total=parts)
    create_shards(job, parts)
    return job


def silent_since(seconds: float):
    return timezone.now() - timedelta(seconds=seconds)


def left_running(job: BuildJob, index: int, seconds: float, worker: str = "killed:1") -> BuildShard:
    """What a worker killed while computing shard ``index`` leaves: running, its last beat ``seconds`` ago."""
    job.shards.filter(index=index).update(
        status=BuildShard.RUNNING, attempts=1, worker=worker, heartbeat_at=silent_since(seconds)
    )
    BuildJob.objects.filter(pk=job.pk).update(status=BuildJob.Status.RUNNING)
    return job.shards.get(index=index)


def count_parts(job: BuildJob, shard: BuildShard, last: bool) -> None:
    job.done += 1
    job.message = "last" if last else ""
    job.save(update_fields=["done", "message"])


def test_a_pending_shard_is_claimed_once_and_its_job_starts():
    job = make_job()
    shard = claim_shard(BuildShard, job.pk, 1, worker="alice:1")
    assert (shard.status, shard.attempts, shard.worker) == (BuildShard.RUNNING, 1, "alice:1")
    assert shard.heartbeat_at is not None and shard.started_at is not None
    job.refresh_from_db()
    assert job.status == BuildJob.Status.RUNNING and job.started_at is not None
    # A second delivery of the same message, while alice beats: nothing.
    assert claim_shard(BuildShard, job.pk, 1, worker="bob:2") is None
    assert job.shards.get(index=1).worker == "alice:1" and job.shards.get(index=1).attempts == 1


def test_a_running_shard_whose_worker_stopped_beating_is_taken_over():
    job = make_job()
    left_running(job, 0, django_settings.SHARD_HEARTBEAT_TIMEOUT + 5)
    left_running(job, 1, django_settings.SHARD_HEARTBEAT_TIMEOUT - 30)
    job.shards.filter(index=2).update(status=BuildShard.RUNNING, heartbeat_at=None)  # claimed before heartbeats existed
    assert claim_shard(BuildShard, job.pk, 0, worker="bob:2").attempts == 2
    assert claim_shard(BuildShard, job.pk, 1, worker="bob:2") is None  # still beating a little while ago
    assert claim_shard(BuildShard, job.pk, 2, worker="bob:2").worker == "bob:2"


def test_a_shard_whose_worker_process_on_this_machine_is_gone_is_taken_over_at_once():
    """A pool child killed by the kernel: its message comes back at once, its heartbeat is still fresh."""
    job = make_job()
    finished = subprocess.Popen([sys.executable, "-c", "pass"])
    finished.wait()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        here, namespace = worker_name().split(":")[0], worker_name().split(":")[2]
        names = {0: f"{here}:{finished.pid}:{namespace}", 1: f"{here}:{alive.pid}:{namespace}"}
        names[2] = f"elsewhere:{finished.pid}:{namespace}"
        for index, name in names.items():
            left_running(job, index, 1, worker=name)
        assert claim_shard(BuildShard, job.pk, 0, worker="bob:2").attempts == 2
        assert claim_shard(BuildShard, job.pk, 1, worker="bob:2") is None  # alive: it may still finish
        assert claim_shard(BuildShard, job.pk, 2, worker="bob:2") is None  # another machine: wait for the timeout
    finally:
        alive.kill()
        alive.wait()


def test_done_shards_and_shards_of_finished_jobs_are_not_claimed():
    job = make_job()
    job.shards.filter(index=0).update(status=BuildShard.DONE)
    assert claim_shard(BuildShard, job.pk, 0) is None
    assert finish_job(BuildJob, job.pk, BuildJob.Status.CANCELLED, message="Cancelled")
    assert claim_shard(BuildShard, job.pk, 1) is None
    assert job.shards.get(index=1).status == BuildShard.PENDING
    assert not finish_job(BuildJob, job.pk, BuildJob.Status.FAILED)  # finished already


def test_a_shard_that_keeps_killing_its_worker_is_not_claimed_again():
    job = make_job()
    job.shards.filter(index=0).update(attempts=5)
    with pytest.raises(ShardExhausted, match="shard 0 was attempted 5 times"):
        claim_shard(BuildShard, job.pk, 0, max_attempts=5)
    assert claim_shard(BuildShard, job.pk, 0, max_attempts=6).attempts == 6


def test_a_task_claiming_an_exhausted_shard_fails_its_job_with_the_reason():
    from building.jobs import fail_build_job

    job = make_job()
    assert claim_or_fail(BuildShard, job.pk, 1, fail_build_job).attempts == 1  # a fresh shard is claimed
    job.shards.filter(index=0).update(attempts=MAX_ATTEMPTS)
    assert claim_or_fail(BuildShard, job.pk, 0, fail_build_job) is None
    job.refresh_from_db()
    assert job.status == BuildJob.Status.FAILED
    assert f"shard 0 was attempted {MAX_ATTEMPTS} times" in job.message


def test_the_last_shard_completed_finishes_and_a_duplicate_completion_counts_nothing():
    job = make_job()
    shards = {shard.index: shard for shard in job.shards.all()}
    first = complete_shard(BuildShard, shards[2].pk, count_parts)
    assert (first.recorded, first.last) == (True, False)
    assert complete_shard(BuildShard, shards[2].pk, count_parts).recorded is False  # delivered twice
    assert complete_shard(BuildShard, shards[0].pk, count_parts).last is False
    final = complete_shard(BuildShard, shards[1].pk, count_parts)
    assert (final.recorded, final.last) == (True, True)
    assert complete_shard(BuildShard, shards[1].pk, count_parts) == Completion(recorded=False, last=False)
    job.refresh_from_db()
    assert (job.done, job.message) == (3, "last")
    assert set(job.shards.values_list("status", flat=True)) == {BuildShard.DONE}


def test_a_shard_completed_after_its_job_was_cancelled_waits_for_a_resume():
    job = make_job()
    shard = claim_shard(BuildShard, job.pk, 0)
    finish_job(BuildJob, job.pk, BuildJob.Status.CANCELLED)
    assert complete_shard(BuildShard, shard.pk, count_parts).recorded is False
    assert job.shards.get(index=0).status == BuildShard.PENDING
    job.refresh_from_db()
    assert job.done == 0


def test_a_failing_record_leaves_the_shard_undone():
    job = make_job()

    def broken(job, shard, last):
        job.done = 99
        job.save(update_fields=["done"])
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        complete_shard(BuildShard, job.shards.get(index=0).pk, broken)
    job.refresh_from_db()
    assert job.done == 0 and job.shards.get(index=0).status == BuildShard.PENDING


def test_stale_shards_are_requeued_once_and_live_or_cancelled_ones_are_left():
    timeout = django_settings.SHARD_HEARTBEAT_TIMEOUT
    job, cancelled = make_job(), make_job()
    dead = left_running(job, 0, timeout + 60)
    left_running(job, 1, timeout / 2)  # alive
    left_running(cancelled, 0, timeout + 60)
    finish_job(BuildJob, cancelled.pk, BuildJob.Status.CANCELLED)
    assert list(stale_shards(BuildShard)) == [dead]

    assert [(s.job_id, s.index) for s in requeue_stale(BuildShard)] == [(job.pk, 0)]
    assert requeue_stale(BuildShard) == []  # pending now: a second tick enqueues no copy
    dead.refresh_from_db()
    assert dead.status == BuildShard.PENDING and "killed:1" in dead.error
    assert claim_shard(BuildShard, job.pk, 0, worker="bob:2").attempts == 2


def test_the_stale_timeout_comes_from_the_settings(settings):
    job = make_job()
    left_running(job, 0, 100)
    settings.SHARD_HEARTBEAT_TIMEOUT = 120
    assert not stale_shards(BuildShard).exists()
    settings.SHARD_HEARTBEAT_TIMEOUT = 90
    assert stale_shards(BuildShard).get().index == 0


def sent_since(job: BuildJob, seconds: float) -> None:
    """The job's pending shards had their message sent ``seconds`` ago (and nothing since)."""
    job.shards.filter(status=BuildShard.PENDING).update(enqueued_at=silent_since(seconds))


def test_pending_shards_of_a_job_that_made_no_progress_are_sent_again_once_per_timeout(settings):
    settings.SHARD_QUEUE_TIMEOUT = 300
    lost, waiting, recent, cancelled = make_job(2), make_job(2), make_job(2), make_job(1)
    for job in (lost, waiting, cancelled):
        sent_since(job, 400)
    sent_since(recent, 100)  # sent a moment ago: the broker still holds it
    # waiting: a worker claimed one of its shards a minute ago; the other is only waiting its turn
    waiting.shards.filter(index=0).update(
        status=BuildShard.DONE, started_at=silent_since(60), finished_at=silent_since(50)
    )
    finish_job(BuildJob, cancelled.pk, BuildJob.Status.CANCELLED)

    assert [(s.job_id, s.index) for s in lost_shards(BuildShard)] == [(lost.pk, 0), (lost.pk, 1)]
    assert lost_shards(BuildShard) == []  # marked sent: the next tick sends no copy
    assert lost.shards.filter(enqueued_at__gte=silent_since(5)).count() == 2
    sent_since(lost, 400)
    assert len(lost_shards(BuildShard)) == 2  # still nobody took them a timeout later: sent again


def test_requeued_and_resumed_shards_count_their_wait_from_then(settings):
    settings.SHARD_QUEUE_TIMEOUT = 300
    job = make_job(2)
    sent_since(job, 400)
    left_running(job, 0, django_settings.SHARD_HEARTBEAT_TIMEOUT + 60)
    requeue_stale(BuildShard)  # shard 0 sent again now; shard 1's message is old, but its job ran meanwhile
    assert job.shards.get(index=0).enqueued_at >= silent_since(5)
    finish_job(BuildJob, job.pk, BuildJob.Status.CANCELLED)
    sent_since(job, 400)
    resume_job(BuildShard, job.pk)
    assert lost_shards(BuildShard) == []  # resumed: both sent now


def test_resume_keeps_done_shards_and_reopens_the_others():
    job = make_job()
    complete_shard(BuildShard, job.shards.get(index=1).pk, count_parts)
    left_running(job, 2, 10)
    job.shards.filter(index=2).update(attempts=4)
    finish_job(BuildJob, job.pk, BuildJob.Status.FAILED, message="boom")
    done_at = job.shards.get(index=1).finished_at

    assert resume_job(BuildShard, job.pk) == [0, 2]
    job.refresh_from_db()
    assert job.status == BuildJob.Status.RUNNING and job.finished_at is None
    assert list(job.shards.values_list("index", "status", "attempts")) == [
        (0, BuildShard.PENDING, 0),
        (1, BuildShard.DONE, 0),
        (2, BuildShard.PENDING, 0),
    ]
    assert job.shards.get(index=1).finished_at == done_at
    for index in (0, 2):
        complete_shard(BuildShard, job.shards.get(index=index).pk, count_parts)
    BuildJob.objects.filter(pk=job.pk).update(status=BuildJob.Status.DONE)
    with pytest.raises(JobDone):
        resume_job(BuildShard, job.pk)


@pytest.mark.django_db(transaction=True)  # the scheduler closes connections left in a transaction
def test_beat_requeues_probe_build_and_annotation_shards_every_configured_interval():
    """What ``celery -A config beat`` (django-celery-beat's DatabaseScheduler) schedules when it starts."""
    DatabaseScheduler(app=app, lazy=True).update_from_dict(app.conf.beat_schedule)
    scheduled = {
        task.task: (task.interval.every, task.interval.period, task.enabled)
        for task in PeriodicTask.objects.filter(task__contains="requeue_stale").select_related("interval")
    }
    every = django_settings.SHARD_REQUEUE_EVERY
    assert scheduled == {
        "probing.tasks.requeue_stale_probe_shards_task": (every, "seconds", True),
        "building.tasks.requeue_stale_build_shards_task": (every, "seconds", True),
        "annotators.tasks.requeue_stale_annotation_shards_task": (every, "seconds", True),
    }


@pytest.mark.django_db(transaction=True)
def test_a_worker_beats_while_it_computes_and_stops_when_done():
    job = make_job(1)
    shard = claim_shard(BuildShard, job.pk, 0)
    claimed_beat = shard.heartbeat_at
    with heartbeat(shard, every=0.05):
        deadline = time.monotonic() + 30
        while BuildShard.objects.get(pk=shard.pk).heartbeat_at == claimed_beat:
            assert time.monotonic() < deadline, "no heartbeat within 30 seconds"
            time.sleep(0.02)
    # A shard taken over by another worker is not beaten for by the first one.
    BuildShard.objects.filter(pk=shard.pk).update(worker="bob:2", heartbeat_at=claimed_beat)
    assert beat(shard) is False
    assert BuildShard.objects.get(pk=shard.pk).heartbeat_at == claimed_beat
