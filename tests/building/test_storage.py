"""Uploads reach the workers through Django's storage API, and a corpus is cut into byte ranges through it.

The storage here is Django's in-memory one: no file of it exists on disk, as with an S3-compatible
store, so anything that read a local path instead would fail.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from building.counts.actions import count_corpus_chunk
from building.counts.corpus.counting import Targets, count_corpus
from building.counts.corpus.readers import chunk_ranges
from building.models import BuildJob, FrequencyTable
from building.storage import StoredFile, store_upload
from building.tasks import generate_variants_batch_task
from building.variants.resources import GenerationOptions
from core.permissions import CURATORS_GROUP
from datasets import vocabulary
from datasets.models import Variant
from tests.datasets.factories import make_compound, make_sentence

pytestmark = pytest.mark.django_db

SENTENCES = "".join(f"the eager beaver number {i} met an eager beaver by the river\n" for i in range(400))


@pytest.fixture
def in_memory(settings):
    settings.STORAGES = {**settings.STORAGES, "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"}}


@pytest.fixture
def carol(client):
    user = get_user_model().objects.create_user("carol")
    user.groups.add(Group.objects.get_or_create(name=CURATORS_GROUP)[0])
    client.force_login(user)
    return user


def test_a_stored_corpus_is_cut_into_unit_ranges_and_counted_chunk_by_chunk(in_memory, tmp_path):
    stored = store_upload(SimpleUploadedFile("corpus.txt", SENTENCES.encode()), "corpora")
    local = tmp_path / "corpus.txt"
    local.write_text(SENTENCES)
    targets = Targets.from_texts(["eager beaver", "river"])

    ranges = chunk_ranges(stored, "text", 6)

    assert ranges == chunk_ranges(local, "text", 6) and len(ranges) == 6
    assert count_corpus(stored, "text", targets, chunks=6) == count_corpus(local, "text", targets, chunks=1)


def test_an_uploaded_corpus_is_counted_by_workers_that_only_have_the_storage(in_memory, client, carol):
    make_compound("eager beaver")
    upload = SimpleUploadedFile("corpus.txt", SENTENCES.encode())

    response = client.post(reverse("corpus_count"), {"corpus_file": upload, "language": "en", "chunks": 4})

    assert response.status_code == 302
    job = BuildJob.objects.get()
    assert job.options["storage"] == "corpora/corpus.txt" and job.total == 4
    assert job.options["bytes"] == len(SENTENCES.encode())
    for index in range(job.total):
        count_corpus_chunk(job.pk, index)
    table = FrequencyTable.objects.get(job=job)
    assert table.counts["eager beaver"] == 800 and table.corpus_path == "corpora/corpus.txt"


def test_an_uploaded_pool_is_kept_in_the_storage_and_named_in_the_job(in_memory, client, carol):
    make_compound("front man")
    pool = SimpleUploadedFile("pool.txt", b"police car\nred apple\n")

    client.post(reverse("generate_variants"), {"language": "en", "compounds": "front man", "pool_file": pool})

    options = GenerationOptions.from_dict(BuildJob.objects.get().options)
    assert options.pool_storage == "pools/pool.txt" and options.pool_file == ""
    assert StoredFile(options.pool_storage).read() == b"police car\nred apple\n"


def generate_with_an_uploaded_pool(client, debian_wordnet, settings, tmp_path_factory, monkeypatch, capture):
    """A curator generates "front man" with an uploaded pool of twelve "stored wordN" lines; the batches run in
    this process when enqueued, with whatever storage the test gave it and nothing on disk. The compound."""
    settings.WORDNET_DIR = debian_wordnet
    settings.NLTK_DATA_DIR = tmp_path_factory.getbasetemp() / "nltk_data"
    monkeypatch.setattr(generate_variants_batch_task, "delay", lambda *args: generate_variants_batch_task(*args))
    front = make_compound("front man", gold_synonym="representative")
    make_sentence(front, "John Paul II was an effective front man for the catholic church.")
    pool = SimpleUploadedFile("stored-pool.txt", "".join(f"stored word{i}\n" for i in range(12)).encode())
    with capture(execute=True):
        client.post(reverse("generate_variants"), {"language": "en", "compounds": "front man", "pool_file": pool})
    return front


def test_a_generation_worker_draws_random_compounds_from_a_pool_it_reads_from_the_storage(
    in_memory,
    client,
    carol,
    debian_wordnet,
    settings,
    tmp_path_factory,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    front = generate_with_an_uploaded_pool(
        client, debian_wordnet, settings, tmp_path_factory, monkeypatch, django_capture_on_commit_callbacks
    )

    job = BuildJob.objects.get()
    assert job.status == BuildJob.Status.DONE, job.message
    rand = Variant.objects.filter(sentence__compound=front, kind=vocabulary.RANDOM_FREQ, isolated=False)
    assert {v.replacement.split()[0] for v in rand} == {"stored"}
