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


@shared_task(bind=True, acks_late=True, max_retries=4)
def count_corpus_chunk_task(self, job_id: int, index: int) -> bool:
    """Count one chunk of a corpus-count job; a chunk already done, or a finished job, is skipped.

    A read error (file on a network mount, say) is retried with backoff; when the retries run out
    the job is marked failed.
    """
    from datasets.build_jobs import fail_build_job
    from datasets.frequency_actions import count_corpus_chunk

    try:
        return count_corpus_chunk(job_id, index)
    except OSError as exc:
        if self.request.retries >= self.max_retries:
            fail_build_job(job_id, f"chunk {index + 1}: {type(exc).__name__}: {exc}")
            raise
        raise self.retry(exc=exc, countdown=2**self.request.retries) from exc
