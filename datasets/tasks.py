from celery import shared_task

from datasets.actions import fill_frequencies


@shared_task(acks_late=True, autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=3)
def fill_frequencies_task(collection: str, language: str, overwrite: bool = False) -> int:
    """Fill wordfreq frequencies for a collection's compounds in one language (idempotent)."""
    return fill_frequencies(collection, language, overwrite=overwrite)


@shared_task(acks_late=True, autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=3)
def generate_variants_batch_task(job_id: int, index: int) -> bool:
    """Generate one batch of compounds of a generation job (a batch already done is skipped)."""
    from datasets.generation_jobs import run_generation_batch

    return run_generation_batch(job_id, index)
