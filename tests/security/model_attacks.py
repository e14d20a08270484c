"""The steps the model attacks share: a curator registers a model, then a worker probes it whatever the answer.

A refused registration leaves no row, so the run then uses a row written without the checks (one
registered before them, say): the worker's own check is tested too.
"""

from __future__ import annotations

from probing.actions import create_probe_run, run_inline
from probing.models import EmbeddingModel
from releases.models import Release
from tests.building.review_factories import make_curator
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish


def as_curator(client):
    client.force_login(make_curator("carol"))
    return client


def small_release() -> Release:
    make_probe_data(COMPOUNDS[:1])
    return publish("1.0.0")


def register(client, model: dict):
    return client.post("/api/probing/models/", model, content_type="application/json")


def register_and_probe(client, release: Release, model: dict) -> tuple:
    """The registration's response, and the run of the model after this process tried to run it."""
    response = register(client, model)
    row = EmbeddingModel.objects.filter(name=model["name"]).first() or EmbeddingModel.objects.create(**model)
    run = create_probe_run(release, row)
    try:
        run_inline(run)
    except Exception:  # noqa: S110 (the run's status says what happened)
        pass
    run.refresh_from_db()
    return response, run
