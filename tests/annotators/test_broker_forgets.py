"""A broker that forgets in the middle of a machine-annotator job (issue 35, item 6).

A Redis of the test's own (nothing on disk) and a real worker process answering with the tiny chat
LLaMA: once the worker holds the job's first shard, Redis is restarted and the messages of the shards
nobody claimed are gone. The periodic task, called as beat would, sends them again once the job made
no progress for SHARD_QUEUE_TIMEOUT seconds, and the job finishes by itself with the answers and
counts of a job run without interruption: nothing asked twice, nothing paid twice.
"""

from __future__ import annotations

import os

import pytest

from annotation.models import MachineAnswer
from annotators import tasks
from annotators.actions import create_job, run_inline
from annotators.models import AnnotationJob, CachedResponse
from core.paths import real_path
from tests.annotation.test_views import make_campaign
from tests.float32 import assert_vectors_close
from tests.forgetful_broker import celery_app_on, finish_after_forgetting, forgetful_redis

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]
QUEUE = f"probe_cpu_annotators_forgets_{os.getpid()}"
QUEUE_TIMEOUT = 5  # seconds a job may make no progress before its pending shards are sent again
SETTINGS = {"temperature": 0.7, "seed": 7}  # sampled: the same answers only if each is asked once, with its seed
SHARDS = 5
COUNTERS = ("shards_done", "answered", "invalid", "cached", "requests", "prompt_tokens", "completion_tokens", "cost")


def answers() -> dict:
    """Every machine answer by (item, sample): what was answered, and its distributions' numbers in a row."""
    found = {}
    for answer in MachineAnswer.objects.select_related("annotator"):
        fields = (answer.valid, answer.head_score, answer.modifier_score, answer.compound_score, answer.paraphrases)
        fields += (answer.raw_text, answer.error, answer.attempts, answer.prompt_tokens, answer.completion_tokens)
        found[answer.item_id, answer.annotator.sample] = (fields, numbers_in(answer.distributions))
    return found


def numbers_in(value) -> list[float]:
    if isinstance(value, dict):
        return [number for key in sorted(value) for number in numbers_in(value[key])]
    if isinstance(value, list | tuple):
        return [number for element in value for number in numbers_in(element)]
    return [float(value)] if isinstance(value, int | float) and not isinstance(value, bool) else []


def test_a_job_whose_broker_forgot_its_messages_finishes_by_itself_with_the_same_answers(
    local_llama, settings, tmp_path, tmp_path_factory
):
    settings.PROBE_QUEUES = {"cpu": QUEUE, "gpu": QUEUE}
    settings.SHARD_QUEUE_TIMEOUT = QUEUE_TIMEOUT
    campaign = make_campaign(regular=SHARDS)  # an item a shard
    log = tmp_path / "worker.log"
    with forgetful_redis(tmp_path) as broker, celery_app_on(broker.url):
        job = create_job(campaign, local_llama, samples=2, settings=SETTINGS, shard_size=1)
        tasks.enqueue(job, list(range(job.shards_total)))  # autocommit: the messages are sent at once
        assert broker.queued(QUEUE) == job.shards_total == SHARDS
        models = real_path(tmp_path_factory.getbasetemp())  # where the tiny chat LLaMA was saved
        finish_after_forgetting(broker, QUEUE, job, tasks.requeue_stale_annotation_shards_task, models, log)

    job.refresh_from_db()
    assert job.status == AnnotationJob.Status.DONE, job.error + log.read_text()[-3000:]
    assert job.answered == 2 * SHARDS == MachineAnswer.objects.count() == job.requests  # each asked once
    assert job.shards.filter(attempts=1).count() == SHARDS
    forgot = answers()

    MachineAnswer.objects.all().delete()
    CachedResponse.objects.all().delete()  # asked again, not read back
    expected = run_inline(create_job(campaign, local_llama, samples=2, settings=SETTINGS, shard_size=1))
    assert expected.status == AnnotationJob.Status.DONE, expected.error
    assert [getattr(job, name) for name in COUNTERS] == [getattr(expected, name) for name in COUNTERS]
    again = answers()
    assert forgot.keys() == again.keys()
    for key, (fields, distributions) in again.items():
        assert forgot[key][0] == fields, key
        assert_vectors_close(forgot[key][1], distributions, err_msg=str(key))
