"""A run's report reads the cosines its shards stored, and a layer sweep reports each layer as a run of it would."""

from __future__ import annotations

import pytest

from probing.actions import create_probe_run, finish_run, run_inline
from probing.measures import metrics, similarity
from probing.models import ProbeRun
from probing.run.loading import release_probes
from tests.float32 import float32_close
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert

pytestmark = pytest.mark.django_db


@pytest.fixture
def bert(tmp_path):
    return register_tiny_bert(tmp_path / "tiny-bert")


def test_the_report_reads_the_shards_cosines_and_computes_only_the_standardised_ones(bert, monkeypatch):
    make_probe_data()
    run = run_inline(create_probe_run(publish(), bert, shard_size=2))
    first = run.shards.order_by("index").first()
    pair = release_probes(run.release).select(first.compounds)[0][0]  # the shard's first pair, syn at rank 1
    result = first.result
    stored = result["pair_sims"]["sentence"][0]
    result["pair_sims"]["sentence"][0] = 0.123456  # what the report shows must be what the shard stored
    first.result = result
    first.save(update_fields=["result"])
    ProbeRun.objects.filter(pk=run.pk).update(status=ProbeRun.Status.RUNNING, report={})

    def refuse(*args, **kwargs):
        raise AssertionError("a raw cosine was computed again")

    monkeypatch.setattr(metrics, "pair_cosines", refuse)
    monkeypatch.setattr(metrics, "cosine", refuse)
    rows_measured = []
    real_cosines, real_row_cosines = similarity.cosines, similarity.row_cosines
    monkeypatch.setattr(metrics, "cosines", lambda a, b: rows_measured.append(len(a)) or real_cosines(a, b))
    monkeypatch.setattr(
        metrics, "row_cosines", lambda m, a, b: rows_measured.append(len(a)) or real_row_cosines(m, a, b)
    )

    assert finish_run(run)

    run.refresh_from_db()
    key = (pair.compound, pair.condition, "sentence", pair.sentence_id)
    row = next(
        r for r in run.report["per_sentence"] if (r["compound"], r["condition"], r["level"], r["sentence_id"]) == key
    )
    assert pair.probe == "syn" and row["sim_syn"] == 0.123456 and stored != 0.123456
    assert row["sim_syn_std"] is not None and row["sim_syn_std"] != 0.123456
    # Only the standardised cosines were computed: one row for each stored pair and context cosine.
    context = sum(1 for shard in run.shards.all() for sim in shard.result["context_sims"] if sim is not None)
    assert sum(rows_measured) == run.report["stats"]["pair_similarities"] + context > 0


def test_a_layer_sweep_reports_each_layer_as_a_run_of_that_layer_alone(bert):
    make_probe_data()
    release = publish()
    sweep = run_inline(create_probe_run(release, bert, config={"sweep": "all"}, shard_size=2))
    assert sweep.status == ProbeRun.Status.DONE, sweep.error
    layers = sweep.report["layers"]
    assert layers["index"] == [0, 1, 2, 3, 4]
    plain = run_inline(create_probe_run(release, bert, shard_size=2))
    assert sweep.report["summary"] == plain.report["summary"]  # the combination is the run's main result

    for layer in layers["index"]:
        alone = run_inline(create_probe_run(release, bert, config={"layers": [layer]}, shard_size=3))
        expected = {_summary_key(r): r for r in alone.report["summary"] if not r["measure"].endswith("_std")}
        got = {_summary_key(r): r for r in layers["summary"] if r["layer"] == layer}
        assert got.keys() == expected.keys()
        for key, row in got.items():
            assert row["n"] == expected[key]["n"]
            for stat in ("mean", "std"):
                assert row[stat] == float32_close(expected[key][stat])  # shards of 2 vs 3
        expected_rho = {
            _rho_key(r): r["rho"] for r in alone.report["correlations"] if not r["measure"].endswith("_std")
        }
        got_rho = {_rho_key(r): r["rho"] for r in layers["correlations"] if r["layer"] == layer}
        assert got_rho.keys() == expected_rho.keys()
        for key, rho in got_rho.items():
            assert rho == float32_close(expected_rho[key])
    # The layers differ: a sweep is not the same numbers five times.
    means = {
        layer: [r["mean"] for r in layers["summary"] if r["layer"] == layer and r["mean"] is not None]
        for layer in layers["index"]
    }
    assert all(max(abs(a - b) for a, b in zip(means[0], means[k], strict=True)) > 1e-3 for k in range(1, 5))


def _summary_key(row: dict) -> tuple:
    return (row["language"], row["condition"], row["level"], row["measure"])


def _rho_key(row: dict) -> tuple:
    return (row["language"], row["condition"], row["level"], row["measure"], row["subset"])
