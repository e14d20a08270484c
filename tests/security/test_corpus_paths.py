"""Reading server files through the corpus "server path", tried as a curator would (issue 13, item 3).

The attack: name ``/etc/passwd`` or the secret key file as the corpus to count, with a guessed
word among the extra targets, and read the "targets found" count; or tell files that exist from
files that do not by the error message. A server path is refused, before anything reads it, unless
it lies inside a folder an administrator lists in WORKBENCH_CORPUS_ROOTS (none by default), and
the refusal reads the same whether the file exists or not.
"""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.urls import reverse

from building.models import BuildJob, FrequencyTable
from tests.building.review_factories import make_curator
from tests.datasets.factories import make_compound

pytestmark = pytest.mark.django_db

GUESS = "hunter2"


@pytest.fixture
def curator_client(client):
    make_compound("eager beaver")  # a language to count in
    client.force_login(make_curator("carol"))
    return client


@pytest.fixture
def server(tmp_path, settings) -> dict:
    """A corpus folder the administrator lists, and a secret beside it."""
    corpora = tmp_path / "corpora"
    corpora.mkdir()
    (corpora / "toy.txt").write_text("An eager beaver.\n")
    secret_key = tmp_path / "secret_key"
    secret_key.write_text(f"{GUESS}\n")
    settings.WORKBENCH_CORPUS_ROOTS = [corpora]
    return {"corpora": corpora, "secret_key": secret_key}


def count(client, path: str):
    data = {"server_path": path, "language": "en", "chunks": 1, "extra": GUESS}
    return client.post(reverse("corpus_count"), data)


def refusal(response, path: str) -> str:
    """The form's error, with the path the curator typed taken out."""
    assert response.status_code == 200
    errors = response.context["form"].errors["server_path"]
    assert len(errors) == 1
    return errors[0].replace(path, "PATH")


def test_no_folder_is_listed_by_default():
    assert django_settings.WORKBENCH_CORPUS_ROOTS == []


def test_server_files_are_refused_with_the_answer_a_missing_file_gets(curator_client, server):
    link = server["corpora"] / "innocent.txt"
    link.symlink_to(server["secret_key"])
    missing = refusal(count(curator_client, "/no/such/file.txt"), "/no/such/file.txt")
    attacks = [
        "/etc/passwd",
        str(server["secret_key"]),
        str(server["corpora"] / ".." / "secret_key"),
        str(link),
        str(server["corpora"] / "nothing-here.txt"),
        "corpora/toy.txt",
    ]

    for path in attacks:
        assert refusal(count(curator_client, path), path) == missing, path

    assert "WORKBENCH_CORPUS_ROOTS" in missing
    assert not BuildJob.objects.exists() and not FrequencyTable.objects.exists()


def test_a_file_inside_a_listed_folder_is_counted(curator_client, server):
    response = count(curator_client, str(server["corpora"] / "toy.txt"))

    job = BuildJob.objects.get()
    assert response.status_code == 302 and job.options["path"] == str(server["corpora"] / "toy.txt")
