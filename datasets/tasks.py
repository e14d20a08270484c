from celery import shared_task

from datasets.actions import fill_frequencies


@shared_task(acks_late=True, autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=3)
def fill_frequencies_task(collection: str, language: str, overwrite: bool = False) -> int:
    """Fill wordfreq frequencies for a collection's compounds in one language (idempotent)."""
    return fill_frequencies(collection, language, overwrite=overwrite)
