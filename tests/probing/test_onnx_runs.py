"""A probe run with the onnx engine: the same numbers as the eager run, its vectors cached apart, the engine recorded."""

from __future__ import annotations

import pytest

from probing.actions import create_probe_run, run_inline
from probing.models import CachedVectors
from probing.report.build import run_report
from tests.float32 import float32_close
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert

pytestmark = pytest.mark.django_db


def test_an_onnx_run_gives_the_eager_numbers_and_never_reads_the_eager_vectors(tmp_path, settings):
    settings.WORKBENCH_ENGINE_CACHE = tmp_path / "engines"
    make_probe_data()
    release = publish("1.0.0")
    eager_model = register_tiny_bert(tmp_path / "tiny-bert")
    fast_model = register_tiny_bert(tmp_path / "tiny-bert", name="tiny-bert-onnx", options={"engine": "onnx"})

    eager = run_inline(create_probe_run(release, eager_model))
    fast = run_inline(create_probe_run(release, fast_model))

    assert fast.error == "" and fast.texts_cached == 0 and fast.texts_embedded == eager.texts_embedded
    assert CachedVectors.objects.count() == 2 * eager.texts_embedded
    assert fast.provenance["model_identity"] == {**eager.provenance["model_identity"], "engine": "onnx"}
    assert fast.provenance["packages"]["onnxruntime"]
    by_key = {(r["compound"], r["condition"], r["level"]): r for r in run_report(eager)["per_compound"]}
    rows = run_report(fast)["per_compound"]
    assert len(rows) == len(by_key)
    for row in rows:
        expected = by_key[(row["compound"], row["condition"], row["level"])]
        assert row["sim"] == {name: float32_close(value) for name, value in expected["sim"].items()}
