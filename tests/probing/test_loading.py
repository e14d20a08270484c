"""A worker keeps what it loads, and a run whose vectors are all cached opens no model, even in a new process."""

from __future__ import annotations

from pathlib import Path

import pytest

from probing.actions import create_probe_run, run_inline
from probing.models import EmbeddingModel, ProbeRun
from probing.run import loading
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert

pytestmark = pytest.mark.django_db


def new_process() -> None:
    """Forget what this process kept, as a fresh worker or a new ``run_probes`` starts."""
    loading._backends.clear()
    loading._releases.clear()


@pytest.fixture
def opened(monkeypatch):
    """Every model opened from now on, by name; ``opened.refuse = True`` makes opening fail the test."""
    calls: list[str] = []
    real = EmbeddingModel.load_backend

    def spy(model):
        if spy.refuse:
            raise AssertionError(f"model {model.name} was opened")
        calls.append(model.name)
        return real(model)

    spy.refuse = False
    spy.calls = calls
    monkeypatch.setattr(EmbeddingModel, "load_backend", spy)
    return spy


@pytest.fixture
def cold(tmp_path):
    """A finished cold run of the tiny BERT on a published release, and the model as the database now has it."""
    new_process()
    make_probe_data()
    model = register_tiny_bert(tmp_path / "tiny-bert")
    run = run_inline(create_probe_run(publish(), model, shard_size=2))
    assert run.status == ProbeRun.Status.DONE, run.error
    assert run.texts_embedded == run.texts_total > 0
    model.refresh_from_db()
    return run, model


def test_the_first_opening_records_what_later_runs_need(cold):
    run, model = cold
    assert model.opened["identity"] == run.provenance["model_identity"]
    assert model.opened["layer_count"] == 5 and model.opened["supports_span"] is True
    assert set(model.opened["check"]) == {"weights_sha256"}


def test_a_warm_run_in_a_new_process_opens_no_model_and_gives_the_same_report(cold, opened):
    run, model = cold
    new_process()
    opened.refuse = True
    warm = run_inline(create_probe_run(run.release, model, shard_size=3))
    assert warm.status == ProbeRun.Status.DONE, warm.error
    assert warm.texts_embedded == 0 and warm.texts_cached == run.texts_total
    assert warm.provenance["model_identity"] == run.provenance["model_identity"]
    for table in ("per_compound", "per_sentence", "correlations", "context"):
        assert warm.report[table] == run.report[table]


def test_a_changed_model_file_is_opened_and_embeds_again_under_its_new_identity(cold, opened):
    run, model = cold
    config = Path(model.source) / "config.json"
    config.write_text(config.read_text() + "\n")  # the same model, other bytes: another identity
    new_process()
    again = run_inline(create_probe_run(run.release, model))
    assert again.status == ProbeRun.Status.DONE, again.error
    assert opened.calls == [model.name]
    assert again.texts_embedded == again.texts_total  # another identity: nothing cached under it
    assert again.provenance["model_identity"] != run.provenance["model_identity"]
    model.refresh_from_db()
    assert model.opened["identity"] == again.provenance["model_identity"]


def test_a_model_the_rules_now_refuse_fails_its_warm_run_without_opening(cold, opened, settings):
    run, model = cold
    new_process()
    opened.refuse = True
    settings.WORKBENCH_MODEL_DIRS = []
    warm = run_inline(create_probe_run(run.release, model))
    assert warm.status == ProbeRun.Status.FAILED
    assert "not inside a folder an administrator allows" in warm.error
