"""How big a run's cache is, known before embedding anything: ``cache_bytes`` of the release's texts and spans."""

from __future__ import annotations

import pytest
from django.db.models.functions import Length

from probing.actions import create_probe_run, run_inline
from probing.embedding.base import TextSpan
from probing.models import CachedVectors, ProbeRun
from probing.run.cache import cache_bytes
from probing.run.loading import release_probes
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert

pytestmark = pytest.mark.django_db


def test_a_float16_sweep_stores_the_bytes_cache_bytes_says(tmp_path):
    bert = register_tiny_bert(tmp_path / "tiny-bert")  # hidden size 32, 4 layers: 5 hidden states
    make_probe_data()
    release = publish()

    run = run_inline(create_probe_run(release, bert, config={"sweep": "all", "sweep_storage": "float16"}, shard_size=2))

    assert run.status == ProbeRun.Status.DONE, run.error
    probes = release_probes(release)
    expected = cache_bytes(probes.items(probes.compounds), dim=32, hidden_states=5, layer_dtype="float16")
    assert run.report["stats"]["cache_bytes"] == expected
    lengths = CachedVectors.objects.annotate(a=Length("sentence"), b=Length("span"), c=Length("layers"))
    stored = sum(row.a + (row.b or 0) + (row.c or 0) for row in lengths)
    assert stored == expected


def test_a_text_without_a_span_stores_one_vector_per_layer_and_repeats_count_once():
    items = [TextSpan("He is an eager beaver.", (9, 21)), TextSpan("This is a thing."), TextSpan("This is a thing.")]

    # (sentence + span) + sentence = 3 vectors of 5120 values: float32 combination, 41 float16 layers
    assert cache_bytes(items, dim=5120, hidden_states=41, layer_dtype="float16") == 3 * 5120 * (4 + 41 * 2)
    assert cache_bytes(items, dim=384) == 3 * 384 * 4
