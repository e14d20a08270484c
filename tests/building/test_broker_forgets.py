"""A broker that forgets in the middle of a variant-generation job (issue 35, item 6).

A Redis of the test's own (nothing on disk) and a real worker process: once the worker holds the
job's first batch, Redis is restarted and the messages of the batches nobody claimed are gone. The
periodic task, called as beat would, sends them again once the job made no progress for
SHARD_QUEUE_TIMEOUT seconds, and the job finishes by itself with the variants and totals of a job
run without interruption.
"""

from __future__ import annotations

import json

import pytest

from building.models import BuildJob
from building.tasks import requeue_stale_build_shards_task, start_generation_job
from building.variants.generation import variants_report
from building.variants.jobs import create_generation_job, run_generation_batch
from building.variants.resources import GenerationOptions
from building.variants.sentence_similarity import NO_CONTEXT_MODEL
from datasets import vocabulary
from datasets.models import Sentence, Variant
from tests.datasets.factories import make_compound, make_sentence
from tests.forgetful_broker import celery_app_on, finish_after_forgetting, forgetful_redis

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]
QUEUE = "celery"  # the batches' queue, on this test's own Redis
QUEUE_TIMEOUT = 5  # seconds a job may make no progress before its pending batches are sent again
# The lexicon's order: the worker process ranks as the test process does, without a context model.
OPTIONS = GenerationOptions(context_model=NO_CONTEXT_MODEL)
COMPOUNDS = {
    "front man": "John Paul II was an effective front man for the catholic church.",
    "eager beaver": "The new intern is an eager beaver who stays late.",
    "night owl": "My sister is a night owl and reads until three.",
    "grey matter": "The puzzle will exercise your grey matter.",
    "research lab": "The research lab hired two chemists.",
}


@pytest.fixture
def compounds(db):
    found = []
    for text, sentence in COMPOUNDS.items():
        compound = make_compound(text)
        make_sentence(compound, sentence)
        found.append(compound)
    return found


def generated(compounds) -> dict:
    """What a generation leaves: every compound's variants by probe, in an order of their own."""
    return {
        entry["compound"]: {group: sorted(map(json.dumps, rows)) for group, rows in entry["variants"].items()}
        for entry in variants_report(compounds)
    }


def forget_generated(compounds) -> None:
    Variant.objects.filter(sentence__compound__in=compounds).delete()
    Sentence.objects.filter(compound__in=compounds).exclude(kind=vocabulary.NATURALISTIC).delete()


def test_a_generation_job_whose_broker_forgot_its_messages_finishes_by_itself_with_the_same_variants(
    compounds, debian_wordnet, settings, tmp_path
):
    settings.SHARD_QUEUE_TIMEOUT = QUEUE_TIMEOUT
    settings.WORDNET_DIR, settings.NLTK_DATA_DIR = debian_wordnet, tmp_path / "nltk_data"
    lexicons = {"WORKBENCH_WORDNET_DIR": str(debian_wordnet), "WORKBENCH_NLTK_DATA": str(tmp_path / "nltk_data")}
    log = tmp_path / "worker.log"
    with forgetful_redis(tmp_path) as broker, celery_app_on(broker.url):
        job = start_generation_job(compounds, OPTIONS, batch=1)  # autocommit: its 5 messages are sent at once
        assert broker.queued(QUEUE) == job.options["parts"] == 5
        finish_after_forgetting(broker, QUEUE, job, requeue_stale_build_shards_task, tmp_path / "models", log, lexicons)

    job.refresh_from_db()
    assert job.status == BuildJob.Status.DONE, job.message + log.read_text()[-3000:]
    assert (job.done, job.done_parts) == (5, [0, 1, 2, 3, 4])
    assert job.shards.filter(attempts=1).count() == 5  # each batch generated once
    forgot = generated(compounds)
    assert job.result["created"] == Variant.objects.filter(sentence__compound__in=compounds).count() > 0

    forget_generated(compounds)
    uninterrupted = create_generation_job(compounds, OPTIONS, batch=1)
    for index in range(5):
        assert run_generation_batch(uninterrupted.pk, index)
    uninterrupted.refresh_from_db()
    assert uninterrupted.status == BuildJob.Status.DONE
    assert forgot == generated(compounds)
    assert job.result == uninterrupted.result
