"""An ELMo registered like any model (register_model, API, admin) and probed on a small release."""

from __future__ import annotations

import hashlib
import shutil

import numpy as np
import pytest
import torch
from django.urls import reverse

from probing.actions import ProbeError, create_probe_run, register_model, run_inline
from probing.embedding.elmo import read_options
from probing.embedding.elmo_model import batch_char_ids, load_elmo
from probing.models import EmbeddingModel, ProbeRun
from probing.report.build import report_csv, run_report
from tests.float32 import float32_close
from tests.probing.probe_factories import COMPOUNDS, SENTENCES, make_probe_data, publish
from tests.security.model_attacks import as_curator

pytestmark = pytest.mark.django_db


@pytest.fixture
def release():
    make_probe_data()
    return publish("1.0.0")


def test_register_model_takes_an_elmo_folder_and_defaults_to_its_three_layers(elmo_loadable):
    model = register_model("elmo-tiny", EmbeddingModel.Kind.ELMO, str(elmo_loadable))

    assert model.embed_config().layers == (0, 1, 2)
    assert model.load_backend().identity()["dim"] == 32


def test_an_elmo_whose_files_lie_outside_the_allowed_folders_is_refused(fixture_elmo, tmp_path):
    with pytest.raises(ProbeError, match="source: .*WORKBENCH_MODEL_DIRS"):
        register_model("elmo", "elmo", str(fixture_elmo))  # the shared folder is not listed here
    weights = tmp_path / "elmo" / "model_weights.hdf5"
    weights.parent.mkdir()
    shutil.copy(fixture_elmo / "lm_weights.hdf5", weights)
    with pytest.raises(ProbeError, match="options: options_file: .*WORKBENCH_MODEL_DIRS"):
        register_model("elmo", "elmo", str(weights), options={"options_file": str(fixture_elmo / "options.json")})
    (weights.parent / "model_options.json").symlink_to(fixture_elmo / "options.json")  # a way out of the folder
    with pytest.raises(ProbeError, match="options.json is not inside a folder an administrator allows"):
        register_model("elmo", "elmo", str(weights))
    with pytest.raises(ProbeError, match="Options not used by elmo models: revision"):
        register_model("elmo", "elmo", str(weights), options={"revision": "abc"})
    assert not EmbeddingModel.objects.filter(name="elmo").exists()


def test_two_paths_register_through_the_api_and_a_folder_through_the_admin(client, admin_client, elmo_loadable):
    two_paths = {"options_file": str(elmo_loadable / "options.json")}
    body = {"name": "elmo-api", "kind": "elmo", "source": str(elmo_loadable / "lm_weights.hdf5"), "options": two_paths}
    response = as_curator(client).post("/api/probing/models/", body, content_type="application/json")
    assert response.status_code == 201, response.content

    form = {"name": "elmo-admin", "kind": "elmo", "source": str(elmo_loadable), "options": "{}", "config": "{}"}
    response = admin_client.post(reverse("admin:probing_embeddingmodel_add"), form | {"queue": "cpu", "notes": ""})
    assert response.status_code == 302, response.context and response.context["adminform"].form.errors

    api, admin = (EmbeddingModel.objects.get(name=name).load_backend() for name in ("elmo-api", "elmo-admin"))
    assert api.identity()["weights_sha256"] == admin.identity()["weights_sha256"]


def elmo_vectors(folder, text: str, words: str) -> tuple[np.ndarray, np.ndarray]:
    """Sentence and NC vectors computed without the backend: the network's three layers averaged, then words."""
    options = read_options(folder / "options.json")
    model = load_elmo(options, folder / "lm_weights.hdf5")
    tokens, nc = text.split(), words.split()
    first = next(i for i in range(len(tokens)) if tokens[i : i + len(nc)] == nc)
    ids, lengths = batch_char_ids([tokens], options.max_characters_per_token)
    with torch.inference_mode():
        layers = model(ids, lengths).mean(dim=0)[0, 1 : len(tokens) + 1]  # without the boundary tokens
    return layers.mean(dim=0).numpy(), layers[first : first + len(nc)].mean(dim=0).numpy()


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_a_probe_run_with_the_fixture_elmo_reports_the_cosines_of_its_vectors(client, release, elmo_loadable):
    weights = elmo_loadable / "lm_weights.hdf5"
    model = register_model("elmo-tiny", "elmo", str(weights), config={"batch_size": 8})

    run = run_inline(create_probe_run(release, model, shard_size=2))

    assert run.status == ProbeRun.Status.DONE, run.error
    report = run_report(run)
    provenance = report["provenance"]
    assert provenance["model_identity"]["weights_sha256"] == hashlib.sha256(weights.read_bytes()).hexdigest()
    assert provenance["config"]["layers"] == [0, 1, 2] and provenance["model"]["kind"] == "elmo"
    rows = {(r["compound"], r["condition"], r["level"]): r for r in report["per_compound"]}
    assert len(rows) == len(COMPOUNDS) * 2 * 2
    # The synonym probe at both levels, from the vectors of the original sentences and their synonym variants.
    originals = [elmo_vectors(elmo_loadable, p.format("eager beaver"), "eager beaver") for p in SENTENCES]
    synonyms = [elmo_vectors(elmo_loadable, p.format("hard worker"), "hard worker") for p in SENTENCES]
    for level, index in (("sentence", 0), ("nc", 1)):
        sims = [cosine(o[index], s[index]) for o, s in zip(originals, synonyms, strict=True)]
        assert rows["eager beaver", "naturalistic", level]["sim"]["syn"] == float32_close(np.mean(sims))
    for row in rows.values():
        assert all(-1 <= value <= 1 for value in row["sim"].values()), row
    overall = [r for r in report["correlations"] if r["subset"] == "all"]
    assert overall and all(isinstance(r["rho"], float) and r["n"] == len(COMPOUNDS) for r in overall)
    assert report_csv(run, "per_compound").startswith(f"# probe run {run.pk} (done): model elmo-tiny")
    page = client.get(reverse("probe_run", args=[run.pk]))
    assert page.status_code == 200 and "elmo-tiny" in page.content.decode()
