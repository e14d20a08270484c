"""STORAGES["default"] on an S3-compatible store: uploads go to the bucket, jobs read them from it, nothing on disk.

The store is moto's server mode over HTTP on loopback (``tests/storage_fixtures.py``), reached through
django-storages' ``S3Storage`` as a deployment's ``WORKBENCH_STORAGE`` would name it; ``MEDIA_ROOT`` is an
empty folder that each test checks is still empty, as it is on a worker host that only has the bucket.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from building.counts.actions import count_corpus_chunk
from building.models import BuildJob, FrequencyTable
from core.paths import real_path
from core.permissions import CURATORS_GROUP
from datasets import vocabulary
from datasets.models import Compound, Variant
from tests.building.test_storage import generate_with_an_uploaded_pool
from tests.datasets.factories import make_compound
from tests.storage_fixtures import S3_BACKEND

pytestmark = pytest.mark.django_db

SENTENCES = "".join(f"the eager beaver number {i} met an eager beaver by the river\n" for i in range(400))
TABLE = (
    "compound,sentence,class\n"
    'eager beaver,"She is a real eager beaver at work.",idiomatic\n'
    "research lab,The research lab opened in May.,compositional\n"
)


@pytest.fixture
def carol(client):
    user = get_user_model().objects.create_user("carol")
    user.groups.add(Group.objects.get_or_create(name=CURATORS_GROUP)[0])
    client.force_login(user)
    return user


def test_the_default_storage_is_the_bucket_reached_over_http_and_keeps_every_upload(s3_storage):
    from storages.backends.s3 import S3Storage

    assert isinstance(default_storage, S3Storage)
    first = default_storage.save("probe/hello.txt", SimpleUploadedFile("hello.txt", b"hello"))
    second = default_storage.save("probe/hello.txt", SimpleUploadedFile("hello.txt", b"again"))

    assert first == "probe/hello.txt" and second != first and second.startswith("probe/hello_")
    assert s3_storage.keys() == sorted([first, second])
    assert (s3_storage.get(first), s3_storage.get(second)) == (b"hello", b"again")
    assert s3_storage.local_files() == []


def test_an_uploaded_corpus_lands_in_the_bucket_and_is_counted_from_it(s3_storage, client, carol):
    make_compound("eager beaver")
    upload = SimpleUploadedFile("corpus.txt", SENTENCES.encode())

    response = client.post(reverse("corpus_count"), {"corpus_file": upload, "language": "en", "chunks": 4})

    assert response.status_code == 302
    assert s3_storage.keys() == ["corpora/corpus.txt"]
    assert s3_storage.get("corpora/corpus.txt") == SENTENCES.encode()
    job = BuildJob.objects.get()
    assert job.options["storage"] == "corpora/corpus.txt" and job.total == 4
    # Each chunk is a byte range of the object in the bucket, read as a worker reads it.
    for index in range(job.total):
        count_corpus_chunk(job.pk, index)
    job.refresh_from_db()
    assert job.status == BuildJob.Status.DONE, job.message
    table = FrequencyTable.objects.get(job=job)
    assert table.counts["eager beaver"] == 800 and table.corpus_path == "corpora/corpus.txt"
    assert s3_storage.local_files() == []


def test_a_generation_job_draws_its_random_compounds_from_a_pool_only_in_the_bucket(
    s3_storage,
    client,
    carol,
    debian_wordnet,
    settings,
    tmp_path_factory,
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    # The batches run here, in a process whose MEDIA_ROOT is empty: the pool is in the bucket only.
    front = generate_with_an_uploaded_pool(
        client, debian_wordnet, settings, tmp_path_factory, monkeypatch, django_capture_on_commit_callbacks
    )

    assert s3_storage.keys() == ["pools/stored-pool.txt"]
    job = BuildJob.objects.get()
    assert job.options["pool_storage"] == "pools/stored-pool.txt"
    assert job.status == BuildJob.Status.DONE, job.message
    rand = Variant.objects.filter(sentence__compound=front, kind=vocabulary.RANDOM_FREQ, isolated=False)
    assert rand and {v.replacement.split()[0] for v in rand} == {"stored"}
    assert s3_storage.local_files() == []


def test_a_dataset_upload_is_kept_in_the_bucket_until_its_import(s3_storage, client, carol):
    data = {"format": "table", "language": "en", "collection": "mine"}
    data["files"] = SimpleUploadedFile("mine.csv", TABLE.encode(), content_type="text/csv")

    response = client.post(reverse("datasets_upload"), data)

    assert response.status_code == 302
    [key] = s3_storage.keys()
    assert key.startswith("imports/") and key.endswith("/mine.csv"), key
    preview = client.get(response.url)  # another web process: it lists and reads the upload from the bucket
    assert preview.status_code == 200, preview.content[:500]
    done = client.post(preview.request["PATH_INFO"])
    assert done.status_code == 302
    assert set(Compound.objects.values_list("text", flat=True)) == {"eager beaver", "research lab"}
    assert s3_storage.keys() == [] and s3_storage.local_files() == []


def test_a_probe_run_reads_the_database_only_and_writes_no_file(s3_storage, tmp_path, settings):
    """Probe runs read their release's files from ReleaseFile rows and the model from its folder: the storage
    is never touched, and nothing is written under MEDIA_ROOT."""
    from probing.actions import create_probe_run, run_inline
    from probing.models import ProbeRun
    from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert

    assert settings.STORAGES["default"]["BACKEND"] == S3_BACKEND
    models = tmp_path / "models"  # beside the empty MEDIA_ROOT, listed as an administrator lists model folders
    models.mkdir()
    settings.WORKBENCH_MODEL_DIRS = [*settings.WORKBENCH_MODEL_DIRS, real_path(models)]
    make_probe_data()
    release = publish("1.0.0")
    bert = register_tiny_bert(models / "tiny-bert")

    run = run_inline(create_probe_run(release, bert, shard_size=4))

    assert run.status == ProbeRun.Status.DONE, run.error
    assert release.files.exists()
    assert s3_storage.keys() == [] and s3_storage.local_files() == []
