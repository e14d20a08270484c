"""A broker that forgets: Redis restarted without persistence in the middle of a probe run (issue 35, item 6).

The test runs its own Redis (no RDB, no AOF) on a free port and a real worker process. Once a worker
holds the run's first shard, Redis is restarted: the messages of the shards nobody claimed are gone.
The worker reconnects by itself; the periodic task (called here as beat would) finds the pending
shards of a run that made no progress for SHARD_QUEUE_TIMEOUT seconds and sends them again, and the
run finishes with the numbers of an uninterrupted run.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from config.celery import app
from probing import tasks
from probing.actions import create_probe_run, run_inline
from probing.models import CachedVectors, ProbeRun, ProbeShard
from probing.report.build import run_report
from tests.float32 import float32_close
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert
from tests.probing.test_worker_resume import numbers
from tests.probing.worker_processes import start_worker, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]
REPO_ROOT = Path(__file__).resolve().parents[2]
QUEUE = f"probe_cpu_forgets_{os.getpid()}"
QUEUE_TIMEOUT = 5  # seconds a run may make no progress before its pending shards are sent again


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ForgetfulRedis:
    """A Redis of this test's own, keeping nothing on disk: a restart empties it."""

    def __init__(self, folder: Path) -> None:
        self.port, self.folder, self.process = free_port(), folder, None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen([*command, "--dir", str(self.folder)], stdout=subprocess.DEVNULL)
        wait_for(lambda: self._answers(), 20, "Redis to start")

    def _answers(self) -> bool:
        try:
            return redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping()
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)  # no shutdown save: what a crash or a restart of a cache does
            self.process.wait(20)

    def queued(self, queue: str) -> int:
        return redis.Redis.from_url(self.url).llen(queue)


@contextmanager
def forgetful_redis(tmp_path: Path):
    server = ForgetfulRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def forget_connections() -> None:
    """The Celery app's producer pool, connection pool and result backend made again from its settings when next used."""
    app.amqp._producer_pool = None
    app._pool = None
    vars(app._local).pop("backend", None)  # the result backend, kept per thread (or once, when thread-safe)
    app._backend_cache = None


def test_a_run_whose_broker_forgot_its_messages_finishes_by_itself_with_the_same_numbers(settings, tmp_path):
    settings.PROBE_QUEUES = {"cpu": QUEUE, "gpu": QUEUE}
    settings.SHARD_QUEUE_TIMEOUT = QUEUE_TIMEOUT
    make_probe_data()
    release = publish("1.0.0")
    bert = register_tiny_bert(tmp_path / "models" / "tiny-bert")
    log = tmp_path / "worker.log"
    worker = None
    before = (app.conf.broker_url, app.conf.result_backend)
    with forgetful_redis(tmp_path) as broker:
        app.conf.update(broker_url=broker.url, result_backend=broker.url, task_always_eager=False)
        forget_connections()  # an earlier test's pools would still send to its broker
        try:
            run = tasks.start_probe_run(release, bert, shard_size=1)  # autocommit: its 5 messages are sent at once
            assert broker.queued(QUEUE) == run.shards_total == 5
            worker = start_worker(broker.url, QUEUE, tmp_path / "models", log, None, "--prefetch-multiplier", "1")
            wait_for(lambda: run.shards.filter(status=ProbeShard.RUNNING).exists(), 120, "a shard to start")

            broker.stop()
            broker.start()  # the same address, nothing in it: the unclaimed shards' messages are gone
            assert broker.queued(QUEUE) == 0
            wait_for(lambda: not run.shards.filter(status=ProbeShard.RUNNING).exists(), 120, "the running shard")
            pending = set(run.shards.filter(status=ProbeShard.PENDING).values_list("index", flat=True))
            assert pending, log.read_text()[-3000:]  # shards nobody had claimed: nothing would ever run them

            # Beat's periodic task: nothing while the run made progress less than the timeout ago, then the lost ones.
            sent = wait_for(tasks.requeue_stale_probe_shards_task, 4 * QUEUE_TIMEOUT, "the lost shards to be sent")
            assert {index for run_id, index in sent if run_id == run.pk} == pending
            wait_for(lambda: ProbeRun.objects.get(pk=run.pk).is_finished, 180, "the run to finish")
        finally:
            if worker is not None and worker.poll() is None:
                worker.terminate()
                worker.wait(30)
            app.conf.update(broker_url=before[0], result_backend=before[1])
            forget_connections()  # they lead to this test's Redis, gone now

    run.refresh_from_db()
    assert run.status == ProbeRun.Status.DONE, run.error + log.read_text()[-3000:]
    assert run.shards_done == run.shards_total == 5
    forgot = numbers(run_report(run))
    CachedVectors.objects.all().delete()
    expected = numbers(run_report(run_inline(create_probe_run(release, bert, shard_size=1))))
    assert forgot.keys() == expected.keys()
    for key, value in expected.items():
        assert forgot[key] == float32_close(value), key
