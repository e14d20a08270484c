"""embed_text prints the vectors the engine computes and caches for a text, per layer when asked."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from probing.actions import create_probe_run, run_inline
from probing.embedding.base import EmbedConfig
from probing.models import EmbeddingModel, identity_hash
from probing.run.cache import DatabaseVectorCache
from probing.run.engine import cache_key
from probing.run.loading import release_probes
from tests.float32 import assert_vectors_close
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish, register_tiny_bert

pytestmark = pytest.mark.django_db


def embed_text(*args: str) -> dict:
    out = StringIO()
    call_command("embed_text", *args, stdout=out)
    return json.loads(out.getvalue())


@pytest.fixture
def bert(tmp_path) -> EmbeddingModel:
    return register_tiny_bert(tmp_path / "tiny-bert")


def test_it_prints_the_vectors_a_probe_run_cached(bert):
    make_probe_data(COMPOUNDS[:2])
    run = run_inline(create_probe_run(publish(), bert))
    identity = run.provenance["model_identity"]
    pair = release_probes(run.release).pairs[("en", "eager beaver")][0]
    item = pair.original
    cached = DatabaseVectorCache(identity_hash(identity)).get_many(
        [cache_key(identity, EmbedConfig.from_dict(run.config), item)]
    )
    (vectors,) = cached.values()

    start, end = item.span
    shown = embed_text("--model", "tiny-bert", "--text", item.text, "--span", f"{start}:{end}", "--format", "json")

    assert shown["model"] == "tiny-bert" and shown["identity"] == identity
    assert list(shown["layers"]) == ["combined"] and shown["combined_layers"] == [-4, -3, -2, -1]
    assert_vectors_close(shown["layers"]["combined"]["sentence"], vectors.sentence)  # alone vs in the run's batches
    assert_vectors_close(shown["layers"]["combined"]["span"], vectors.span)
    assert shown["tokens"][0] == "[CLS]" and shown["tokens"][-1] == "[SEP]"
    assert shown["span_tokens"] == ["eager", "beaver"]


def test_every_layer_comes_from_the_same_pass_as_the_combination(bert):
    text = "Yesterday the eager beaver arrived at the meeting with a plan."
    shown = embed_text("--model", "tiny-bert", "--text", text, "--span", "14:26", "--layers", "all")

    assert list(shown["layers"]) == ["0", "1", "2", "3", "4", "combined"]
    combined = shown["layers"]["combined"]
    for level in ("sentence", "span"):
        last_four = np.mean([shown["layers"][str(k)][level] for k in (1, 2, 3, 4)], axis=0)
        np.testing.assert_allclose(combined[level], last_four, atol=1e-6)
    assert not np.allclose(shown["layers"]["0"]["span"], combined["span"], atol=1e-3)
    chosen = embed_text("--model", "tiny-bert", "--text", text, "--span", "14:26", "--layers=-1,0")
    assert list(chosen["layers"]) == ["4", "0", "combined"]
    np.testing.assert_allclose(chosen["layers"]["4"]["span"], shown["layers"]["4"]["span"], atol=1e-6)


def test_bad_requests_say_what_is_wrong(bert, tmp_path):
    with pytest.raises(CommandError, match="no such model"):
        embed_text("--model", "nobody", "--text", "a")
    with pytest.raises(CommandError, match="outside the text"):
        embed_text("--model", "tiny-bert", "--text", "eager beaver", "--span", "0:40")
    with pytest.raises(CommandError, match="START:END"):
        embed_text("--model", "tiny-bert", "--text", "eager beaver", "--span", "0-5")
    with pytest.raises(CommandError, match="layer 9 does not exist"):
        embed_text("--model", "tiny-bert", "--text", "eager beaver", "--layers", "9")
    vectors = tmp_path / "vectors.txt"
    vectors.write_text("2 3\neager 1 0 0\nbeaver 0 1 0\n")
    EmbeddingModel.objects.create(name="glove", kind=EmbeddingModel.Kind.STATIC_VECTORS, source=str(vectors))
    with pytest.raises(CommandError, match="no layers to sweep"):
        embed_text("--model", "glove", "--text", "eager beaver", "--layers", "all")
    static = embed_text("--model", "glove", "--text", "eager beaver", "--span", "6:12")
    assert static["tokens"] == ["eager", "beaver"] and static["span_tokens"] == ["beaver"]
    assert static["layers"]["combined"]["span"] == [0.0, 1.0, 0.0]
