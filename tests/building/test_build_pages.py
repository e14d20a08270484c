"""Build pages: a curator counts a corpus, follows the job, and applies the frequency table."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from building.counts.actions import count_corpus_chunk
from building.models import BuildJob, FrequencyTable
from building.tasks import start_corpus_count
from core.permissions import CURATORS_GROUP
from datasets.models import Compound
from tests.datasets.factories import make_compound

pytestmark = pytest.mark.django_db

CORPUS = "An eager beaver ate olive oil.\nThe beaver and the eager dog.\nOlive oil, olive oil!\n" * 30


@pytest.fixture
def carol():
    """Carol curates."""
    user = get_user_model().objects.create_user("carol", password="pw")
    user.groups.add(Group.objects.get_or_create(name=CURATORS_GROUP)[0])
    return user


@pytest.fixture
def alice():
    """Alice annotates: no curator rights."""
    return get_user_model().objects.create_user("alice", password="pw")


@pytest.fixture
def corpus(tmp_path, settings):
    """A corpus in a folder the administrator lets curators read."""
    settings.WORKBENCH_CORPUS_ROOTS = [tmp_path]
    path = tmp_path / "toy.txt"
    path.write_text(CORPUS)
    return path


@pytest.fixture
def beaver():
    return make_compound("eager beaver")


def finished_job(corpus) -> BuildJob:
    job = start_corpus_count(corpus, "en", "Toy", chunks=2, pool=False)
    for index in range(job.total):
        count_corpus_chunk(job.pk, index)
    job.refresh_from_db()
    return job


def page_urls(job: BuildJob) -> list[str]:
    return [
        reverse("corpus_count"),
        reverse("build_jobs"),
        reverse("build_job", kwargs={"pk": job.pk}),
        reverse("build_job_json", kwargs={"pk": job.pk}),
    ]


def test_anonymous_visitors_are_sent_to_log_in(client, beaver, corpus):
    job = start_corpus_count(corpus, "en", "Toy", pool=False)
    for url in page_urls(job):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login")), url


def test_annotators_are_refused(client, alice, beaver, corpus):
    job = start_corpus_count(corpus, "en", "Toy", pool=False)
    client.force_login(alice)
    for url in page_urls(job):
        assert client.get(url).status_code == 403, url
    assert client.post(reverse("cancel_build_job", kwargs={"pk": job.pk})).status_code == 403


def test_a_curator_starts_a_count_from_a_server_path(client, carol, beaver, corpus):
    client.force_login(carol)
    assert b"Start counting" in client.get(reverse("corpus_count")).content
    response = client.post(
        reverse("corpus_count"),
        {"server_path": str(corpus), "language": "en", "chunks": 3, "format": "", "name": "", "extra": "ate\n\n"},
    )
    job = BuildJob.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("build_job", kwargs={"pk": job.pk})
    assert (job.kind, job.total, job.created_by) == (BuildJob.Kind.COUNT_CORPUS, 3, carol)
    assert job.options["name"] == "toy.txt" and "ate" in job.options["targets"]

    page = client.get(response["Location"])
    assert page.status_code == 200
    assert b"Count a corpus" in page.content and b"Queued" in page.content
    assert b'data-finished="false"' in page.content and b"build_job.js" in page.content

    data = client.get(reverse("build_job_json", kwargs={"pk": job.pk})).json()
    assert data == {
        "id": job.pk,
        "kind": "count_corpus",
        "status": "queued",
        "done": 0,
        "total": 3,
        "progress": 0.0,
        "message": job.message,
        "result": {},
        "finished": False,
    }


def test_the_json_follows_progress_without_the_partial_counts(client, carol, beaver, corpus):
    job = start_corpus_count(corpus, "en", "Toy", chunks=2, pool=False)
    count_corpus_chunk(job.pk, 0)
    client.force_login(carol)
    data = client.get(reverse("build_job_json", kwargs={"pk": job.pk})).json()
    assert (data["status"], data["done"], data["total"], data["progress"]) == ("running", 1, 2, 0.5)
    assert data["result"]["tokens"] > 0
    assert set(data["result"]) == {"tokens", "targets_found"}  # not the partial counts themselves
    count_corpus_chunk(job.pk, 1)
    data = client.get(reverse("build_job_json", kwargs={"pk": job.pk})).json()
    assert data["status"] == "done" and data["finished"] and data["result"]["tokens"] == 600


def test_a_finished_job_page_shows_the_result_without_polling(client, carol, beaver, corpus):
    job = finished_job(corpus)
    client.force_login(carol)
    page = client.get(reverse("build_job", kwargs={"pk": job.pk}))
    assert b'data-finished="true"' in page.content
    assert b"Targets found" in page.content and b"600" in page.content
    assert b'<th scope="row">Format</th><td>text</td>' in page.content  # the options too
    assert b"Cancel the job" not in page.content
    jobs = client.get(reverse("build_jobs"))
    assert f"Count a corpus #{job.pk}".encode() in jobs.content


def test_a_curator_uploads_a_corpus(client, carol, beaver, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    client.force_login(carol)
    upload = SimpleUploadedFile("my corpus.conllu", b"1\teager\n2\tbeaver\n\n1\tbeaver\n")
    response = client.post(reverse("corpus_count"), {"corpus_file": upload, "language": "en", "chunks": 8})
    assert response.status_code == 302
    job = BuildJob.objects.get()
    # The job names the file in the storage, not a path on this machine.
    assert job.options["storage"] == "corpora/my corpus.conllu" and "path" not in job.options
    assert (tmp_path / "media" / "corpora" / "my corpus.conllu").is_file()
    assert job.options["format"] == "conll" and job.options["name"] == "my corpus.conllu"
    for index in range(job.total):
        count_corpus_chunk(job.pk, index)
    assert FrequencyTable.objects.get(job=job).counts == {"eager": 1, "beaver": 2, "eager beaver": 1}


@pytest.mark.parametrize(
    "data,error",
    [
        ({}, "Upload a file or give a server path"),
        ({"server_path": "/no/such/file.txt"}, "No corpus file at /no/such/file.txt"),
        ({"server_path": "{corpus}", "format": "pdf"}, "Select a valid choice"),
        ({"server_path": "{corpus}", "chunks": 0}, "greater than or equal to 1"),
        ({"corpus_file": "empty", "server_path": ""}, "empty"),
    ],
)
def test_bad_input_is_explained_on_the_form(client, carol, beaver, corpus, data, error):
    client.force_login(carol)
    post = {"language": "en", "chunks": 8, **data}
    if post.get("server_path") == "{corpus}":
        post["server_path"] = str(corpus)
    if post.get("corpus_file") == "empty":
        post["corpus_file"] = SimpleUploadedFile("empty.txt", b"")
    response = client.post(reverse("corpus_count"), post)
    assert response.status_code == 200
    assert error in response.content.decode()
    assert not BuildJob.objects.exists()


def test_a_curator_applies_a_table_to_the_compounds(client, carol, beaver, corpus):
    job = finished_job(corpus)
    table = FrequencyTable.objects.get(job=job)
    client.force_login(carol)
    page = client.get(reverse("corpus_count"))
    assert b"Toy" in page.content and b"Apply" in page.content
    response = client.post(reverse("apply_frequency_table", kwargs={"pk": table.pk}), {"collection": ""}, follow=True)
    assert b"written to 1 compounds" in response.content
    beaver.refresh_from_db()
    assert beaver.frequency == 50_000.0 and beaver.pmi is not None
    assert beaver.frequency_source == "corpus Toy (600 tokens)"
    assert client.get(reverse("apply_frequency_table", kwargs={"pk": table.pk})).status_code == 405


def test_a_curator_cancels_a_running_job(client, carol, beaver, corpus):
    job = start_corpus_count(corpus, "en", "Toy", chunks=2, pool=False)
    client.force_login(carol)
    response = client.post(reverse("cancel_build_job", kwargs={"pk": job.pk}), follow=True)
    assert b"cancelled" in response.content
    job.refresh_from_db()
    assert job.status == BuildJob.Status.CANCELLED
    assert not Compound.objects.filter(frequency__isnull=False).exists()
