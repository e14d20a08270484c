"""Variant generation as a job: batches of compounds, progress, idempotent batches.

``building.tasks.start_generation_job`` creates the job here and enqueues one task per batch.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from building.generation import generate_variants
from building.generation_resources import GenerationOptions
from building.jobs import fail_build_job
from building.models import BuildJob
from datasets.models import Compound

BATCH = 20  # compounds per task: small enough to spread over workers, large enough to amortise


def create_generation_job(
    compounds: Iterable[Compound], options: GenerationOptions | None = None, user=None, batch: int = BATCH
) -> BuildJob:
    """A BuildJob cut into batches of compounds (``options["parts"]``), not yet enqueued; done at once when empty."""
    options = options or GenerationOptions()
    ids = [c.pk for c in compounds]
    languages = sorted({c.language for c in Compound.objects.filter(pk__in=ids)})
    parts = (len(ids) + batch - 1) // batch
    job = BuildJob.objects.create(
        kind=BuildJob.Kind.GENERATE_VARIANTS,
        language=",".join(languages),
        options={**options.as_dict(), "compound_ids": ids, "batch": batch, "parts": parts},
        total=len(ids),
        created_by=user if user is not None and user.is_authenticated else None,
        message=f"{len(ids)} compounds in {parts} batches",
    )
    if not ids:
        BuildJob.objects.filter(pk=job.pk).update(status=BuildJob.Status.DONE, finished_at=timezone.now())
        job.refresh_from_db()
        return job
    return job


def run_generation_batch(job_id: int, index: int) -> bool:
    """Generate one batch of a job; a batch already done, or a finished job, is left alone."""
    job = BuildJob.objects.get(pk=job_id)
    if job.is_finished or index in job.done_parts:
        return False
    BuildJob.objects.filter(pk=job_id, status=BuildJob.Status.QUEUED).update(
        status=BuildJob.Status.RUNNING, started_at=timezone.now()
    )
    batch = job.options["batch"]
    ids = job.options["compound_ids"][index * batch : (index + 1) * batch]
    try:
        summary = generate_variants(
            Compound.objects.filter(pk__in=ids).order_by("pk"), GenerationOptions.from_dict(job.options)
        )
    except Exception as exc:
        fail_build_job(job_id, f"batch {index}: {type(exc).__name__}: {exc}")
        raise
    with transaction.atomic():
        job = BuildJob.objects.select_for_update().get(pk=job_id)
        if index in job.done_parts or job.is_finished:
            return False  # another worker got there first
        job.done_parts = sorted([*job.done_parts, index])
        job.done += len(ids)
        totals = job.result or {}
        for name, value in summary.as_dict().items():
            if isinstance(value, int):
                totals[name] = totals.get(name, 0) + value
        totals["notes"] = totals.get("notes", 0) + len(summary.notes)
        job.result = totals
        if len(job.done_parts) >= job.options["parts"]:
            job.status, job.finished_at = BuildJob.Status.DONE, timezone.now()
            job.message = f"{job.done} compounds: {totals.get('created', 0)} variants created"
        job.save(update_fields=["done_parts", "done", "result", "status", "finished_at", "message"])
    return True
