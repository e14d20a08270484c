"""A broker that forgets (issue 35, item 6): a Redis of a test's own, kept nowhere on disk, restarted mid-job.

``forgetful_redis`` runs one on a free port; ``celery_app_on(url)`` makes this process's Celery app send
there (and back afterwards); ``running_worker`` is a real worker process consuming one queue from it.
``finish_after_forgetting`` is the scenario, in three steps: ``forget_after_first_claim`` restarts the
broker once a worker holds a job's first shard (the messages of the shards nobody claimed are gone) and
returns their indices; ``send_lost_shards_again`` calls the app's periodic requeue task as beat would until
it sends them; ``wait_for_the_job`` waits for the job to finish, or says what the broker holds and what its
clients do.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import redis
from django.conf import settings
from django.db.models import Model, QuerySet

from config.celery import app
from core.models import Shard
from tests.probing.worker_processes import start_worker, wait_for


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

    def commands(self) -> list[str]:
        """What each client is doing (a consuming worker waits in BRPOP), for a failure's message."""
        return [client["cmd"] for client in redis.Redis.from_url(self.url).client_list()]


@contextmanager
def forgetful_redis(tmp_path: Path) -> Iterator[ForgetfulRedis]:
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


@contextmanager
def celery_app_on(url: str) -> Iterator[None]:
    """This process's Celery app sends to ``url`` (broker and results) inside the block, then where it sent before."""
    before = (app.conf.broker_url, app.conf.result_backend, app.conf.task_always_eager)
    app.conf.update(broker_url=url, result_backend=url, task_always_eager=False)
    forget_connections()  # an earlier test's pools would still send to its broker
    try:
        yield
    finally:
        app.conf.update(broker_url=before[0], result_backend=before[1], task_always_eager=before[2])
        forget_connections()  # they lead to this test's Redis, gone after it


WATCHDOG = {"WORKER_STALL_TIMEOUT": "10", "WORKER_STALL_CHECK_EVERY": "1"}  # config/worker_watchdog.py, quicker


@contextmanager
def running_worker(
    broker: ForgetfulRedis, queue: str, model_dir: Path, log: Path, env: dict[str, str] | None = None
) -> Iterator[list[subprocess.Popen]]:
    """A worker process taking one message at a time from ``queue`` (``start_worker``), under a supervisor that
    starts it again whenever it ends (as compose's ``restart: unless-stopped`` does), stopped after the block;
    the processes started, in order.

    A consumer gone silent after the broker came back ends itself (the worker's stall watch, 10 s here) and
    the next process consumes: the job still finishes by itself. Its workers log at INFO (the last ``-l``
    wins): reconnections and every message received are in the log that a failure shows."""
    processes: list[subprocess.Popen] = []
    done = threading.Event()

    def start() -> None:
        options = ("--prefetch-multiplier", "1", "-l", "info")
        processes.append(start_worker(broker.url, queue, model_dir, log, {**WATCHDOG, **(env or {})}, *options))

    def supervise() -> None:
        while not done.wait(0.5):
            if processes[-1].poll() is not None:
                start()

    start()
    supervisor = threading.Thread(target=supervise, daemon=True)
    supervisor.start()
    try:
        yield processes
    finally:
        done.set()
        supervisor.join(5)
        for process in processes:
            if process.poll() is None:
                process.terminate()
                process.wait(30)


def forget_after_first_claim(broker: ForgetfulRedis, queue: str, shards: QuerySet, log: Path) -> set[int]:
    """Restart the broker once a worker holds one of ``shards``; the indices of the shards left pending.

    The worker finishes the shard it holds; nobody will ever run the others: their messages are gone.
    """
    wait_for(lambda: shards.filter(status=Shard.RUNNING).exists(), 120, "a shard to start")
    broker.stop()
    broker.start()  # the same address, nothing in it
    assert broker.queued(queue) == 0
    wait_for(lambda: not shards.filter(status=Shard.RUNNING).exists(), 120, "the running shard")
    pending = set(shards.filter(status=Shard.PENDING).values_list("index", flat=True))
    assert pending, log.read_text()[-3000:]  # shards nobody had claimed
    return pending


def send_lost_shards_again(requeue: Callable[[], list], job_id: int, pending: set[int], timeout: float) -> None:
    """Call ``requeue`` (the app's periodic task) as beat would until it sends something: exactly ``pending``.

    Nothing is sent while the job made progress less than ``timeout`` (SHARD_QUEUE_TIMEOUT) seconds ago.
    """
    sent = wait_for(requeue, 4 * timeout, "the lost shards to be sent")
    assert {index for job, index in sent if job == job_id} == pending


def wait_for_the_job(finished: Callable[[], bool], broker: ForgetfulRedis, queue: str, log: Path) -> None:
    """Wait until ``finished()``; else fail with the messages still queued, the broker's clients and the worker's log."""
    try:
        wait_for(finished, 180, "the job to finish")
    except AssertionError as error:
        state = f"{broker.queued(queue)} messages in {queue}, clients doing {broker.commands()}"
        raise AssertionError(f"{error}: {state}\n{log.read_text()[-3000:]}") from None


def finish_after_forgetting(
    broker: ForgetfulRedis,
    queue: str,
    job: Model,
    requeue: Callable[[], list],
    model_dir: Path,
    log: Path,
    env: dict[str, str] | None = None,
) -> None:
    """A worker takes ``job``'s shards from ``queue``; the broker forgets once it holds the first; the lost shards
    are sent again by ``requeue`` (the app's periodic task) once SHARD_QUEUE_TIMEOUT passed; the job finishes."""
    with running_worker(broker, queue, model_dir, log, env):
        pending = forget_after_first_claim(broker, queue, job.shards, log)
        send_lost_shards_again(requeue, job.pk, pending, settings.SHARD_QUEUE_TIMEOUT)
        wait_for_the_job(lambda: type(job).objects.get(pk=job.pk).is_finished, broker, queue, log)
