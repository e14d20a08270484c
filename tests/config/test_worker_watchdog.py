"""A worker whose consumer went silent ends itself for its supervisor to restart (config/worker_watchdog.py).

The silent consumer is made on purpose with Celery's own remote control: ``cancel_consumer`` makes a real
worker stop taking messages from its queue, as the consumer that a broker restart sometimes leaves behind
does. A message then waits in the queue: the worker, idle, ends itself within its stall timeout. With the
watch off, the same worker lives on; with nothing waiting, an idle worker is never stopped.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from config.celery import app
from config.worker_watchdog import stalled
from tests.forgetful_broker import celery_app_on, forgetful_redis
from tests.probing.worker_processes import start_worker, wait_for

pytestmark = pytest.mark.redis
QUEUE = f"watchdog_{os.getpid()}"
TIMEOUT = 3  # the workers' WORKER_STALL_TIMEOUT here, in seconds


@pytest.mark.parametrize(
    ("since_received", "busy", "waiting", "timeout", "expected"),
    [
        (5, 0, 1, 3, True),  # idle, a message waiting, nothing received for longer than the timeout
        (2, 0, 1, 3, False),  # not yet
        (5, 1, 4, 3, False),  # running (or holding) a task: busy, not stuck
        (5, 0, 0, 3, False),  # nothing to take
        (500, 0, 9, 0, False),  # the watch is off
    ],
)
def test_a_worker_is_stalled_only_when_idle_with_messages_waiting_past_the_timeout(
    since_received, busy, waiting, timeout, expected
):
    assert stalled(100.0 + since_received, 100.0, busy, waiting, timeout) is expected


def worker(broker_url: str, log: Path, timeout: int) -> subprocess.Popen:
    watch = {"WORKER_STALL_TIMEOUT": str(timeout), "WORKER_STALL_CHECK_EVERY": "1"}
    process = start_worker(broker_url, QUEUE, log.parent / "models", log, watch, "-l", "info")
    wait_for(lambda: "ready." in log.read_text(), 120, "the worker to be ready")
    return process


def silence_its_consumer_and_queue_a_message() -> None:
    """The worker stops consuming QUEUE (it still answers remote control); then a message waits there."""
    replies = app.control.cancel_consumer(QUEUE, reply=True, timeout=10)
    assert replies and all("ok" in reply for answer in replies for reply in answer.values()), replies
    app.send_task("probing.tasks.requeue_stale_probe_shards_task", queue=QUEUE)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        process.wait(30)


def test_a_silent_worker_with_a_message_waiting_ends_itself(tmp_path):
    log = tmp_path / "worker.log"
    with forgetful_redis(tmp_path) as broker, celery_app_on(broker.url):
        process = worker(broker.url, log, TIMEOUT)
        try:
            time.sleep(3 * TIMEOUT)  # idle with nothing waiting: never stopped
            assert process.poll() is None, log.read_text()[-2000:]

            silence_its_consumer_and_queue_a_message()
            wait_for(lambda: process.poll() is not None, 60, "the stalled worker to end")
            assert broker.queued(QUEUE) == 1  # nobody took it: the next process will
        finally:
            stop(process)
    assert "worker stalled: 1 messages wait in " + QUEUE in log.read_text()


def test_with_the_watch_off_a_silent_worker_lives_on(tmp_path):
    log = tmp_path / "worker.log"
    with forgetful_redis(tmp_path) as broker, celery_app_on(broker.url):
        process = worker(broker.url, log, 0)
        try:
            silence_its_consumer_and_queue_a_message()
            time.sleep(4 * TIMEOUT)
            assert process.poll() is None and broker.queued(QUEUE) == 1
        finally:
            stop(process)
    assert "worker stalled" not in log.read_text()
