"""The shard of a sharded job, as an abstract model each job's app makes concrete.

Abstract rather than one shared table: each job keeps a real foreign key to its shards (probe runs
to ``ProbeShard``, building jobs to ``BuildShard``), each app adds the columns its parts need (a
probe shard's compounds, plan and result), and the rows made before the coordinator existed stay
in the tables they are in. ``core.shards`` coordinates any concrete subclass.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone


class JobStatus(models.TextChoices):
    """The states of a job cut into shards: the values ``ProbeRun`` and ``BuildJob`` store."""

    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


UNFINISHED = (JobStatus.QUEUED, JobStatus.RUNNING)
FINISHED = (JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED)


class JobRecord(models.Model):
    """Who asked for a job and when it started and finished: the columns every job row shares (abstract)."""

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def is_finished(self) -> bool:
        return getattr(self, "status", None) in FINISHED


class ShardStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class Shard(models.Model):
    """One independently computed part of a job: who runs it, since when, and when it last gave a sign of life.

    A subclass adds a foreign key to its job named ``job_field`` (whose model has ``status``,
    ``started_at`` and ``finished_at`` with ``JobStatus`` values).
    """

    PENDING, RUNNING, DONE, FAILED = ShardStatus.values
    job_field: ClassVar[str] = "job"

    index = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=ShardStatus.choices, default=ShardStatus.PENDING, db_index=True)
    attempts = models.PositiveIntegerField(default=0, help_text="Times a worker claimed it.")
    worker = models.CharField(max_length=200, blank=True, help_text="The host and process that claimed it last.")
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Last sign of life of its worker while running."
    )
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    enqueued_at = models.DateTimeField(
        default=timezone.now, help_text="When its message was last sent: a pending shard waits for it since then."
    )

    class Meta:
        abstract = True
