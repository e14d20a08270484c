"""Code execution through model files, tried as a curator would (issue 13, item 1).

The attack: a pickle whose unpickling creates a marker file, put where models load from (or
uploaded through the corpus page), registered as gensim vectors or a PyTorch checkpoint, then
probed. Registration must refuse it with the reason, a run of a row written some other way must
fail on the worker, and the marker must never appear. What an administrator allows works: a
folder listed in WORKBENCH_MODEL_DIRS, a pickle trusted by its sha256 in WORKBENCH_TRUSTED_PICKLES.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from probing.models import EmbeddingModel, ProbeRun
from tests.security import model_attacks
from tests.security.model_attacks import as_curator, register_and_probe, small_release

pytestmark = pytest.mark.django_db


class WritesMarker:
    """Unpickling this calls open(marker, "w"): the file appears. Any code could run instead."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def crafted_pickle(marker: Path) -> bytes:
    return pickle.dumps(WritesMarker(marker))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def folders(tmp_path, settings) -> dict[str, Path]:
    """A model folder the administrator lists, the uploads (MEDIA_ROOT) and where a marker would appear."""
    models, media = tmp_path / "models", tmp_path / "media"
    models.mkdir()
    media.mkdir()
    settings.MEDIA_ROOT = media
    settings.WORKBENCH_MODEL_DIRS = [models]
    settings.WORKBENCH_TRUSTED_PICKLES = frozenset()
    return {"models": models, "media": media, "marker": tmp_path / "pwned"}


@pytest.fixture
def curator_client(client):
    return as_curator(client)


@pytest.fixture
def release():
    return small_release()


def register(client, **model):
    return model_attacks.register(client, {"name": "vectors", **model})


def attack(client, release, **model) -> tuple:
    return register_and_probe(client, release, {"name": "vectors", **model})


def test_the_crafted_pickle_runs_its_code_when_unpickled(tmp_path):
    """The payload is real: anything that unpickles it creates the marker."""
    pickle.loads(crafted_pickle(tmp_path / "proof")).close()  # what open() returned
    assert (tmp_path / "proof").exists()


def test_a_gensim_pickle_in_a_model_folder_is_refused_unless_trusted(curator_client, folders, release):
    vectors = folders["models"] / "vectors.kv"
    vectors.write_bytes(crafted_pickle(folders["marker"]))

    response, run = attack(
        curator_client, release, kind="static_vectors", source=str(vectors), options={"format": "gensim"}
    )

    assert not folders["marker"].exists()
    assert response.status_code == 400
    assert "is a pickle" in response.json()["detail"] and sha256(vectors) in response.json()["detail"]
    assert run.status == ProbeRun.Status.FAILED and "is a pickle" in run.error


def test_a_pytorch_checkpoint_in_a_model_folder_is_refused_unless_trusted(curator_client, folders, release):
    bert = folders["models"] / "bert"
    bert.mkdir()
    (bert / "config.json").write_text('{"model_type": "bert"}')
    (bert / "pytorch_model.bin").write_bytes(crafted_pickle(folders["marker"]))

    response, run = attack(curator_client, release, kind="transformer", source=str(bert))

    assert not folders["marker"].exists()
    assert response.status_code == 400 and "pytorch_model.bin is a pickle" in response.json()["detail"]
    assert run.status == ProbeRun.Status.FAILED and "is a pickle" in run.error


def test_an_upload_is_never_a_model_even_trusted_in_a_listed_parent_or_behind_a_symlink(
    curator_client, folders, settings, release
):
    # The attack: the corpus upload puts the file on the server, in MEDIA_ROOT/corpora.
    upload = SimpleUploadedFile("vectors.kv", crafted_pickle(folders["marker"]))
    curator_client.post(reverse("corpus_count"), {"corpus_file": upload, "language": "en", "chunks": 1})
    uploaded = folders["media"] / "corpora" / "vectors.kv"
    assert uploaded.exists()
    # The administrator even lists the parent folder and trusts the file: uploads stay out all the same.
    settings.WORKBENCH_MODEL_DIRS = [folders["media"].parent]
    settings.WORKBENCH_TRUSTED_PICKLES = frozenset({sha256(uploaded)})
    link = folders["models"] / "vectors.kv"
    link.symlink_to(uploaded)

    response, run = attack(
        curator_client, release, kind="static_vectors", source=str(link), options={"format": "gensim"}
    )

    assert not folders["marker"].exists()
    assert response.status_code == 400 and "uploads are never loaded" in response.json()["detail"]
    assert run.status == ProbeRun.Status.FAILED and "uploads are never loaded" in run.error
    for source in (uploaded, folders["media"]):
        response = register(
            curator_client, name="again", kind="static_vectors", source=str(source), options={"format": "gensim"}
        )
        assert response.status_code == 400 and "uploads are never loaded" in response.json()["detail"], source


def test_a_file_outside_the_listed_folders_is_refused_whatever_its_format(curator_client, folders, tmp_path):
    glove = tmp_path / "glove.txt"
    glove.write_text("beaver 0.1 0.2\n")
    for source in (str(glove), str(folders["models"] / ".." / "glove.txt"), "glove.txt", "bert-base-uncased"):
        response = register(curator_client, kind="static_vectors", source=source)
        assert response.status_code == 400 and "WORKBENCH_MODEL_DIRS" in response.json()["detail"], source


def test_options_that_would_run_remote_code_or_reach_the_hub_are_refused(curator_client, folders):
    for options in ({"trust_remote_code": True}, {"local_files_only": False}):
        response = register(curator_client, kind="transformer", source=str(folders["models"] / "bert"), options=options)
        assert response.status_code == 400 and "Options not used by transformer models" in response.json()["detail"]


def test_what_an_administrator_allows_loads(curator_client, folders, settings):
    from gensim.models import KeyedVectors

    vectors = KeyedVectors(vector_size=2)
    vectors.add_vectors(["beaver", "dam"], [[1.0, 0.0], [0.0, 1.0]])
    native, text = folders["models"] / "native.kv", folders["models"] / "text.vec"
    vectors.save(str(native))
    vectors.save_word2vec_format(str(text))
    settings.WORKBENCH_TRUSTED_PICKLES = frozenset({sha256(native)})

    for name, source in (("native", native), ("text", text)):
        response = register(curator_client, kind="static_vectors", source=str(source), name=name)
        assert response.status_code == 201, response.content
        assert EmbeddingModel.objects.get(name=name).load_backend().vectors.key_to_index == {"beaver": 0, "dam": 1}


def test_the_bundled_model_needs_no_listing(settings):
    settings.WORKBENCH_MODEL_DIRS = settings.WORKBENCH_MODEL_DIRS[-1:]  # the bundled folder, always listed
    minilm = EmbeddingModel.objects.get(name="minilm")
    minilm.full_clean()
    assert os.path.realpath(minilm.resolved_source()) in map(str, settings.WORKBENCH_MODEL_DIRS)


def test_the_admin_form_shows_the_refusal_on_the_field_at_fault(admin_client, folders):
    data = {"name": "x", "kind": "static_vectors", "source": "/etc/passwd", "options": "{}", "config": "{}"}
    data |= {"queue": "cpu", "notes": ""}

    response = admin_client.post(reverse("admin:probing_embeddingmodel_add"), data)

    assert response.status_code == 200
    assert "WORKBENCH_MODEL_DIRS" in str(response.context["adminform"].form.errors["source"])
    assert not EmbeddingModel.objects.filter(name="x").exists()
