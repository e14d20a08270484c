"""The sharded-job coordinator: claim a shard, beat while working on it, complete it, cancel, resume, requeue.

A job (a probe run, a variant-generation or corpus-count job) is cut into shards, each computed
by one task. Every delivery of a task claims its shard first (``claim_shard``): a shard done, a
shard of a finished job, or a shard whose worker is still beating is left alone, so a message
delivered twice does nothing the second time. While it works, the worker beats
(``heartbeat``); ``complete_shard`` records the result under row locks of the job and the shard,
and says whether this shard was the last one, so exactly one worker finishes the job.

A worker killed (SIGKILL, a lost machine) stops beating: ``requeue_stale`` puts its shards back
to pending after ``settings.SHARD_HEARTBEAT_TIMEOUT`` seconds, and the app's periodic task
enqueues them again, so a job never waits for the broker to give the lost message back. A broker
that forgets (restarted without persistence, a flushed queue) loses the messages of shards nobody
claimed yet: ``lost_shards`` finds the pending shards of jobs that made no progress for
``settings.SHARD_QUEUE_TIMEOUT`` seconds since their message was sent, and the same periodic task
sends them again.

Nothing here knows Celery or any app: the apps pass their shard model and enqueue the shards
returned.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import F, Model, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from core.models import FINISHED, UNFINISHED, JobStatus, Shard

MAX_ATTEMPTS = 5  # a shard that kills its worker this often fails its job rather than loop forever


class JobDone(ValueError):
    """A job that is done cannot be resumed."""


class ShardExhausted(RuntimeError):
    """A shard claimed ``max_attempts`` times without finishing: it kills its worker, so it is not tried again."""

    def __init__(self, index: int, attempts: int) -> None:
        super().__init__(f"shard {index} was attempted {attempts} times without finishing (worker lost?)")


@dataclass(frozen=True)
class Completion:
    recorded: bool  # False: nothing recorded (done already, or the job finished meanwhile)
    last: bool  # this shard completed the job: its caller finishes it


def _pid_namespace() -> str:
    """The inode of this process's PID namespace (two containers may share a host name, never this)."""
    try:
        return str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:
        return ""


def worker_name() -> str:
    """host:pid:pid-namespace of this process."""
    return f"{socket.gethostname()}:{os.getpid()}:{_pid_namespace()}"


def process_gone(worker: str) -> bool:
    """Whether ``worker`` names a process of this host and PID namespace that no longer exists.

    A pool child killed by the kernel (out of memory) or a time limit has its message redelivered at
    once (``reject_on_worker_lost``): that delivery, on the same machine, need not wait for the
    heartbeat timeout. Anything unsure (another host, a reused or unknown pid) answers False.
    """
    host, pid, namespace = (worker.split(":") + ["", ""])[:3]
    if host != socket.gethostname() or not pid.isdigit() or not namespace or namespace != _pid_namespace():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def job_model(shard_model: type[Shard]) -> type[Model]:
    return shard_model._meta.get_field(shard_model.job_field).related_model


def _of_job(shard_model: type[Shard], job_id: int) -> dict:
    return {f"{shard_model.job_field}_id": job_id}


def _stale_before(now: datetime) -> Q:
    """A running shard whose worker gave no sign of life since ``now - SHARD_HEARTBEAT_TIMEOUT`` (or never did)."""
    cutoff = now - timedelta(seconds=settings.SHARD_HEARTBEAT_TIMEOUT)
    return Q(status=Shard.RUNNING) & (Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=cutoff))


def beating() -> Q:
    """Running shards whose worker gave a sign of life within SHARD_HEARTBEAT_TIMEOUT seconds: worth waiting for."""
    cutoff = timezone.now() - timedelta(seconds=settings.SHARD_HEARTBEAT_TIMEOUT)
    return Q(status=Shard.RUNNING, heartbeat_at__gte=cutoff)


def claim_shard(
    shard_model: type[Shard], job_id: int, index: int, max_attempts: int | None = None, worker: str | None = None
) -> Shard | None:
    """Take shard ``index`` of a job for this worker and mark the job running; None when there is nothing to do.

    A pending shard, or a running one whose worker stopped beating (or is a process of this machine
    that is gone: ``process_gone``), is claimed (attempts + 1); a shard done or failed, a shard
    another worker is beating on, or any shard of a finished job is not. The claim is one conditional UPDATE on the shard's own row: of two deliveries racing for
    it, PostgreSQL re-checks the condition for the second after the first commits, and it finds
    the shard taken. ShardExhausted when the shard could be claimed but was ``max_attempts`` times.
    """
    job = job_model(shard_model).objects.filter(pk=job_id).values("status").first()
    if job is None or job["status"] in FINISHED:
        return None
    now = timezone.now()
    shard = shard_model.objects.filter(index=index, **_of_job(shard_model, job_id))
    free = Q(status=Shard.PENDING) | _stale_before(now)
    holder = shard.filter(status=Shard.RUNNING).values_list("worker", flat=True).first()
    if holder and process_gone(holder):
        free |= Q(status=Shard.RUNNING, worker=holder)
    claimable = shard.filter(free)
    if max_attempts is not None:
        used = claimable.filter(attempts__gte=max_attempts).values_list("attempts", flat=True).first()
        if used is not None:
            raise ShardExhausted(index, used)
    claimed = claimable.update(
        status=Shard.RUNNING,
        attempts=F("attempts") + 1,
        worker=(worker or worker_name())[:200],
        heartbeat_at=now,
        started_at=now,
        finished_at=None,
        error="",
    )
    if not claimed:
        return None
    job_model(shard_model).objects.filter(pk=job_id, status=JobStatus.QUEUED).update(
        status=JobStatus.RUNNING, started_at=Coalesce(F("started_at"), Value(now))
    )
    return shard_model.objects.get(index=index, **_of_job(shard_model, job_id))


def claim_or_fail(
    shard_model: type[Shard], job_id: int, index: int, fail: Callable[[int, str], object]
) -> Shard | None:
    """``claim_shard`` for a task: a shard claimed ``MAX_ATTEMPTS`` times already fails its job
    (``fail(job_id, reason)``) instead of being tried again, and None says there is nothing to do."""
    try:
        return claim_shard(shard_model, job_id, index, max_attempts=MAX_ATTEMPTS)
    except ShardExhausted as error:
        fail(job_id, str(error))
        return None


def beat(shard: Shard) -> bool:
    """Say the shard's worker is alive; False when the shard is no longer running on this worker."""
    return bool(
        type(shard)
        .objects.filter(pk=shard.pk, status=Shard.RUNNING, worker=shard.worker)
        .update(heartbeat_at=timezone.now())
    )


@contextmanager
def heartbeat(shard: Shard, every: float | None = None) -> Iterator[None]:
    """Beat for ``shard`` every ``every`` seconds (``settings.SHARD_HEARTBEAT_EVERY``) in a thread while the block runs.

    Inside a transaction nobody else sees the shard running, so no thread is started: its UPDATE
    would wait for the transaction's row lock, and the shard cannot be requeued meanwhile anyway.
    """
    if connection.in_atomic_block:
        yield
        return
    stop = threading.Event()
    interval = settings.SHARD_HEARTBEAT_EVERY if every is None else every

    def beating() -> None:
        try:
            while not stop.wait(interval) and beat(shard):
                pass
        finally:
            connections.close_all()  # this thread's own connections only

    thread = threading.Thread(target=beating, name=f"heartbeat {shard}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=interval)


def release_shard(shard: Shard, error: str = "") -> bool:
    """Give a shard back (pending) after an error its task will retry; False if it was no longer running here."""
    return bool(
        type(shard)
        .objects.filter(pk=shard.pk, status=Shard.RUNNING, worker=shard.worker)
        .update(status=Shard.PENDING, error=error[:2000], heartbeat_at=None)
    )


def complete_shard(shard_model: type[Shard], shard_id: int, record: Callable[[Model, Shard, bool], None]) -> Completion:
    """Mark a shard done and add its result to the job, atomically; whether it was the last one.

    Under row locks of the job, then the shard: a shard done already records nothing (another
    delivery got there first), and a shard of a job finished meanwhile (cancelled) goes back to
    pending for a resume. Otherwise the shard is saved done and ``record(job, shard, last)`` adds
    its result to the job (and saves what it changes); ``last`` is true for the one shard that
    leaves none undone. An exception from ``record`` rolls everything back and propagates.
    """
    job_id = shard_model.objects.values_list(f"{shard_model.job_field}_id", flat=True).get(pk=shard_id)
    with transaction.atomic():
        job = job_model(shard_model).objects.select_for_update().get(pk=job_id)
        shard = shard_model.objects.select_for_update().get(pk=shard_id)
        if shard.status == Shard.DONE:
            return Completion(recorded=False, last=False)
        if job.status in FINISHED:
            shard_model.objects.filter(pk=shard_id).update(status=Shard.PENDING, heartbeat_at=None)
            return Completion(recorded=False, last=False)
        shard.status, shard.finished_at = Shard.DONE, timezone.now()
        shard.save(update_fields=["status", "finished_at"])
        last = not shard_model.objects.filter(**_of_job(shard_model, job_id)).exclude(status=Shard.DONE).exists()
        record(job, shard, last)
    return Completion(recorded=True, last=last)


def finish_job(job_model: type[Model], job_id: int, status: str, **fields) -> bool:
    """Move an unfinished job to ``status`` (done, failed, cancelled) with ``fields``; False if it had finished."""
    return bool(
        job_model.objects.filter(pk=job_id, status__in=UNFINISHED).update(
            status=status, finished_at=timezone.now(), **fields
        )
    )


def resume_job(
    shard_model: type[Shard], job_id: int, prepare: Callable[[Model], Iterable[str]] | None = None
) -> list[int]:
    """Put every shard of a job that is not done back to pending (attempts from zero) and reopen the job.

    The job is running when some shard is done, else queued; ``prepare(job)`` sets the job's own
    fields under the lock and returns their names. Returns the indices to compute again (for the
    app to enqueue). JobDone for a job that is done: its shards are never recomputed.
    """
    with transaction.atomic():
        job = job_model(shard_model).objects.select_for_update().get(pk=job_id)
        if job.status == JobStatus.DONE:
            raise JobDone(f"job #{job_id} is done")
        shards = shard_model.objects.filter(**_of_job(shard_model, job_id))
        pending = list(shards.exclude(status=Shard.DONE).order_by("index").values_list("index", flat=True))
        shards.filter(index__in=pending).update(
            status=Shard.PENDING, attempts=0, heartbeat_at=None, error="", enqueued_at=timezone.now()
        )
        job.status = JobStatus.RUNNING if shards.filter(status=Shard.DONE).exists() else JobStatus.QUEUED
        job.finished_at = None
        job.save(update_fields=["status", "finished_at", *(prepare(job) if prepare else ())])
    return pending


def stale_shards(shard_model: type[Shard]) -> QuerySet:
    """Running shards of unfinished jobs whose worker stopped beating more than SHARD_HEARTBEAT_TIMEOUT seconds ago."""
    return (
        shard_model.objects.filter(
            _stale_before(timezone.now()), **{f"{shard_model.job_field}__status__in": UNFINISHED}
        )
        .select_related(shard_model.job_field)
        .order_by(f"{shard_model.job_field}_id", "index")
    )


def requeue_stale(shard_model: type[Shard]) -> list[Shard]:
    """Put stale shards back to pending and return them, for the caller to enqueue; each at most once.

    The conditional UPDATE leaves a shard whose worker beat again meanwhile where it is, and a
    shard put back to pending is not stale any more: a second call before its message is consumed
    finds nothing, so the queue is not flooded with copies.
    """
    requeued = []
    for shard in stale_shards(shard_model):
        note = f"requeued: worker {shard.worker or '?'} gave no sign of life since {shard.heartbeat_at or shard.started_at}"
        if shard_model.objects.filter(_stale_before(timezone.now()), pk=shard.pk).update(
            status=Shard.PENDING, heartbeat_at=None, error=note[:2000], enqueued_at=timezone.now()
        ):
            requeued.append(shard)
    return requeued


def lost_shards(shard_model: type[Shard]) -> list[Shard]:
    """Pending shards whose message the broker may have lost, marked as sent again: the caller enqueues them.

    A broker restarted without persistence (or a flushed queue) forgets the messages of shards no worker
    has claimed: nothing would ever run them. A pending shard is taken for lost when its job is unfinished,
    its message was sent more than ``SHARD_QUEUE_TIMEOUT`` seconds ago, and no shard of its job was
    claimed, beat or finished within that time (a job whose workers make progress is only waiting its
    turn). The conditional UPDATE marks it sent now, so each is sent again at most once per timeout; a
    message delivered twice is harmless (``claim_shard``).
    """
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.SHARD_QUEUE_TIMEOUT)
    job = shard_model.job_field
    candidates = (
        shard_model.objects.filter(status=Shard.PENDING, enqueued_at__lt=cutoff, **{f"{job}__status__in": UNFINISHED})
        .select_related(job)
        .order_by(f"{job}_id", "index")
    )
    busy: dict[int, bool] = {}
    lost = []
    for shard in candidates:
        job_id = getattr(shard, f"{job}_id")
        if job_id not in busy:
            recent = Q(started_at__gte=cutoff) | Q(heartbeat_at__gte=cutoff) | Q(finished_at__gte=cutoff)
            busy[job_id] = shard_model.objects.filter(recent, **_of_job(shard_model, job_id)).exists()
        if busy[job_id]:
            continue
        if shard_model.objects.filter(pk=shard.pk, status=Shard.PENDING, enqueued_at__lt=cutoff).update(
            enqueued_at=now
        ):
            lost.append(shard)
    return lost
