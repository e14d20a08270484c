"""A worker process killed with SIGKILL in the middle of a shard: the run finishes without a Resume.

Two real worker processes on Redis and this test's database: the first is killed while it holds a
shard, the second computes the others, and the periodic requeue task (called here as beat would)
sends the dead worker's shard again once its heartbeat is older than SHARD_HEARTBEAT_TIMEOUT.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from config.celery import app
from probing import tasks
from probing.models import ProbeRun, ProbeShard
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert
from tests.probing.worker_processes import start_worker, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]
REPO_ROOT = Path(__file__).resolve().parents[2]
QUEUE = f"probe_cpu_killed_{os.getpid()}"
TIMEOUT = 6  # seconds of silence before a shard is taken for dead, for the workers and this process alike


def start_host(redis_url: str, model_dir: Path, log: Path):
    heartbeat = {"SHARD_HEARTBEAT_TIMEOUT": str(TIMEOUT), "SHARD_HEARTBEAT_EVERY": "1"}
    return start_worker(redis_url, QUEUE, model_dir, log, heartbeat)


def test_a_run_whose_worker_was_sigkilled_mid_shard_finishes_once_the_shard_is_requeued(
    celery_worker, redis_url, settings, tmp_path
):
    settings.PROBE_QUEUES = {"cpu": QUEUE, "gpu": QUEUE}
    settings.SHARD_HEARTBEAT_TIMEOUT = TIMEOUT
    make_probe_data()
    release = publish("1.0.0")
    bert = register_tiny_bert(tmp_path / "models" / "tiny-bert")
    log = tmp_path / "workers.log"
    workers = []
    try:
        with celery_worker():  # the app on this test's Redis; the shards run in the worker processes
            with app.connection_for_write() as broker:
                broker.default_channel.queue_purge(QUEUE)
            run = tasks.start_probe_run(release, bert, shard_size=1)  # autocommit: enqueued at once
            workers.append(start_host(redis_url, tmp_path / "models", log))
            # The first shard claimed is loading torch and the model: kill its worker there.
            killed = wait_for(lambda: run.shards.filter(status=ProbeShard.RUNNING).first(), 120, "a shard to start")
            os.kill(workers[0].pid, signal.SIGKILL)
            workers[0].wait(30)
            killed.refresh_from_db()
            assert killed.status == ProbeShard.RUNNING and killed.attempts == 1, log.read_text()[-3000:]

            workers.append(start_host(redis_url, tmp_path / "models", log))
            wait_for(
                lambda: ProbeRun.objects.get(pk=run.pk).shards_done == run.shards_total - 1,
                180,
                "the other shards",
            )
            run.refresh_from_db()
            assert run.status == ProbeRun.Status.RUNNING  # waiting for the dead worker's shard
            requeued = wait_for(tasks.requeue_stale_probe_shards_task, 3 * TIMEOUT, "the shard to go stale")
            assert requeued == [[run.pk, killed.index]]
            wait_for(lambda: ProbeRun.objects.get(pk=run.pk).is_finished, 120, "the run to finish")
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.terminate()
                worker.wait(30)

    run.refresh_from_db()
    assert run.status == ProbeRun.Status.DONE, run.error
    assert run.shards_done == run.shards_total == 5
    killed.refresh_from_db()
    assert (killed.status, killed.attempts) == (ProbeShard.DONE, 2)
