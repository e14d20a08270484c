"""A worker that has stopped taking messages while its queues hold some ends itself, so that it is restarted.

Celery's consumer can stay silent after its Redis broker comes back: the process lives and answers
nothing, its queues fill up (celery issues 8030, 9054 and 10205; seen here once in about twenty runs of
tests/probing/test_broker_forgets.py). Shards would then wait forever, since the requeue path resends
messages but nobody takes them. So a thread of the worker's main process looks every
``WORKER_STALL_CHECK_EVERY`` seconds, and when no task is running or reserved, none was received for
``WORKER_STALL_TIMEOUT`` seconds and a queue it consumes holds a message, it logs an error and shuts the
worker down (SIGQUIT, then exit status 70 if that did not end it). Its supervisor starts it again
(compose's ``restart: unless-stopped``, systemd's ``Restart=always``); a new process consumes. A busy
worker, or an idle one with empty queues, is never stopped. ``WORKER_STALL_TIMEOUT=0`` turns this off;
it also does nothing unless the broker is Redis (the queues' lengths are read there).
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

from celery.signals import task_received, worker_ready

log = logging.getLogger(__name__)

STALLED_EXIT = 70  # EX_SOFTWARE: the worker ended itself; its supervisor restarts it
# Kombu's Redis transport keeps a queue's messages in a list named after it, with a list per priority step.
PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")

_last_received = [time.monotonic()]


def stalled(now: float, last_received: float, busy: int, waiting: int, timeout: float) -> bool:
    """Whether a worker that runs or holds ``busy`` tasks, with ``waiting`` messages in its queues, is stuck."""
    return timeout > 0 and busy == 0 and waiting > 0 and now - last_received >= timeout


@task_received.connect
def _received(**_kwargs) -> None:
    _last_received[0] = time.monotonic()


@worker_ready.connect
def _start(sender, **_kwargs) -> None:
    """Start the watch in the worker's main process once its consumer is ready (``sender``: the consumer)."""
    from django.conf import settings

    timeout, every = settings.WORKER_STALL_TIMEOUT, settings.WORKER_STALL_CHECK_EVERY
    if timeout <= 0 or not str(sender.app.conf.broker_url).startswith(("redis://", "rediss://")):
        return
    queues = [queue.name for queue in sender.task_consumer.queues]
    _last_received[0] = time.monotonic()
    watch = threading.Thread(target=_watch, args=(sender.app.conf.broker_url, queues, timeout, every), daemon=True)
    watch.start()


def _waiting(client, queues: list[str]) -> int:
    return sum(client.llen(queue + suffix) for queue in queues for suffix in PRIORITY_SUFFIXES)


def _watch(broker_url: str, queues: list[str], timeout: float, every: float) -> None:
    import redis
    from celery.worker import state

    client = redis.Redis.from_url(broker_url, socket_timeout=10, socket_connect_timeout=10)
    while True:
        time.sleep(every)
        busy = len(state.active_requests) + len(state.reserved_requests)
        try:
            waiting = _waiting(client, queues)
        except redis.RedisError:
            continue  # the broker is away: the consumer is reconnecting, nothing to judge
        if stalled(time.monotonic(), _last_received[0], busy, waiting, timeout):
            log.error(
                "worker stalled: %d messages wait in %s, none received for %d s and no task running; "
                "shutting down so that the supervisor starts it again",
                waiting,
                ", ".join(queues),
                timeout,
            )
            os.kill(os.getpid(), signal.SIGQUIT)  # cold shutdown: the pool's processes end with it
            time.sleep(30)
            os._exit(STALLED_EXIT)
