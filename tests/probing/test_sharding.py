"""Every unique text of a run is forward-passed once, across shards, whatever order the shards run in."""

from __future__ import annotations

from collections import Counter

import pytest

from probing.actions import create_probe_run, run_inline, run_shard
from probing.embedding.base import TextSpan
from probing.models import CachedVectors, ProbeRun, ProbeShard
from probing.run import vectors
from probing.run.loading import model_backend, release_probes
from probing.run.sharding import ShardPlan, plan_shards
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert


class SpyBackend:
    """A backend that counts the texts given to each forward pass of the backend it wraps."""

    def __init__(self, backend) -> None:
        self.backend = backend
        self.kind, self.supports_span = backend.kind, backend.supports_span
        self.texts: Counter = Counter()

    def identity(self) -> dict:
        return self.backend.identity()

    def token_lengths(self, texts):
        return self.backend.token_lengths(texts)

    def layer_count(self) -> int:
        return self.backend.layer_count()

    def embed_batch(self, items, config):
        self.texts.update({item.text for item in items})
        return self.backend.embed_batch(items, config)


@pytest.fixture
def spy(tmp_path, monkeypatch):
    model = register_tiny_bert(tmp_path / "tiny-bert")
    spy = SpyBackend(model_backend(model))
    monkeypatch.setattr(vectors, "model_backend", lambda model: spy)
    spy.model = model
    return spy


def run_texts(run: ProbeRun) -> set[str]:
    return {item.text for item in release_probes(run.release).items(release_probes(run.release).compounds)}


@pytest.mark.django_db
def test_each_text_is_forward_passed_once_across_shards(spy):
    make_probe_data()
    release = publish()
    run = create_probe_run(release, spy.model, shard_size=1)
    shards = list(run.shards.order_by("index"))
    # The fixture's compounds share their random replacements: later shards borrow those texts.
    assert sum(len(s.plan["borrowed"]) for s in shards) > 0
    assert sum(s.texts for s in shards) == run.texts_total == len(run_texts(run))

    run = run_inline(run)

    assert run.status == ProbeRun.Status.DONE, run.error
    assert set(spy.texts) == run_texts(run)
    assert max(spy.texts.values()) == 1
    assert CachedVectors.objects.count() == run.texts_embedded == run.texts_total
    borrowed = sum(s.result["stats"]["borrowed"] for s in ProbeShard.objects.filter(run=run))
    assert borrowed == sum(len(s.plan["borrowed"]) for s in shards)


@pytest.mark.django_db
def test_a_shard_that_runs_before_the_owner_of_its_texts_embeds_them_and_the_owner_reads_them(spy):
    make_probe_data()
    run = create_probe_run(publish(), spy.model, shard_size=1)
    last = run.shards.order_by("-index").first()
    assert last.plan["borrowed"]

    run_shard(run.pk, last.index)  # its owners are pending: nobody is embedding those texts now
    run = run_inline(run)

    assert run.status == ProbeRun.Status.DONE, run.error
    assert max(spy.texts.values()) == 1 and set(spy.texts) == run_texts(run)


def test_the_plan_gives_each_text_one_owner_which_embeds_every_span_others_need():
    a, b = TextSpan("This is a red car.", (10, 17)), TextSpan("This is a red car.", (8, 17))
    c, d = TextSpan("A cold water.", (2, 12)), TextSpan("Eager beaver.", (0, 12))
    plans = plan_shards([[a, c], [d, a, b], [c, b]])

    assert plans[0].borrowed == [] and plans[0].lent == [b]
    assert plans[1].borrowed == [(1, 0), (2, 0)] and plans[1].lent == []
    assert plans[2].borrowed == [(0, 0), (1, 0)]
    assert plans[0].split([a, c]) == ([a, c, b], [])
    assert plans[1].split([d, a, b]) == ([d], [(a, 0), (b, 0)])
    assert ShardPlan.from_dict(plans[0].as_dict()) == plans[0]
