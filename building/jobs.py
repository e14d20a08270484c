"""Actions any BuildJob shares, whatever its kind (variant generation, corpus counting)."""

from __future__ import annotations

from django.utils import timezone

from building.models import BuildJob


def fail_build_job(job_id: int, message: str) -> bool:
    """Mark a job failed with a message, unless it already finished (or was cancelled)."""
    updated = BuildJob.objects.filter(pk=job_id, status__in=[BuildJob.Status.QUEUED, BuildJob.Status.RUNNING]).update(
        status=BuildJob.Status.FAILED, message=message[:2000], finished_at=timezone.now()
    )
    return bool(updated)


def cancel_build_job(job_id: int) -> bool:
    """Stop a queued or running job: its remaining tasks exit without work."""
    updated = BuildJob.objects.filter(pk=job_id, status__in=[BuildJob.Status.QUEUED, BuildJob.Status.RUNNING]).update(
        status=BuildJob.Status.CANCELLED, message="Cancelled", finished_at=timezone.now()
    )
    return bool(updated)
