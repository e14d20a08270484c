"""Frequencies of the compounds: from wordfreq, or counted in a corpus by Celery workers, with PMI.

A corpus count is a ``BuildJob`` cut into chunks of the file (``building.counts.corpus``), one task each
(``building.tasks.start_corpus_count`` creates the job here and enqueues its chunks).
Each chunk is a ``BuildShard`` coordinated by ``core.shards``: its counts are added to the job's
partial sums under a row lock, and the chunk that completes the job turns the sums into a
``FrequencyTable``. Re-sending a chunk that is done, or any chunk of a finished or cancelled job,
does nothing.

wordfreq (``fill_frequencies``) stays the default source; a table is only written to compounds
when someone applies it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from building.counts.corpus.counting import Counts, Targets, count_chunk, merge
from building.counts.corpus.readers import LocalFile, check_file, chunk_ranges, detect_format, is_gzip
from building.counts.frequency import SOURCE, compound_frequencies, corpus_measures, corpus_source
from building.jobs import create_shards, fail_build_job
from building.lexicon.base import LexiconUnavailable
from building.models import BuildJob, BuildShard, FrequencyTable
from building.storage import StoredFile, check_stored, source_of
from building.variants.resources import random_pool_entries
from core.shards import claim_or_fail, complete_shard, heartbeat, release_shard
from datasets.models import Compound

MAX_CHUNKS = 1024
GZIP_NOTE = "a .gz file cannot be split by byte offset, so it is counted as one chunk by one worker"


def fill_frequencies(collection: str, language: str, overwrite: bool = False) -> int:
    """Fill compound/modifier/head frequencies from wordfreq; returns how many compounds changed."""
    compounds = Compound.objects.filter(collection__slug=collection, language=language)
    if not overwrite:
        compounds = compounds.filter(frequency__isnull=True)
    changed = []
    for compound in compounds.only("id", "text", "modifier", "head", "language"):
        f = compound_frequencies(compound.text, compound.modifier, compound.head, compound.language)
        compound.frequency, compound.modifier_frequency, compound.head_frequency = f.compound, f.modifier, f.head
        compound.frequency_source = SOURCE
        # PMI under wordfreq's independence estimate is 0 by construction: it says nothing, so none is kept.
        compound.pmi = compound.ppmi = None
        changed.append(compound)
    with transaction.atomic():
        Compound.objects.bulk_update(
            changed,
            ["frequency", "modifier_frequency", "head_frequency", "frequency_source", "pmi", "ppmi"],
            batch_size=500,
        )
    return len(changed)


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
        try:
            entries = random_pool_entries(language)
        except (LexiconUnavailable, ValueError):
            entries = []  # no lexicon for this language: the compounds alone
        texts += [part for entry in entries for part in (entry, *entry.split())]
    return Targets.from_texts([*texts, *extra]).keys()


def create_corpus_count(
    corpus: str | Path | StoredFile,
    language: str,
    name: str,
    fmt: str | None = None,
    chunks: int = 8,
    collection: str | None = None,
    extra: Iterable[str] = (),
    user=None,
    pool: bool = True,
) -> BuildJob:
    """A corpus-count job cut into chunks of the file (``options["ranges"]``), not yet enqueued.

    ``corpus``: an upload in the storage (``building.storage.StoredFile``: the workers open it by
    name, on any machine) or a path on the server (read by each worker from its own disk).
    ``building.tasks.start_corpus_count`` creates it and enqueues one task per chunk. Raises
    ``CorpusError`` (a ValueError) for a missing or empty file or an unknown format.
    """
    if isinstance(corpus, StoredFile):
        source, where = check_stored(corpus), {"storage": corpus.name}
    else:
        path = check_file(Path(corpus).resolve())
        source, where = LocalFile(path), {"path": str(path)}
    fmt = detect_format(source, fmt)
    if not 1 <= chunks <= MAX_CHUNKS:
        raise ValueError(f"chunks must be between 1 and {MAX_CHUNKS}")
    ranges = chunk_ranges(source, fmt, chunks)
    gzip = is_gzip(source)
    targets = corpus_targets(language, collection, extra, pool=pool)
    name_shown = Path(source.name).name
    message = f"Queued: {len(ranges)} chunk{'s' if len(ranges) != 1 else ''} of {name_shown}, {len(targets)} targets"
    if gzip:
        message += f" ({GZIP_NOTE})"
    with transaction.atomic():
        job = BuildJob.objects.create(
            kind=BuildJob.Kind.COUNT_CORPUS,
            language=language,
            options={
                "name": name,
                **where,
                "format": fmt,
                "bytes": source.size(),
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
        create_shards(job, len(ranges))
    return job


def count_corpus_chunk(job_id: int, index: int) -> bool:
    """Count one chunk of a job and record it; False when there was nothing to do.

    A delivery that cannot claim the chunk (done, being counted by a worker that still beats, or
    of a finished job: ``core.shards.claim_shard``) does nothing. ``OSError`` gives the chunk back
    and propagates (the task retries it); any other error fails the job.
    """
    shard = claim_or_fail(BuildShard, job_id, index, fail_build_job)
    if shard is None:
        return False
    options = BuildJob.objects.values_list("options", flat=True).get(pk=job_id)
    start, end = options["ranges"][index]
    try:
        with heartbeat(shard):
            counts = count_chunk(
                source_of(options), options["format"], Targets.from_texts(options["targets"]), start, end
            )
    except OSError as exc:
        release_shard(shard, f"{type(exc).__name__}: {exc}")
        raise
    except Exception as exc:
        fail_build_job(job_id, f"chunk {index + 1}: {type(exc).__name__}: {exc}")
        raise
    return record_chunk(job_id, index, counts)


def record_chunk(job_id: int, index: int, counts: Counts) -> bool:
    """Add a chunk's counts to the job's partial sums (``core.shards.complete_shard``); the last chunk creates the table.

    Idempotent: a chunk done already, or a chunk of a finished job, adds nothing.
    """

    def record(job: BuildJob, shard: BuildShard, last: bool) -> None:
        partial = merge([Counts.from_dict(job.result.get("_partial", {})), counts])
        job.done_parts = sorted([*job.done_parts, index])
        job.done = len(job.done_parts)
        job.status = BuildJob.Status.RUNNING
        job.started_at = job.started_at or timezone.now()
        job.result = {
            "tokens": partial.tokens,
            "targets_found": len(partial.counts),
            "_partial": partial.as_dict(),
        }
        job.message = f"Counted {job.done} of {job.total} chunks ({partial.tokens:,} tokens so far)"
        if last:
            finish_corpus_count(job)
        job.save()

    shard_id = BuildShard.objects.values_list("pk", flat=True).get(job_id=job_id, index=index)
    return complete_shard(BuildShard, shard_id, record).recorded


def finish_corpus_count(job: BuildJob) -> FrequencyTable:
    """Turn a job's summed counts into a ``FrequencyTable`` and mark the job done (the caller saves the job)."""
    if table := FrequencyTable.objects.filter(job=job).first():
        return table
    counts = Counts.from_dict(job.result.get("_partial", {}))
    options = job.options
    table = FrequencyTable.objects.create(
        name=options["name"],
        language=job.language,
        source=FrequencyTable.Source.CORPUS,
        corpus_path=options.get("path") or options.get("storage", ""),
        corpus_format=options["format"],
        corpus_bytes=options["bytes"],
        tokens=counts.tokens,
        counts=counts.counts,
        job=job,
    )
    job.status, job.finished_at = BuildJob.Status.DONE, timezone.now()
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
