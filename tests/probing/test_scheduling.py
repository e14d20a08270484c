"""Runs nobody starts by hand: the nightly beat task and publishing a release."""

from __future__ import annotations

import pytest
from django_celery_beat.models import PeriodicTask

from probing import tasks
from probing.models import EmbeddingModel, ProbeRun
from probing.run.scheduling import NIGHTLY_TASK, NIGHTLY_TASK_NAME
from probing.tasks import nightly_probe_runs_task, probe_on_publish_task
from releases.actions import create_release, publish_release
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish

pytestmark = pytest.mark.django_db


@pytest.fixture
def enqueued(monkeypatch) -> list[tuple]:
    """Shards that would have gone to the broker, as (run id, queue, indices)."""
    sent: list[tuple] = []
    monkeypatch.setattr(tasks, "enqueue_shards", lambda *args: sent.append(args))
    return sent


@pytest.fixture
def models() -> dict[str, EmbeddingModel]:
    EmbeddingModel.objects.filter(name="minilm").update(active=False)  # loads nothing here: runs are not executed
    return {
        name: EmbeddingModel.objects.create(name=name, kind="transformer", source=f"/models/{name}", **fields)
        for name, fields in {
            "bert": {"active": True},
            "llama": {"active": True, "queue": "gpu", "run_on_publish": True},
            "old": {"active": False, "run_on_publish": False},
        }.items()
    }


def test_the_nightly_task_is_scheduled_at_two_and_editable_in_the_admin():
    task = PeriodicTask.objects.get(name=NIGHTLY_TASK_NAME)
    assert (task.task, task.enabled) == (NIGHTLY_TASK, True)
    assert (task.crontab.minute, task.crontab.hour) == ("0", "2")


def test_every_night_each_active_model_is_run_once_on_the_newest_release(
    models, enqueued, django_capture_on_commit_callbacks
):
    make_probe_data(COMPOUNDS[:2])
    publish("1.0.0")
    newest = publish("1.2.0")
    create_release("2.0.0", languages=["en"])  # a draft is never probed
    with django_capture_on_commit_callbacks(execute=True):
        started = nightly_probe_runs_task()
    runs = ProbeRun.objects.filter(pk__in=started)
    assert {(r.model.name, r.release.version, r.queue) for r in runs} == {
        ("bert", "1.2.0", "probe_cpu"),
        ("llama", "1.2.0", "probe_gpu"),
    }
    assert sorted(queue for _, queue, _ in enqueued) == ["probe_cpu", "probe_gpu"]

    assert nightly_probe_runs_task() == []  # not twice
    ProbeRun.objects.filter(model=models["bert"]).update(status=ProbeRun.Status.FAILED)
    retried = nightly_probe_runs_task()  # a failed run is tried again the next night
    assert [(r.model.name, r.release_id) for r in ProbeRun.objects.filter(pk__in=retried)] == [("bert", newest.pk)]


def test_nothing_is_started_without_a_published_release(models):
    assert nightly_probe_runs_task() == []


def test_publishing_a_release_starts_the_run_on_publish_models(
    models, enqueued, monkeypatch, django_capture_on_commit_callbacks
):
    make_probe_data(COMPOUNDS[:2])
    release = create_release("1.0.0", languages=["en"])
    monkeypatch.setattr(probe_on_publish_task, "delay", lambda *args: probe_on_publish_task(*args))
    with django_capture_on_commit_callbacks(execute=True):
        publish_release(release)  # the path the command, the page and the API take
    assert [(r.model.name, r.release.version) for r in ProbeRun.objects.all()] == [("llama", "1.0.0")]
    assert probe_on_publish_task(release.pk) == []  # once per release, model and config


def test_saving_a_draft_starts_nothing(models, monkeypatch, django_capture_on_commit_callbacks):
    make_probe_data(COMPOUNDS[:1])
    sent = []
    monkeypatch.setattr(probe_on_publish_task, "delay", lambda *args: sent.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        create_release("1.0.0", languages=["en"])
    assert sent == [] and not ProbeRun.objects.exists()
