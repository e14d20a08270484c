"""A chat endpoint as a machine annotator: structured answers, digit distributions, re-asks, 429s, the host rules."""

from __future__ import annotations

import time

import pytest

from annotation.models import Item, MachineAnnotator, MachineAnswer
from annotators.actions import create_job, run_inline
from annotators.asking import RETRY_MESSAGE
from annotators.models import AnnotationJob

pytestmark = pytest.mark.django_db


def first_items(campaign, n: int) -> list[int]:
    return list(Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).order_by("order_key", "pk").values_list("pk", flat=True)[:n])  # fmt: skip


def test_a_chat_endpoint_answers_under_the_schema_and_its_digit_logprobs_become_distributions(
    demo_campaign, chat_server, chat_model
):
    server = chat_server()
    model = chat_model(server, price_per_million_prompt_tokens=1.0, price_per_million_completion_tokens=2.0)
    job = run_inline(create_job(demo_campaign, model, settings={"concurrency": 1}, shard_size=10))
    assert job.status == AnnotationJob.Status.DONE, job.error
    regular = Item.objects.filter(campaign=demo_campaign, role=Item.Role.REGULAR).count()
    assert job.answered == regular and job.invalid == 0 and job.requests == regular == len(server.requests)
    body = server.requests[0]["body"]
    assert body["response_format"]["type"] == "json_schema" and body["logprobs"] and body["top_logprobs"] == 6
    assert body["temperature"] == 0.0 and body["seed"] == 0 and server.requests[0]["auth"] == "Bearer sk-local"
    answer = MachineAnswer.objects.order_by("item_id").first()
    for key in ("head", "modifier", "compound"):
        found = answer.distributions[key]
        assert sum(found["probs"]) == pytest.approx(1.0, abs=1e-5)
        assert getattr(answer, f"{key}_score") == found["mode"]  # greedy under the schema: the likeliest digit
    assert job.prompt_tokens > 0 and job.completion_tokens > 0
    assert job.cost == pytest.approx((job.prompt_tokens * 1.0 + job.completion_tokens * 2.0) / 1e6)
    identity = MachineAnnotator.objects.get().model_identity
    assert identity == {
        "kind": "openai_chat",
        "name": "tiny-chat",
        "base_url": server.base_url,
        "revision": "tiny-chat",
    }


def test_an_answer_that_does_not_parse_is_asked_again_then_kept_invalid_with_its_raw_text(
    demo_campaign, chat_server, chat_model
):
    server = chat_server(scripted=["I'd say a 4, mostly literal.", '{"head": 7, "modifier": 1, "compound": 1}'])
    model = chat_model(server)
    job = create_job(demo_campaign, model, settings={"max_attempts": 2, "concurrency": 1}, shard_size=2)
    job.shards.exclude(index=0).delete()
    job.shards_total, job.items_total = 1, 2
    job.save()
    job = run_inline(job)
    assert job.status == AnnotationJob.Status.DONE and job.answered == 2 and job.invalid == 1
    first, second = first_items(demo_campaign, 2)
    bad = MachineAnswer.objects.get(item_id=first)
    assert not bad.valid and bad.attempts == 2 and bad.head_score is None
    assert (
        bad.raw_text == '{"head": 7, "modifier": 1, "compound": 1}' and bad.error == "head: 7 is outside the scale 0-5"
    )
    retry = server.requests[1]["body"]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "I'd say a 4, mostly literal."}
    assert retry[-1]["content"] == RETRY_MESSAGE.format(error="no JSON object in the answer")
    good = MachineAnswer.objects.get(item_id=second)  # the model's own answer, under the schema
    assert good.valid and good.attempts == 1 and len(server.requests) == 3


def test_rate_limits_of_the_server_are_waited_out_with_backoff(demo_campaign, chat_server, chat_model):
    server = chat_server(failures=[429, 503], retry_after=0)
    model = chat_model(server, backoff_seconds=0.05)
    job = create_job(demo_campaign, model, settings={"concurrency": 1}, shard_size=1)
    job.shards.exclude(index=0).delete()
    started = time.monotonic()
    run_inline(job)
    assert time.monotonic() - started >= 0.05 + 0.1  # waited 0.05 s, then 0.1 s
    assert len(server.requests) == 3 and MachineAnswer.objects.get().valid
    job.refresh_from_db()
    assert job.requests == 1  # one answer paid; the HTTP retries are the client's


def test_requests_per_minute_of_the_endpoint_are_respected(demo_campaign, chat_server, chat_model, monkeypatch):
    from annotators import limits

    class Time:  # the limiter's clock and sleep: a minute passes at once
        now, waits = 960.0, []  # the start of a minute's window

        def time(self):
            return self.now

        def sleep(self, seconds):
            self.waits.append(seconds)
            self.now += seconds

    fake = Time()
    monkeypatch.setattr(limits, "time", fake)
    server = chat_server()
    model = chat_model(server, requests_per_minute=3)
    job = create_job(demo_campaign, model, settings={"concurrency": 1}, shard_size=4)
    job.shards.exclude(index=0).delete()
    run_inline(job)
    assert len(server.requests) == 4 and fake.waits == [pytest.approx(60.0)], "the fourth request within a minute waits"


def test_a_host_the_administrator_did_not_list_is_never_asked(demo_campaign, chat_server, chat_model, settings):
    server = chat_server()
    model = chat_model(server)
    settings.WORKBENCH_MODEL_API_HOSTS = ["models.example.org"]
    job = run_inline(create_job(demo_campaign, model))
    assert job.status == AnnotationJob.Status.FAILED and "127.0.0.1" in job.error
    assert not server.requests and not MachineAnswer.objects.exists()


def test_a_key_variable_the_administrator_did_not_allow_is_never_read(demo_campaign, chat_server, chat_model, settings):
    server = chat_server()
    model = chat_model(server, api_key_env="DATABASE_URL")
    job = run_inline(create_job(demo_campaign, model))
    assert job.status == AnnotationJob.Status.FAILED and "DATABASE_URL" in job.error
    assert not server.requests


def test_a_server_that_does_not_answer_in_time_is_asked_again_then_the_job_fails_saying_so(
    demo_campaign, chat_server, chat_model
):
    server = chat_server(delay=1.0)
    model = chat_model(server, timeout=0.2, max_retries=1)
    job = create_job(demo_campaign, model, settings={"concurrency": 1}, shard_size=1)
    job.shards.exclude(index=0).delete()
    job = run_inline(job)
    assert job.status == AnnotationJob.Status.FAILED and "timed out" in job.error.lower(), job.error
    assert len(server.requests) == 2 and not MachineAnswer.objects.exists()
    assert job.shards.get(index=0).status == "pending"  # given back: a resume asks it again


def test_a_redirect_is_never_followed_and_proxy_variables_are_ignored(
    demo_campaign, chat_server, chat_model, monkeypatch
):
    import threading

    from tests.security.test_model_requests import Listener

    server = chat_server()
    redirector, proxy = Listener(redirect_to=server.base_url), Listener()
    for listener in (redirector, proxy):
        threading.Thread(target=listener.serve_forever, daemon=True).start()
    try:
        model = chat_model(server, name="redirected", base_url=redirector.url, max_retries=0)
        job = create_job(demo_campaign, model, settings={"concurrency": 1}, shard_size=1)
        job.shards.exclude(index=0).delete()
        job = run_inline(job)
        assert job.status == AnnotationJob.Status.FAILED and "307" in job.error, job.error
        assert len(redirector.requests) == 1 and not server.requests  # the allowed host's redirect went nowhere
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy.url.removesuffix("/v1"))
        direct = create_job(demo_campaign, chat_model(server, name="direct"), settings={"concurrency": 1}, shard_size=1)
        direct.shards.exclude(index=0).delete()
        direct = run_inline(direct)
        assert direct.status == AnnotationJob.Status.DONE, direct.error
        assert server.requests and not proxy.requests  # straight to the allowed host, never through a proxy
    finally:
        for listener in (redirector, proxy):
            listener.shutdown()
            listener.server_close()
