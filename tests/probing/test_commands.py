"""run_probes, probe_report and register_model from the command line."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from probing.models import EmbeddingModel, ProbeRun
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish, tiny_bert

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def bert(tmp_path) -> str:
    make_probe_data(COMPOUNDS[:3])
    publish("1.0.0")
    out, _ = run(
        "register_model",
        "--name",
        "tiny-bert",
        "--kind",
        "transformer",
        "--source",
        str(tiny_bert(tmp_path / "bert")),
        "--config",
        '{"batch_size": 4}',
    )
    assert out.startswith("model tiny-bert: transformer from")
    return "tiny-bert"


def test_run_probes_inline_prints_the_run_id_and_probe_report_its_json(bert):
    out, err = run("run_probes", "--release", "1.0.0", "--model", bert, "--inline", "--shard-size", "2")
    run_id = int(out.strip())
    assert ProbeRun.objects.get(pk=run_id).status == ProbeRun.Status.DONE
    assert f"run {run_id} done: shards 2/2" in err

    report = json.loads(run("probe_report", str(run_id), "--format", "json")[0])
    assert {"run", "provenance", "per_compound", "correlations", "summary"} <= set(report)
    assert report["run"] == run_id
    assert {"version", "checksum"} <= set(report["provenance"]["release"])
    assert {"model_identity", "config", "code_version", "packages"} <= set(report["provenance"])
    entry = report["per_compound"][0]
    assert {"compound", "language", "condition", "level", "sim", "affinity", "scaled"} <= set(entry)
    assert set(entry["sim"]) == {"syn", "comp", "words_syn", "rand"}
    assert set(entry["affinity"]) == {"syn_words_syn", "syn_rand"}
    assert set(entry["scaled"]) == {"syn", "words_syn"}
    assert {(e["condition"], e["level"]) for e in report["per_compound"]} == {
        ("naturalistic", "sentence"),
        ("naturalistic", "nc"),
        ("neutral", "sentence"),
        ("neutral", "nc"),
    }
    row = report["correlations"][0]
    assert {"language", "condition", "level", "measure", "subset", "rho", "p", "n", "significant"} <= set(row)
    # Numbers a working engine gives with the fixture model (synonyms near their compounds), not just keys.
    assert all(e["sim"]["syn"] > e["sim"]["rand"] for e in report["per_compound"])
    assert all(isinstance(r["rho"], float) for r in report["correlations"] if r["subset"] == "all" and r["n"] >= 3)

    text = run("probe_report", str(run_id), "--format", "text")[0]
    assert "model tiny-bert on release 1.0.0" in text and "mean (std) over compounds:" in text
    csv = run("probe_report", str(run_id), "--format", "csv", "--table", "summary")[0]
    assert csv.splitlines()[6] == "language,condition,level,measure,mean,std,n"


def test_run_probes_without_a_worker_fails_clearly_when_waiting(bert, monkeypatch):
    from probing.management.commands import run_probes

    monkeypatch.setattr(run_probes, "queue_has_worker", lambda queue: False)
    monkeypatch.setattr(run_probes, "POLL", 0.05)
    with pytest.raises(CommandError, match="no Celery worker consumes queue probe_cpu .*--inline; run \\d+ stays"):
        run("run_probes", "--model", bert, "--wait", "--timeout", "0.2")
    assert ProbeRun.objects.get().status == ProbeRun.Status.QUEUED


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "nobody"], "no such model \\(registered: minilm, tiny-bert\\)"),
        (["--model", "tiny-bert", "--release", "9.9.9"], "--release 9.9.9: no such release"),
        (["--model", "tiny-bert", "--config", "[1]"], "--config: give a JSON object"),
        (["--model", "tiny-bert", "--config", '{"layers": "last"}'], "layers must be a non-empty list"),
    ],
)
def test_run_probes_refuses_bad_input_with_the_reason(bert, args, message):
    with pytest.raises(CommandError, match=message):
        run("run_probes", *args)
    assert not ProbeRun.objects.exists()


def test_register_model_refuses_an_unknown_config_key():
    with pytest.raises(CommandError, match="unknown embedding config keys: pooling"):
        run("register_model", "--name", "x", "--kind", "transformer", "--source", "/m", "--config", '{"pooling": 1}')
    assert not EmbeddingModel.objects.filter(name="x").exists()


def test_probe_report_of_an_unknown_run():
    with pytest.raises(CommandError, match="no probe run 999"):
        run("probe_report", "999")


def test_run_probes_inline_fails_the_run_with_the_reason_when_the_model_cannot_load(bert):
    EmbeddingModel.objects.create(name="missing", kind="transformer", source="/nowhere/bert")
    with pytest.raises(CommandError, match="probe run \\d+ failed: shard 0: .*nowhere"):
        run("run_probes", "--model", "missing", "--inline")
    assert ProbeRun.objects.get().status == ProbeRun.Status.FAILED
