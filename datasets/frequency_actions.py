"""Counting a corpus with Celery workers, and writing its frequencies and PMI to the compounds.

A corpus count is a ``BuildJob`` cut into chunks of the file (``datasets.corpus``), one task each.
Each chunk's counts are added to the job's partial sums under a row lock; the chunk that
completes the job turns the sums into a ``FrequencyTable``. Re-sending a chunk that is done,
or any chunk of a finished or cancelled job, does nothing.

wordfreq (``datasets.actions.fill_frequencies``) stays the default source; a table is only
written to compounds when someone applies it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from datasets.build_jobs import fail_build_job
from datasets.corpus.counting import Counts, Targets, count_chunk, merge
from datasets.corpus.readers import check_file, chunk_ranges, detect_format, is_gzip
from datasets.frequency import corpus_measures, corpus_source
from datasets.models import BuildJob, Compound, FrequencyTable

MAX_CHUNKS = 1024
GZIP_NOTE = "a .gz file cannot be split by byte offset, so it is counted as one chunk by one worker"


def corpus_targets(
    language: str, collection: str | None = None, extra: Iterable[str] = (), pool: bool = True
) -> list[str]:
    """The count keys for a language's compounds (texts, modifiers, heads) and any extra words or n-grams.

    With ``pool``, the default NC_Rand candidates (the lexicon's two-word entries) and their
    words are counted too, so that random compounds are matched on the same corpus.
    """
    compounds = Compound.objects.filter(language=language)
    if collection:
        compounds = compounds.filter(collection__slug=collection)
    texts = [part for row in compounds.values_list("text", "modifier", "head") for part in row]
    if pool:
        from datasets.generation_resources import random_pool_entries
        from datasets.lexicon.base import LexiconUnavailable

        try:
            entries = random_pool_entries(language)
        except (LexiconUnavailable, ValueError):
            entries = []  # no lexicon for this language: the compounds alone
        texts += [part for entry in entries for part in (entry, *entry.split())]
    return Targets.from_texts([*texts, *extra]).keys()


def start_corpus_count(
    path: str | Path,
    language: str,
    name: str,
    fmt: str | None = None,
    chunks: int = 8,
    collection: str | None = None,
    extra: Iterable[str] = (),
    user=None,
    pool: bool = True,
) -> BuildJob:
    """Create a corpus-count job and enqueue one task per chunk once the job is committed.

    Raises ``CorpusError`` (a ValueError) for a missing or empty file or an unknown format.
    """
    from datasets.tasks import count_corpus_chunk_task

    path = check_file(Path(path).resolve())
    fmt = detect_format(path, fmt)
    if not 1 <= chunks <= MAX_CHUNKS:
        raise ValueError(f"chunks must be between 1 and {MAX_CHUNKS}")
    ranges = chunk_ranges(path, fmt, chunks)
    gzip = is_gzip(path)
    targets = corpus_targets(language, collection, extra, pool=pool)
    message = f"Queued: {len(ranges)} chunk{'s' if len(ranges) != 1 else ''} of {path.name}, {len(targets)} targets"
    if gzip:
        message += f" ({GZIP_NOTE})"
    job = BuildJob.objects.create(
        kind=BuildJob.COUNT_CORPUS,
        language=language,
        options={
            "name": name,
            "path": str(path),
            "format": fmt,
            "bytes": os.path.getsize(path),
            "gzip": gzip,
            "chunks_asked": chunks,
            "ranges": ranges,
            "collection": collection or "",
            "targets": targets,
        },
        total=len(ranges),
        created_by=user if user is not None and user.is_authenticated else None,
        message=message,
    )
    transaction.on_commit(lambda: [count_corpus_chunk_task.delay(job.pk, i) for i in range(len(ranges))])
    return job


def count_corpus_chunk(job_id: int, index: int) -> bool:
    """Count one chunk of a job and record it; False when there was nothing to do.

    ``OSError`` propagates (the task retries it); any other error fails the job.
    """
    job = BuildJob.objects.get(pk=job_id)
    if job.is_finished or index in job.done_parts:
        return False
    BuildJob.objects.filter(pk=job_id, status=BuildJob.QUEUED).update(
        status=BuildJob.RUNNING, started_at=timezone.now()
    )
    options = job.options
    start, end = options["ranges"][index]
    try:
        counts = count_chunk(options["path"], options["format"], Targets.from_texts(options["targets"]), start, end)
    except OSError:
        raise
    except Exception as exc:
        fail_build_job(job_id, f"chunk {index + 1}: {type(exc).__name__}: {exc}")
        raise
    return record_chunk(job_id, index, counts)


def record_chunk(job_id: int, index: int, counts: Counts) -> bool:
    """Add a chunk's counts to the job's partial sums; the last chunk creates the table. Idempotent."""
    with transaction.atomic():
        job = BuildJob.objects.select_for_update().get(pk=job_id)
        if job.is_finished or index in job.done_parts:
            return False  # another worker got there first, or the job was cancelled
        partial = merge([Counts.from_dict(job.result.get("_partial", {})), counts])
        job.done_parts = sorted([*job.done_parts, index])
        job.done = len(job.done_parts)
        job.status = BuildJob.RUNNING
        job.started_at = job.started_at or timezone.now()
        job.result = {
            "tokens": partial.tokens,
            "targets_found": len(partial.counts),
            "_partial": partial.as_dict(),
        }
        job.message = f"Counted {job.done} of {job.total} chunks ({partial.tokens:,} tokens so far)"
        if job.done >= job.total:
            finish_corpus_count(job)
        job.save()
    return True


def finish_corpus_count(job: BuildJob) -> FrequencyTable:
    """Turn a job's summed counts into a ``FrequencyTable`` and mark the job done (the caller saves the job)."""
    if table := FrequencyTable.objects.filter(job=job).first():
        return table
    counts = Counts.from_dict(job.result.get("_partial", {}))
    options = job.options
    table = FrequencyTable.objects.create(
        name=options["name"],
        language=job.language,
        source=FrequencyTable.CORPUS,
        corpus_path=options["path"],
        corpus_format=options["format"],
        corpus_bytes=options["bytes"],
        tokens=counts.tokens,
        counts=counts.counts,
        job=job,
    )
    job.status, job.finished_at = BuildJob.DONE, timezone.now()
    job.result = {
        "table": table.pk,
        "tokens": counts.tokens,
        "targets": len(options["targets"]),
        "targets_found": len(counts.counts),
    }
    job.message = f"Done: {counts.tokens:,} tokens, {len(counts.counts)} of {len(options['targets'])} targets found"
    return table


def apply_frequency_table(table: FrequencyTable, collection: str | None = None) -> int:
    """Write the table's frequencies (per million), PMI and PPMI to its language's compounds; returns how many."""
    compounds = Compound.objects.filter(language=table.language)
    if collection:
        compounds = compounds.filter(collection__slug=collection)
    source = corpus_source(table.name, table.tokens)
    changed = []
    for compound in compounds.only("id", "text", "modifier", "head"):
        measures = corpus_measures(table.counts, table.tokens, compound.text, compound.modifier, compound.head)
        compound.frequency = measures.compound
        compound.modifier_frequency = measures.modifier
        compound.head_frequency = measures.head
        compound.pmi, compound.ppmi = measures.pmi, measures.ppmi
        compound.frequency_source = source
        changed.append(compound)
    fields = ["frequency", "modifier_frequency", "head_frequency", "pmi", "ppmi", "frequency_source"]
    with transaction.atomic():
        Compound.objects.bulk_update(changed, fields, batch_size=500)
    return len(changed)
