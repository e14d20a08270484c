"""Actions any BuildJob shares, whatever its kind (variant generation, corpus counting).

Each part of a job is a ``BuildShard`` that ``core.shards`` claims, beats for, completes and
requeues; the kinds say what a part computes and what the job keeps of it.
"""

from __future__ import annotations

from building.models import BuildJob, BuildShard
from core.shards import JobDone, finish_job, resume_job


class BuildJobDone(ValueError):
    """A job that is done cannot be resumed: start a new one."""


def create_shards(job: BuildJob, parts: int) -> None:
    """The job's parts, pending, one row each."""
    BuildShard.objects.bulk_create([BuildShard(job=job, index=index) for index in range(parts)])


def fail_build_job(job_id: int, message: str) -> bool:
    """Mark a job failed with a message, unless it already finished (or was cancelled)."""
    return finish_job(BuildJob, job_id, BuildJob.Status.FAILED, message=message[:2000])


def cancel_build_job(job_id: int) -> bool:
    """Stop a queued or running job: its remaining tasks exit without work."""
    return finish_job(BuildJob, job_id, BuildJob.Status.CANCELLED, message="Cancelled")


def resume_build_job(job_id: int) -> list[int]:
    """Put the parts of a cancelled, failed or stalled job that are not done back to pending; their indices.

    Parts done are never computed again. ``building.tasks.resume_build_job_task`` enqueues them.
    BuildJobDone for a job that is done.
    """

    def reopen(job: BuildJob) -> list[str]:
        job.message = "Resumed"
        return ["message"]

    try:
        return resume_job(BuildShard, job_id, reopen)
    except JobDone:
        raise BuildJobDone(f"build job #{job_id} is done: start a new job") from None
