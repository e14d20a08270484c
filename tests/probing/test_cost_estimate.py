"""A paid API's cost is shown before a run: on the runs page and by run_probes."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from probing.actions import register_model
from probing.models import ProbeRun
from probing.run.loading import estimate_cost
from probing.tasks import run_probe_shard_task
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish

pytestmark = pytest.mark.django_db


@pytest.fixture
def openai_model(settings):
    settings.WORKBENCH_MODEL_API_HOSTS = ["api.openai.com", "127.0.0.1"]  # nothing listens on port 9
    return register_model(
        "ada", "openai", "text-embedding-ada-002",
        options={"base_url": "http://127.0.0.1:9/v1", "price_per_million_tokens": 0.1},
    )  # fmt: skip


def test_the_cost_of_a_run_is_estimated_from_the_release_texts_without_calling_the_api(openai_model):
    make_probe_data(COMPOUNDS[:2])
    release = publish("1.0.0")
    cost = estimate_cost(release, openai_model)
    assert cost["texts"] > 5 and cost["tokens"] > cost["texts"]
    assert cost["usd"] == pytest.approx(cost["tokens"] * 0.1 / 1e6)


def test_local_models_cost_nothing_to_estimate(openai_model, tmp_path):
    make_probe_data(COMPOUNDS[:1])
    release = publish("1.0.0")
    assert estimate_cost(release, register_model("tiny", "static_vectors", str(tmp_path / "none.txt"))) is None


def test_run_probes_prints_the_estimate_and_the_runs_page_shows_it(openai_model, client, monkeypatch):
    make_probe_data(COMPOUNDS[:2])
    publish("1.0.0")
    monkeypatch.setattr(run_probe_shard_task, "apply_async", lambda *args, **kwargs: None)
    err = StringIO()
    call_command("run_probes", "--model", "ada", stdout=StringIO(), stderr=err)
    assert "estimated cost:" in err.getvalue() and "US$" in err.getvalue()
    assert "estimated cost on 1.0.0" in client.get("/probing/").content.decode()
    again = StringIO()
    call_command("run_probes", "--model", "ada", "--if-missing", stdout=again, stderr=StringIO())
    assert again.getvalue().strip() == str(ProbeRun.objects.get().pk)
