"""Counting a corpus as a Celery job: chunks, progress, the frequency table, applying it, failures.

The corpus repeats three lines 30 times (600 tokens) so that hand-worked values are easy:
"eager" 60, "beaver" 60, "eager beaver" 30 -> PMI = log2(30 * 600 / (60 * 60)) = log2(5).
"""

from __future__ import annotations

import gzip
import math
import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from building.counts.actions import (
    apply_frequency_table,
    count_corpus_chunk,
)
from building.counts.corpus.readers import CorpusError
from building.counts.frequency import SOURCE
from building.jobs import BuildJobDone, cancel_build_job
from building.models import BuildJob, BuildShard, FrequencyTable
from building.tasks import (
    count_corpus_chunk_task,
    requeue_stale_build_shards_task,
    resume_building_job,
    start_corpus_count,
)
from datasets.models import Compound
from tests.datasets.factories import make_compound

pytestmark = pytest.mark.django_db

LINES = "An eager beaver ate olive oil.\nThe beaver and the eager dog.\nOlive oil, olive oil!\n"
CORPUS = LINES * 30  # 20 tokens a round


@pytest.fixture
def inline_worker(monkeypatch):
    """Chunk tasks run in the caller's process as soon as they are enqueued.

    Not ``task_always_eager`` nor ``Task.apply``: both leave the app holding a producer or result
    backend for the default broker, which later tests through Redis would then use.
    """
    monkeypatch.setattr(count_corpus_chunk_task, "delay", lambda *args: count_corpus_chunk_task(*args))


@pytest.fixture
def compounds():
    return {
        "beaver": make_compound("eager beaver"),
        "olive": make_compound("olive oil"),
        "hot": make_compound("hot dog"),
        "guarda": make_compound("guarda chuva", language="pt"),
    }


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS)
    return path


def test_a_corpus_count_runs_chunk_by_chunk_into_a_frequency_table(
    inline_worker, compounds, corpus, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        job = start_corpus_count(corpus, "en", "Toy corpus", chunks=4, pool=False)
    assert len(callbacks) == 1
    job.refresh_from_db()
    assert (job.kind, job.status, job.done, job.total, job.progress) == (
        BuildJob.Kind.COUNT_CORPUS,
        BuildJob.Status.DONE,
        4,
        4,
        1,
    )
    assert job.options["format"] == "text" and len(job.options["ranges"]) == 4
    table = FrequencyTable.objects.get(job=job)
    assert (table.name, table.language, table.tokens, table.corpus_format) == ("Toy corpus", "en", 600, "text")
    assert table.corpus_bytes == len(CORPUS)
    assert table.counts == {
        "eager": 60,
        "beaver": 60,
        "eager beaver": 30,
        "olive": 90,
        "oil": 90,
        "olive oil": 90,
        "dog": 30,
    }
    assert job.result == {"table": table.pk, "tokens": 600, "targets": 9, "targets_found": 7}
    assert job.started_at and job.finished_at and "600 tokens" in job.message


def test_applying_a_table_writes_frequencies_and_pmi_for_its_language(compounds, corpus):
    table = FrequencyTable.objects.create(
        name="Toy corpus", language="en", tokens=600, counts={"eager": 60, "beaver": 60, "eager beaver": 30, "dog": 30}
    )
    assert apply_frequency_table(table) == 3
    beaver = Compound.objects.get(pk=compounds["beaver"].pk)
    assert beaver.frequency == 50_000.0  # 30 in 600 tokens
    assert beaver.modifier_frequency == beaver.head_frequency == 100_000.0
    assert beaver.pmi == pytest.approx(math.log2(5)) and beaver.ppmi == pytest.approx(math.log2(5))
    assert beaver.frequency_source == "corpus Toy corpus (600 tokens)"
    hot = Compound.objects.get(pk=compounds["hot"].pk)  # "hot" and "hot dog" never seen
    assert (hot.frequency, hot.modifier_frequency, hot.head_frequency) == (0.0, 0.0, 50_000.0)
    assert hot.pmi is None and hot.ppmi is None
    guarda = Compound.objects.get(pk=compounds["guarda"].pk)
    assert guarda.frequency is None and guarda.frequency_source == ""


def test_applying_to_one_collection_leaves_the_others(compounds):
    other = make_compound("eager beaver", collection="other")
    table = FrequencyTable.objects.create(name="T", language="en", tokens=10, counts={"eager beaver": 1})
    assert apply_frequency_table(table, collection="other") == 1
    assert Compound.objects.get(pk=other.pk).frequency == 100_000.0
    assert Compound.objects.get(pk=compounds["beaver"].pk).frequency is None


def test_wordfreq_stays_the_default_and_says_its_compound_value_is_an_estimate():
    assert "estimate" in SOURCE


def test_chunks_report_progress_and_a_repeated_chunk_does_nothing(compounds, corpus):
    job = start_corpus_count(corpus, "en", "Toy", chunks=3, pool=False)  # no on_commit here: nothing enqueued
    assert job.status == BuildJob.Status.QUEUED and job.total == 3
    assert count_corpus_chunk(job.pk, 1) is True
    assert count_corpus_chunk(job.pk, 1) is False
    job.refresh_from_db()
    assert (job.status, job.done, job.done_parts) == (BuildJob.Status.RUNNING, 1, [1])
    assert job.progress == pytest.approx(1 / 3) and "1 of 3 chunks" in job.message
    assert count_corpus_chunk_task(job.pk, 0) is True  # the task, called directly
    assert count_corpus_chunk_task(job.pk, 2) is True
    job.refresh_from_db()
    assert job.status == BuildJob.Status.DONE and sorted(job.done_parts) == [0, 1, 2]
    table = FrequencyTable.objects.get(job=job)
    assert table.tokens == 600
    # A chunk task re-sent after the end (a worker restarting, say) changes nothing.
    assert count_corpus_chunk_task(job.pk, 2) is False
    assert FrequencyTable.objects.filter(job=job).count() == 1
    assert FrequencyTable.objects.get(job=job).counts == table.counts


def test_a_chunk_left_running_by_a_killed_worker_is_requeued_and_counted_once(
    inline_worker, compounds, corpus, settings
):
    job = start_corpus_count(corpus, "en", "Toy", chunks=3, pool=False)
    assert count_corpus_chunk(job.pk, 0) is True and count_corpus_chunk(job.pk, 2) is True
    killed_at = timezone.now() - timedelta(seconds=settings.SHARD_HEARTBEAT_TIMEOUT + 1)
    job.shards.filter(index=1).update(status=BuildShard.RUNNING, attempts=1, worker="killed:1", heartbeat_at=killed_at)
    assert count_corpus_chunk_task(job.pk, 1) is True  # a late redelivery takes over a silent chunk
    assert count_corpus_chunk_task(job.pk, 1) is False
    table = FrequencyTable.objects.get(job=job)
    assert table.tokens == 600 and table.counts["eager beaver"] == 30  # each chunk counted once

    second = start_corpus_count(corpus, "en", "Toy", chunks=3, pool=False)
    for index in (0, 2):
        count_corpus_chunk(second.pk, index)
    second.shards.filter(index=1).update(status=BuildShard.RUNNING, worker="killed:1", heartbeat_at=killed_at)
    assert requeue_stale_build_shards_task() == [[second.pk, 1]]  # enqueued, and counted by the inline worker
    second.refresh_from_db()
    assert second.status == BuildJob.Status.DONE and second.done_parts == [0, 1, 2]
    assert FrequencyTable.objects.get(job=second).counts == table.counts


def test_a_cancelled_job_resumes_with_its_remaining_chunks_only(
    inline_worker, compounds, corpus, django_capture_on_commit_callbacks
):
    job = start_corpus_count(corpus, "en", "Toy", chunks=3, pool=False)
    assert count_corpus_chunk(job.pk, 1) is True
    assert cancel_build_job(job.pk)
    counted_at = job.shards.get(index=1).finished_at
    with django_capture_on_commit_callbacks(execute=True):
        assert resume_building_job(job) == [0, 2]
    job.refresh_from_db()
    assert job.status == BuildJob.Status.DONE and job.done_parts == [0, 1, 2]
    assert job.shards.get(index=1).finished_at == counted_at and job.shards.get(index=1).attempts == 1
    assert FrequencyTable.objects.get(job=job).tokens == 600
    with pytest.raises(BuildJobDone):
        resume_building_job(job)


def test_a_cancelled_job_leaves_its_remaining_chunks_undone(compounds, corpus):
    job = start_corpus_count(corpus, "en", "Toy", chunks=3, pool=False)
    count_corpus_chunk(job.pk, 0)
    assert cancel_build_job(job.pk) is True
    assert count_corpus_chunk(job.pk, 1) is False
    job.refresh_from_db()
    assert (job.status, job.done) == (BuildJob.Status.CANCELLED, 1)
    assert not FrequencyTable.objects.filter(job=job).exists()
    assert cancel_build_job(job.pk) is False


@pytest.mark.django_db(transaction=True)
def test_a_chunk_whose_file_vanished_fails_the_job_after_retries(monkeypatch, compounds, corpus):
    monkeypatch.setattr(count_corpus_chunk_task, "delay", lambda *args: None)  # no worker
    job = start_corpus_count(corpus, "en", "Toy", chunks=2, pool=False)
    corpus.unlink()
    results = []

    def worker() -> None:
        # Task.apply retries at once, as a worker would after the backoff. In a thread of its own,
        # so that the result backend it sets up is not left to the tests that follow.
        try:
            results.append(count_corpus_chunk_task.apply(args=(job.pk, 0)))
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(timeout=60)
    assert results and results[0].failed()
    job.refresh_from_db()
    assert job.status == BuildJob.Status.FAILED and job.finished_at
    assert job.message.startswith("chunk 1: FileNotFoundError")
    assert count_corpus_chunk(job.pk, 1) is False  # the other chunk exits without work


def test_an_error_in_a_chunk_fails_the_job_at_once(compounds, corpus):
    job = start_corpus_count(corpus, "en", "Toy", chunks=2, pool=False)
    BuildJob.objects.filter(pk=job.pk).update(options={**job.options, "format": "tsv"})
    with pytest.raises(CorpusError):
        count_corpus_chunk(job.pk, 0)
    job.refresh_from_db()
    assert job.status == BuildJob.Status.FAILED
    assert job.message == "chunk 1: CorpusError: unknown corpus format 'tsv': use one of text, conll, vertical"


def test_a_gzip_corpus_is_one_chunk_and_the_job_says_why(
    inline_worker, compounds, tmp_path, django_capture_on_commit_callbacks
):
    path = tmp_path / "corpus.txt.gz"
    with gzip.open(path, "wt") as f:
        f.write(CORPUS)
    with django_capture_on_commit_callbacks(execute=True):
        job = start_corpus_count(path, "en", "Packed", chunks=8, pool=False)
    assert job.total == 1 and ".gz file cannot be split" in job.message
    job.refresh_from_db()
    assert job.status == BuildJob.Status.DONE
    assert FrequencyTable.objects.get(job=job).counts["eager beaver"] == 30


def test_extra_words_are_counted_too(compounds, corpus):
    job = start_corpus_count(corpus, "en", "Toy", chunks=1, extra=["Ate", "the dog"], pool=False)
    assert {"ate", "the dog"} <= set(job.options["targets"])
    count_corpus_chunk(job.pk, 0)
    counts = FrequencyTable.objects.get(job=job).counts
    assert counts["ate"] == 30 and "the dog" not in counts  # "the eager dog", never "the dog"


def test_a_missing_file_or_an_unknown_format_is_refused_before_any_job(tmp_path, corpus):
    with pytest.raises(CorpusError, match="no corpus file"):
        start_corpus_count(tmp_path / "nope.txt", "en", "x", pool=False)
    with pytest.raises(CorpusError, match="unknown corpus format"):
        start_corpus_count(corpus, "en", "x", fmt="pdf", pool=False)
    assert not BuildJob.objects.exists()


# --- the command -----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_command_counts_waits_and_applies(inline_worker, compounds, corpus):
    out, err = StringIO(), StringIO()
    call_command(
        "count_corpus",
        "--language=en",
        f"--corpus={corpus}",
        "--chunks=3",
        "--name=Toy",
        "--no-pool",
        "--wait",
        "--apply",
        stdout=out,
        stderr=err,
    )
    table = FrequencyTable.objects.get()
    assert f"Frequency table {table.pk} 'Toy' (en): 600 tokens, 7 of 9 targets found" in out.getvalue()
    assert "Frequencies and PMI written to 3 compounds" in out.getvalue()
    assert "done: 3/3 chunks (100%)" in err.getvalue()
    assert Compound.objects.get(pk=compounds["beaver"].pk).pmi == pytest.approx(math.log2(5))


def test_the_command_gives_up_waiting_when_no_worker_comes(compounds, corpus):
    err = StringIO()
    with pytest.raises(CommandError, match="still queued after 0.5 s: are Celery workers running"):
        call_command("count_corpus", "--language=en", f"--corpus={corpus}", "--wait", "--timeout=0.5", stderr=err)
    assert "queued: 0/8 chunks (0%)" in err.getvalue()


def test_the_command_without_wait_only_queues(compounds, corpus):
    out = StringIO()
    call_command("count_corpus", "--language=en", f"--corpus={corpus}", stdout=out, stderr=StringIO())
    job = BuildJob.objects.get()
    assert f"Job {job.pk} queued" in out.getvalue() and job.status == BuildJob.Status.QUEUED


@pytest.mark.parametrize(
    "arguments,message",
    [
        (["--corpus=/no/such/corpus.txt"], "no corpus file at /no/such/corpus.txt"),
        (["--format=pdf"], "unknown corpus format 'pdf'"),
        (["--chunks=0"], "chunks must be between 1 and"),
    ],
)
def test_the_command_explains_bad_input(corpus, arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("count_corpus", "--language=en", f"--corpus={corpus}", *arguments, stderr=StringIO())


# --- a real worker --------------------------------------------------------------------------------


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_chunks_are_counted_by_a_worker_through_redis(celery_worker, compounds, corpus):
    out = StringIO()
    with celery_worker():
        call_command(
            "count_corpus",
            "--language=en",
            f"--corpus={corpus}",
            "--chunks=5",
            "--apply",
            "--timeout=60",
            stdout=out,
            stderr=StringIO(),
        )
    job = BuildJob.objects.get()
    assert (job.status, job.done, job.total) == (BuildJob.Status.DONE, 5, 5)
    assert FrequencyTable.objects.get(job=job).counts["olive oil"] == 90
    assert "Frequencies and PMI written to 3 compounds" in out.getvalue()


def test_the_random_pool_candidates_are_counted_too_so_nc_rand_matches_on_the_corpus(
    inline_worker, compounds, tmp_path, debian_wordnet, settings, django_capture_on_commit_callbacks
):
    settings.WORDNET_DIR, settings.NLTK_DATA_DIR = debian_wordnet, tmp_path / "nltk_data"
    corpus = tmp_path / "pool.txt"
    corpus.write_text("the police car passed the eager beaver\n" * 5)
    with django_capture_on_commit_callbacks(execute=True):
        job = start_corpus_count(corpus, "en", "With pool", chunks=2)
    table = FrequencyTable.objects.get(job=job)
    assert table.counts["police car"] == 5 and table.counts["police"] == 5
    assert table.counts["eager beaver"] == 5
    assert len(job.options["targets"]) > 10_000
