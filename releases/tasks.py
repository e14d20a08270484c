"""Celery: the task that builds a release for the release form, and the function that starts it.

The only module of the app that knows Celery; the work is in ``releases.jobs``.
"""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

from releases.jobs import create_release_job, run_release_job
from releases.models import ReleaseJob


@shared_task(acks_late=True, reject_on_worker_lost=True)
def build_release_task(job_id: int) -> str:
    return run_release_job(job_id)


def start_release_job(version: str, options: dict, user=None, publish_next: bool = False) -> ReleaseJob:
    """Check and record the job, then hand it to a worker once the transaction commits; ReleaseError at once."""
    job = create_release_job(version, options, user=user, publish_next=publish_next)
    transaction.on_commit(lambda: build_release_task.delay(job.pk))
    return job
