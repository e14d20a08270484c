"""Release jobs: the release form's request, checked at once and built by a worker (every write to a ReleaseJob).

``create_release_job`` checks what ``create_release`` would refuse before building anything
(``check_release``: the version, the collections, the campaigns, the policy, an empty or ambiguous
selection) and records the job; ``run_release_job`` builds the release. The build and the job's
"done" are one transaction, so a worker that dies half-way leaves no release and a job that a
second delivery of the task builds from the start; a finished job is never built twice.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from core.shards import finish_job
from releases.actions import check_release, create_release
from releases.models import ReleaseError, ReleaseJob

CREATE_OPTIONS = (
    "languages",
    "collections",
    "campaigns",
    "policy",
    "title",
    "description",
    "citation",
    "machine_annotators",
    "creators",
    "intended_use",
    "limitations",
    "biases",
)


def create_release_job(version: str, options: dict, user=None, publish_next: bool = False) -> ReleaseJob:
    """A queued job for release ``version`` (``options``: create_release's keywords); ReleaseError at once when refused."""
    if unknown := set(options) - set(CREATE_OPTIONS):
        raise ValueError(f"not a release option: {', '.join(sorted(unknown))}")
    check_release(
        version,
        options.get("languages"),
        collections=options.get("collections"),
        campaigns=options.get("campaigns"),
        policy=options.get("policy"),
        machine_annotators=bool(options.get("machine_annotators")),
    )
    return ReleaseJob.objects.create(version=version, options=options, publish_next=publish_next, created_by=user)


def run_release_job(job_id: int) -> str:
    """Build the job's release, unless the job has finished; the job's status afterwards."""
    ReleaseJob.objects.filter(pk=job_id, status=ReleaseJob.Status.QUEUED).update(
        status=ReleaseJob.Status.RUNNING, started_at=timezone.now()
    )
    job = ReleaseJob.objects.get(pk=job_id)
    if job.is_finished:
        return job.status
    try:
        with transaction.atomic():
            create_release(job.version, user=job.created_by, **job.options)
            finish_job(ReleaseJob, job_id, ReleaseJob.Status.DONE)
    except ReleaseError as error:
        finish_job(ReleaseJob, job_id, ReleaseJob.Status.FAILED, message=str(error)[:2000])
    except Exception as error:
        finish_job(ReleaseJob, job_id, ReleaseJob.Status.FAILED, message=f"{type(error).__name__}: {error}"[:2000])
        raise
    return ReleaseJob.objects.values_list("status", flat=True).get(pk=job_id)
