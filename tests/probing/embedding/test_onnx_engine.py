"""The fast-path equality test: the onnx engine gives the eager fp32 vectors (within 1e-5), or refuses the model."""

from __future__ import annotations

import numpy as np
import pytest

from probing.embedding import EmbedConfig, TextSpan, bundled_minilm_path, load_backend, onnx_engine
from probing.embedding.sources import RefusedSource, check_options
from probing.exposure import public_identity
from probing.run.engine import embed_all
from tests.probing.embedding.conftest import TEXTS

ONNX = {"engine": "onnx"}
# Every fixture text, with a span where it has a compound (one cut into subwords: "eager beavers").
ITEMS = [
    TextSpan(TEXTS[0], (4, 8)),
    TextSpan(TEXTS[1], (20, 33)),
    TextSpan(TEXTS[2], (1, 14)),
    TextSpan(TEXTS[3], (8, 19)),
    TextSpan(TEXTS[4], (8, 18)),
    TextSpan(TEXTS[5], None),
]
# The tolerance of the issue: the largest absolute difference over every sentence, span and layer vector.
EQUAL = 1e-5


def max_abs_difference(eager: dict, fast: dict) -> float:
    """The engine's own measure, after checking that both sides have the same float32 vectors."""
    for item, expected in eager.items():
        for name in ("sentence", "span", "layer_sentences", "layer_spans"):
            want, have = getattr(expected, name), getattr(fast[item], name)
            assert (want is None) == (have is None), (item, name)
            assert have is None or (have.dtype == np.float32 and have.shape == want.shape)
    return onnx_engine.max_abs_difference(eager, fast)


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    return tmp_path_factory.mktemp("engines")


@pytest.mark.parametrize(
    "config",
    [
        EmbedConfig(batch_size=4),  # the default: the mean of the last four layers
        EmbedConfig(layers=(-1,), include_special_tokens=True, batch_size=2),
        EmbedConfig(sweep="all", batch_size=3),  # every layer pooled alone, from the same pass
    ],
    ids=["last-four", "last-with-specials", "sweep"],
)
def test_the_onnx_engine_gives_the_eager_vectors(tiny_bert, engines, config):
    eager = embed_all(load_backend("transformer", str(tiny_bert)), ITEMS, config)[0]
    fast = embed_all(load_backend("transformer", str(tiny_bert), ONNX, engine_cache=engines), ITEMS, config)[0]
    assert max_abs_difference(eager, fast) <= EQUAL
    assert all(fast[item].span is not None for item in ITEMS if item.span)


def test_the_pipelines_transformer_runs_in_the_onnx_engine(engines):
    """The bundled MiniLM: sentence vectors through the pipeline's pooling and normalize, spans, a sweep."""
    source = str(bundled_minilm_path())
    items = [*ITEMS, TextSpan("He is an eager beaver.", (9, 21))]
    eager_backend = load_backend("sentence_transformers", source)
    fast_backend = load_backend("sentence_transformers", source, ONNX, engine_cache=engines)
    for config in (EmbedConfig(batch_size=4), EmbedConfig(sweep="all")):
        eager = embed_all(eager_backend, items, config)[0]
        fast = embed_all(fast_backend, items, config)[0]
        assert max_abs_difference(eager, fast) <= EQUAL
    assert abs(np.linalg.norm(fast[items[-1]].sentence) - 1) < 1e-5  # the Normalize module ran


def test_the_engine_is_in_the_identity_so_the_cache_keeps_engines_apart(tiny_bert, engines):
    eager = load_backend("transformer", str(tiny_bert)).identity()
    fast = load_backend("transformer", str(tiny_bert), ONNX, engine_cache=engines).identity()
    assert "engine" not in eager  # the keys of every eager run stay as they were
    assert fast == {**eager, "engine": "onnx"}
    assert public_identity(fast)["engine"] == "onnx"  # a run's public provenance names the engine


def test_an_export_is_checked_once_and_then_read_from_the_engine_cache(tiny_bert, tmp_path, monkeypatch):
    backend = load_backend("transformer", str(tiny_bert), ONNX, engine_cache=tmp_path)
    first = embed_all(backend, ITEMS, EmbedConfig())[0]
    (folder,) = tmp_path.iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["check.json", "model.onnx"]
    assert backend.fast_encoder(EmbedConfig()).check["max_abs"] <= EQUAL
    monkeypatch.setattr(onnx_engine, "export", lambda *args: pytest.fail("exported again"))
    again = embed_all(load_backend("transformer", str(tiny_bert), ONNX, engine_cache=tmp_path), ITEMS, EmbedConfig())
    assert max_abs_difference(first, again[0]) == 0.0


def test_an_export_that_differs_from_the_eager_forward_is_refused_and_not_kept(tiny_bert, tmp_path, monkeypatch):
    real = onnx_engine.OnnxEncoder.hidden_states

    def off_by_a_little(self, inputs, wanted):  # what a shape frozen by the tracer or a bad fusion would do
        states = real(self, inputs, wanted)
        return [None if state is None else state + 1e-4 for state in states]

    monkeypatch.setattr(onnx_engine.OnnxEncoder, "hidden_states", off_by_a_little)
    backend = load_backend("transformer", str(tiny_bert), ONNX, engine_cache=tmp_path)
    with pytest.raises(onnx_engine.EngineMismatch, match="use the eager engine"):
        backend.embed_batch(ITEMS[:1], EmbedConfig())
    assert [p.name for folder in tmp_path.iterdir() for p in folder.iterdir()] == []


def test_the_onnx_engine_runs_float32_on_the_cpu_only(tiny_bert, engines):
    backend = load_backend("transformer", str(tiny_bert), ONNX, engine_cache=engines)
    with pytest.raises(ValueError, match="runs float32 on the CPU"):
        backend.embed_batch(ITEMS[:1], EmbedConfig(dtype="bfloat16"))


def test_the_engine_is_an_option_of_transformer_models_only():
    check_options("transformer", ONNX)
    check_options("sentence_transformers", {"engine": "eager"})
    with pytest.raises(RefusedSource, match="engine must be one of eager, onnx"):
        check_options("transformer", {"engine": "tensorrt"})
    with pytest.raises(RefusedSource, match="Options not used by static_vectors"):
        check_options("static_vectors", ONNX)
