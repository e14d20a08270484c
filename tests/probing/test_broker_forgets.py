"""A broker that forgets: Redis restarted without persistence in the middle of a probe run (issue 35, item 6).

The test runs its own Redis (no RDB, no AOF) on a free port and a real worker process. Once a worker
holds the run's first shard, Redis is restarted: the messages of the shards nobody claimed are gone.
The worker reconnects by itself; the periodic task (called here as beat would) finds the pending
shards of a run that made no progress for SHARD_QUEUE_TIMEOUT seconds and sends them again, and the
run finishes with the numbers of an uninterrupted run.
"""

from __future__ import annotations

import os

import pytest

from probing import tasks
from probing.actions import create_probe_run, run_inline
from probing.models import CachedVectors, ProbeRun
from probing.report.build import run_report
from tests.float32 import assert_same_numbers
from tests.forgetful_broker import celery_app_on, finish_after_forgetting, forgetful_redis
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert
from tests.probing.test_worker_resume import numbers

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]
QUEUE = f"probe_cpu_forgets_{os.getpid()}"
QUEUE_TIMEOUT = 5  # seconds a run may make no progress before its pending shards are sent again


def test_a_run_whose_broker_forgot_its_messages_finishes_by_itself_with_the_same_numbers(settings, tmp_path):
    settings.PROBE_QUEUES = {"cpu": QUEUE, "gpu": QUEUE}
    settings.SHARD_QUEUE_TIMEOUT = QUEUE_TIMEOUT
    make_probe_data()
    release = publish("1.0.0")
    bert = register_tiny_bert(tmp_path / "models" / "tiny-bert")
    log = tmp_path / "worker.log"
    with forgetful_redis(tmp_path) as broker, celery_app_on(broker.url):
        run = tasks.start_probe_run(release, bert, shard_size=1)  # autocommit: its 5 messages are sent at once
        assert broker.queued(QUEUE) == run.shards_total == 5
        finish_after_forgetting(broker, QUEUE, run, tasks.requeue_stale_probe_shards_task, tmp_path / "models", log)

    run.refresh_from_db()
    assert run.status == ProbeRun.Status.DONE, run.error + log.read_text()[-3000:]
    assert run.shards_done == run.shards_total == 5
    forgot = numbers(run_report(run))
    CachedVectors.objects.all().delete()
    expected = numbers(run_report(run_inline(create_probe_run(release, bert, shard_size=1))))
    assert_same_numbers(forgot, expected)
