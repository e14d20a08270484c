"""The bundled model's origin, upstream revision and licence: true of the installed package, in every run's provenance."""

from __future__ import annotations

import hashlib
from importlib import metadata

import pytest
from django.urls import reverse

from probing.actions import create_probe_run
from probing.embedding.base import bundled_minilm_path
from probing.models import EmbeddingModel
from probing.run.provenance import BUNDLED_MODEL_ORIGIN, BUNDLED_MODEL_PACKAGE, model_origin
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert


def test_the_recorded_origin_is_what_the_installed_package_ships():
    folder = bundled_minilm_path()
    digest = hashlib.sha256()
    with (folder / "model.safetensors").open("rb") as weights:
        while block := weights.read(1 << 20):
            digest.update(block)
    assert digest.hexdigest() == BUNDLED_MODEL_ORIGIN["weights_sha256"]
    # The package's own metadata (MIT, its code) and the model card it carries (Apache-2.0, the model).
    assert metadata.metadata(BUNDLED_MODEL_PACKAGE)["License"] == "MIT"
    assert "\nlicense: apache-2.0\n" in (folder / "README.md").read_text(encoding="utf-8")
    assert BUNDLED_MODEL_ORIGIN["licence"].startswith("Apache-2.0 (the model")
    assert BUNDLED_MODEL_ORIGIN["upstream"].endswith("/sentence-transformers/all-MiniLM-L6-v2")


def test_only_the_bundled_model_has_an_origin_entry():
    origin = model_origin("bundled:minilm")
    assert origin == {**BUNDLED_MODEL_ORIGIN, "package_version": metadata.version(BUNDLED_MODEL_PACKAGE)}
    assert model_origin("/models/bert-base-uncased") is None


@pytest.mark.django_db
def test_a_run_of_the_bundled_model_records_and_shows_its_origin(client, tmp_path):
    make_probe_data()
    release = publish("1.0.0")
    minilm = EmbeddingModel.objects.get(name="minilm")  # registered by a migration

    run = create_probe_run(release, minilm)
    other = create_probe_run(release, register_tiny_bert(tmp_path / "tiny-bert"))

    assert run.provenance["model"]["origin"] == model_origin("bundled:minilm")
    assert other.provenance["model"]["origin"] is None
    page = client.get(reverse("probe_run", args=[run.pk])).content.decode()
    assert "model.origin.upstream_revision" in page and "1110a243fdf4706b3f48f1d95db1a4f5529b4d41" in page
    assert "model.origin.licence" in page and "Apache-2.0 (the model, upstream)" in page
