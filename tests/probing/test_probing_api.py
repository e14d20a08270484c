"""The probing API: models and runs, read by anyone, started, cancelled and resumed by curators."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from core.permissions import CURATORS_GROUP
from probing import tasks
from probing.actions import create_probe_run, run_inline
from probing.models import EmbeddingModel, ProbeRun
from releases.actions import create_release
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish, register_tiny_bert

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol(db):
    user = get_user_model().objects.create_user("carol", password="pw")
    user.groups.add(Group.objects.get_or_create(name=CURATORS_GROUP)[0])
    return user


@pytest.fixture
def alice(db):
    return get_user_model().objects.create_user("alice", password="pw")


@pytest.fixture
def enqueued(monkeypatch) -> list[tuple]:
    sent: list[tuple] = []
    monkeypatch.setattr(tasks, "enqueue_shards", lambda *args: sent.append(args))
    return sent


@pytest.fixture
def release():
    make_probe_data(COMPOUNDS[:3])
    return publish("1.0.0")


def test_anyone_lists_the_models(client):
    body = client.get("/api/probing/models/").json()
    assert [m["name"] for m in body["results"]] == ["minilm"]
    minilm = client.get("/api/probing/models/minilm/").json()
    assert (minilm["kind"], minilm["source"], minilm["queue"]) == ("sentence_transformers", "", "cpu")


def test_a_curator_sees_where_a_model_loads_from(client, carol):
    client.force_login(carol)
    assert client.get("/api/probing/models/minilm/").json()["source"] == "bundled:minilm"


def test_a_curator_registers_a_model_and_others_may_not(client, carol, alice, tmp_path):
    payload = {"name": "bert", "kind": "transformer", "source": str(tmp_path / "bert"), "config": {"layers": [-1]}}
    client.force_login(alice)
    assert client.post("/api/probing/models/", payload, content_type="application/json").status_code == 403
    client.force_login(carol)
    response = client.post("/api/probing/models/", payload, content_type="application/json")
    assert response.status_code == 201, response.content
    assert EmbeddingModel.objects.get(name="bert").config == {"layers": [-1]}
    again = client.post("/api/probing/models/", payload, content_type="application/json")
    assert again.status_code == 400 and "exists already" in again.json()["name"][0]
    bad = {**payload, "name": "bert2", "config": {"layer": 1}}
    response = client.post("/api/probing/models/", bad, content_type="application/json")
    assert response.status_code == 400 and "unknown embedding config keys: layer" in response.json()["detail"]


def test_a_curator_starts_a_run_on_a_published_release(client, carol, alice, release, enqueued, tmp_path):
    register_tiny_bert(tmp_path / "bert")
    payload = {"release": "1.0.0", "model": "tiny-bert", "config": {"batch_size": 2}, "shard_size": 2}
    client.force_login(alice)
    assert client.post("/api/probing/runs/", payload, content_type="application/json").status_code == 403
    client.force_login(carol)
    response = client.post("/api/probing/runs/", payload, content_type="application/json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["model"], body["release"], body["created_by"]) == (
        "queued",
        "tiny-bert",
        "1.0.0",
        "carol",
    )
    assert body["config"]["batch_size"] == 2 and body["progress"]["shards_total"] == 2
    assert body["provenance"]["release"]["checksum"] == release.checksum


def test_a_draft_release_is_refused(client, carol, release, enqueued):
    create_release("2.0.0", languages=["en"])
    client.force_login(carol)
    response = client.post(
        "/api/probing/runs/", {"release": "2.0.0", "model": "minilm"}, content_type="application/json"
    )
    assert response.status_code == 400 and "draft" in response.json()["detail"]
    assert not ProbeRun.objects.exists()


def test_runs_list_detail_cancel_and_resume(
    client, carol, release, enqueued, tmp_path, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    bert = register_tiny_bert(tmp_path / "bert")
    done = run_inline(create_probe_run(release, bert))
    queued = create_probe_run(release, bert, config={"layers": [-1]})
    with django_assert_max_num_queries(3):
        rows = client.get("/api/probing/runs/").json()["results"]
    assert [(r["id"], r["status"]) for r in rows] == [(queued.pk, "queued"), (done.pk, "done")]
    assert "report" not in rows[0]
    assert [r["id"] for r in client.get("/api/probing/runs/", {"status": "done"}).json()["results"]] == [done.pk]

    detail = client.get(f"/api/probing/runs/{done.pk}/").json()
    assert detail["report"]["per_compound"] and detail["provenance"]["model_identity"]
    assert client.get(f"/api/probing/runs/{done.pk}/progress/").json()["fraction"] == 1.0

    assert client.post(f"/api/probing/runs/{queued.pk}/cancel/").status_code == 403
    client.force_login(carol)
    assert client.post(f"/api/probing/runs/{queued.pk}/cancel/").json()["status"] == "cancelled"
    with django_capture_on_commit_callbacks(execute=True):
        resumed = client.post(f"/api/probing/runs/{queued.pk}/resume/").json()
    assert resumed["status"] == "queued" and enqueued == [(queued.pk, "probe_cpu", [0])]
    response = client.post(f"/api/probing/runs/{done.pk}/resume/")
    assert response.status_code == 400 and "is done" in response.json()["detail"]
