"""A probe run through a real Celery worker and Redis: stopped halfway and resumed, or left by a killed worker and requeued."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from config.celery import app
from probing import actions, tasks
from probing.actions import create_probe_run, run_inline, run_shard
from probing.models import CachedVectors, ProbeRun, ProbeShard
from probing.report.build import run_report
from tests.float32 import assert_same_numbers, assert_vectors_close
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]
# A queue of this test's own: parallel test processes share the Redis database and must not take its shards.
QUEUE = f"probe_cpu_test_{os.getpid()}"


@pytest.fixture
def probe_worker(celery_worker, settings):
    settings.PROBE_QUEUES = {"cpu": QUEUE, "gpu": QUEUE}
    return lambda: celery_worker(queues=[QUEUE], shutdown_timeout=30)


def purge(queue: str) -> None:
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(queue)


def wait_for(run: ProbeRun, done, seconds: float = 120.0) -> ProbeRun:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if done(run):
            return run
        time.sleep(0.05)
    raise AssertionError(f"run {run.pk} still {run.status} at {run.shards_done}/{run.shards_total} shards")


def numbers(report: dict) -> dict:
    """Every per-compound value of a report, flat."""
    return {
        (r["language"], r["compound"], r["condition"], r["level"], group, key): value
        for r in report["per_compound"]
        for group in ("sim", "sim_std", "affinity", "affinity_std", "scaled", "scaled_std")
        for key, value in r[group].items()
    }


def vectors() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every cached text's sentence and span vectors, by cache key (text, span, model and config)."""
    return {
        key: (np.frombuffer(sentence, dtype="<f4"), np.frombuffer(span, dtype="<f4"))
        for key, sentence, span in CachedVectors.objects.values_list("key", "sentence", "span")
    }


def test_a_run_stopped_halfway_resumes_without_recomputing_and_gives_the_same_numbers(
    probe_worker, tmp_path, monkeypatch
):
    make_probe_data()
    release = publish("1.0.0")
    bert = register_tiny_bert(tmp_path / "tiny-bert")
    real_run_shard = actions.run_shard

    def slow_run_shard(run_id: int, index: int) -> bool:
        time.sleep(0.3)  # time to stop the worker between shards
        return real_run_shard(run_id, index)

    monkeypatch.setattr(tasks, "run_shard", slow_run_shard)
    purge(QUEUE)
    with probe_worker():
        run = tasks.start_probe_run(release, bert, shard_size=1)  # autocommit: enqueued at once
        wait_for(run, lambda r: r.shards_done >= 2)
    run.refresh_from_db()
    assert run.status == ProbeRun.Status.RUNNING and 2 <= run.shards_done < run.shards_total == 5 and run.queue == QUEUE
    # What a crash leaves behind: the queued messages lost, a shard marked running by the dead worker.
    purge(QUEUE)
    crashed = run.shards.exclude(status=ProbeShard.DONE).order_by("index").first()
    ProbeShard.objects.filter(pk=crashed.pk).update(status=ProbeShard.RUNNING, attempts=1)
    finished = dict(run.shards.filter(status=ProbeShard.DONE).values_list("index", "finished_at"))

    with probe_worker():
        assert tasks.resume_probe_run(run) == sorted(set(range(5)) - set(finished))
        run = wait_for(run, lambda r: r.is_finished)

    assert run.status == ProbeRun.Status.DONE, run.error
    assert run.shards_done == 5 and run.eta_seconds == 0.0
    assert dict(run.shards.filter(index__in=finished).values_list("index", "finished_at")) == finished
    assert set(run.shards.filter(index__in=finished).values_list("attempts", flat=True)) == {1}
    resumed = numbers(run_report(run))
    resumed_vectors = vectors()

    CachedVectors.objects.all().delete()  # the uninterrupted run embeds everything afresh
    reference = run_inline(create_probe_run(release, bert, shard_size=1))
    # Text by text, so that vectors swapped between texts cannot hide behind equal aggregates.
    expected_vectors = vectors()
    assert resumed_vectors.keys() == expected_vectors.keys() and len(expected_vectors) == reference.texts_embedded
    for key, (sentence, span) in expected_vectors.items():
        assert_vectors_close(resumed_vectors[key][0], sentence, err_msg=key)
        assert_vectors_close(resumed_vectors[key][1], span, err_msg=key)
    expected = numbers(run_report(reference))
    assert_same_numbers(resumed, expected)


def test_a_shard_whose_worker_was_killed_is_requeued_by_the_periodic_task_and_the_run_finishes_without_resume(
    probe_worker, tmp_path, settings
):
    settings.SHARD_HEARTBEAT_EVERY = 1  # the live worker beats while it computes
    make_probe_data()
    release = publish("1.0.0")
    bert = register_tiny_bert(tmp_path / "tiny-bert")
    run = create_probe_run(release, bert, shard_size=1)
    # What a SIGKILL during shard 2 leaves: the shard running under a worker that beats no more, and
    # its message taken from the queue, never acknowledged (Redis gives it back after an hour).
    killed_at = timezone.now() - timedelta(seconds=settings.SHARD_HEARTBEAT_TIMEOUT + 60)
    run.shards.filter(index=2).update(
        status=ProbeShard.RUNNING, attempts=1, worker="killed-host:4242", heartbeat_at=killed_at, started_at=killed_at
    )
    ProbeRun.objects.filter(pk=run.pk).update(status=ProbeRun.Status.RUNNING, started_at=killed_at)
    purge(QUEUE)

    with probe_worker():
        tasks.enqueue_shards(run.pk, QUEUE, [0, 1, 3, 4])  # the other shards, computed after the restart
        wait_for(run, lambda r: r.shards_done == 4)
        assert run.status == ProbeRun.Status.RUNNING and run.shards.get(index=2).status == ProbeShard.RUNNING
        assert tasks.requeue_stale_probe_shards_task() == [[run.pk, 2]]
        assert tasks.requeue_stale_probe_shards_task() == []  # pending again: enqueued once, not every minute
        run = wait_for(run, lambda r: r.is_finished)

    assert run.status == ProbeRun.Status.DONE, run.error
    shard = run.shards.get(index=2)
    assert (shard.status, shard.attempts, shard.error) == (ProbeShard.DONE, 2, "")
    assert shard.worker != "killed-host:4242" and shard.heartbeat_at > killed_at
    # The killed worker's message, back from the broker at last, changes nothing.
    counts = (run.shards_done, run.texts_embedded, run.texts_cached, shard.finished_at, shard.result)
    assert run_shard(run.pk, 2) is False
    run.refresh_from_db()
    shard.refresh_from_db()
    assert (run.shards_done, run.texts_embedded, run.texts_cached, shard.finished_at, shard.result) == counts
    assert run.texts_embedded == run.texts_total  # each text embedded once over the run, the requeued shard's too
    requeued = numbers(run_report(run))

    CachedVectors.objects.all().delete()
    expected = numbers(run_report(run_inline(create_probe_run(release, bert, shard_size=1))))
    assert_same_numbers(requeued, expected)
