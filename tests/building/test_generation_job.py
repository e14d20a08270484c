"""Variant generation as a job: the curator page, batches in the caller's process, a real worker."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from building.models import BuildJob, BuildShard
from building.tasks import generate_variants_batch_task, requeue_stale_build_shards_task, start_generation_job
from building.variants.jobs import create_generation_job
from building.variants.resources import GenerationOptions, load_resources
from core.permissions import CURATORS_GROUP
from datasets import vocabulary
from datasets.models import Variant
from tests.datasets.factories import make_compound, make_sentence


@pytest.fixture(autouse=True)
def lexical_resources(debian_wordnet, settings, tmp_path_factory):
    settings.WORDNET_DIR = debian_wordnet
    settings.NLTK_DATA_DIR = tmp_path_factory.getbasetemp() / "nltk_data"


@pytest.fixture
def carol(db):
    user = get_user_model().objects.create_user("carol", password="pw")
    user.groups.add(Group.objects.get_or_create(name=CURATORS_GROUP)[0])
    return user


@pytest.fixture
def inline_worker(monkeypatch):
    """Batch tasks run in the caller's process when enqueued (no eager mode: it would leak into Redis tests)."""
    monkeypatch.setattr(generate_variants_batch_task, "delay", lambda *args: generate_variants_batch_task(*args))


@pytest.fixture
def compounds(db):
    front = make_compound("front man", gold_synonym="representative")
    make_sentence(front, "John Paul II was an effective front man for the catholic church.")
    return [front, make_compound("eager beaver", gold_synonym="hard worker")]


@pytest.mark.django_db
def test_a_curator_starts_generation_from_the_page_and_lands_on_its_progress(
    client, carol, compounds, inline_worker, django_capture_on_commit_callbacks
):
    client.force_login(carol)
    page = client.get(reverse("generate_variants"))
    assert page.status_code == 200 and "NC_WordsSyn" in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("generate_variants"), {"language": "en", "compounds": "front man", "neutral": "on"}
        )
    job = BuildJob.objects.get()
    assert response.status_code == 302 and response.url == reverse("build_job", kwargs={"pk": job.pk})
    assert (job.kind, job.status, job.done, job.total) == (BuildJob.Kind.GENERATE_VARIANTS, BuildJob.Status.DONE, 1, 1)
    assert Variant.objects.filter(sentence__compound=compounds[0]).count() > 40
    assert not Variant.objects.filter(sentence__compound=compounds[1]).exists()
    progress = client.get(reverse("build_job_json", kwargs={"pk": job.pk})).json()
    assert progress["status"] == "done" and progress["result"]["created"] > 40


@pytest.mark.django_db
def test_unknown_compounds_and_bad_pool_files_are_refused_with_the_reason(client, carol, compounds):
    client.force_login(carol)
    response = client.post(reverse("generate_variants"), {"language": "en", "compounds": "front man, grey matter"})
    assert "Not in the dataset: grey matter." in response.content.decode()
    pool = SimpleUploadedFile("pool.txt", b"police car\nlonely\n")
    response = client.post(reverse("generate_variants"), {"language": "en", "pool_file": pool})
    assert "pool.txt:2: &#x27;lonely&#x27;: a compound needs two or more words" in response.content.decode()
    assert not BuildJob.objects.exists()


@pytest.mark.django_db
def test_only_curators_may_generate(client, compounds):
    assert client.get(reverse("generate_variants")).status_code == 302  # to the login page
    client.force_login(get_user_model().objects.create_user("alice"))
    assert client.post(reverse("generate_variants"), {"language": "en"}).status_code == 403


@pytest.mark.django_db
def test_an_uploaded_pool_supplies_the_random_compounds(
    client, carol, compounds, inline_worker, django_capture_on_commit_callbacks
):
    client.force_login(carol)
    pool = SimpleUploadedFile("pool.txt", "".join(f"pool word{i}\n" for i in range(12)).encode())
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("generate_variants"), {"language": "en", "compounds": "front man", "pool_file": pool})
    rand = Variant.objects.filter(sentence__compound=compounds[0], kind=vocabulary.RANDOM_FREQ, isolated=False)
    assert rand.exists()
    assert {x.replacement.split()[0] for x in rand} <= {"pool", "eager"}  # the file's entries or dataset compounds


def pool_texts(options: GenerationOptions) -> set[str]:
    return {candidate.text for candidate in load_resources("en", options).pool.by_text}


def store_pool(name: str, word: str) -> None:
    default_storage.delete(name)  # an old upload gone, its name free again
    default_storage.save(name, ContentFile("".join(f"{word} word{i}\n" for i in range(12))))


@pytest.mark.django_db
def test_a_new_pool_stored_under_an_old_name_is_read_not_the_old_one_a_worker_kept(settings, tmp_path, compounds):
    """A worker keeps a language's resources between batches: a pool is known by its bytes, not its name."""
    settings.MEDIA_ROOT = tmp_path / "media"
    options = GenerationOptions(pool_storage="pools/pool.txt", context_model="none")
    for word in ("first", "second"):
        store_pool(options.pool_storage, word)
        texts = {text.split()[0] for text in pool_texts(options)}
        assert texts == {word, "front", "eager"}  # the stored file's entries and the dataset's compounds


@pytest.mark.django_db
def test_a_server_pool_file_written_again_is_read_again(tmp_path, compounds):
    path = tmp_path / "pool.txt"
    options = GenerationOptions(pool_file=str(path), context_model="none")
    for word in ("first", "second"):
        path.write_text("".join(f"{word} word{i}\n" for i in range(12)))
        assert {text.split()[0] for text in pool_texts(options)} == {word, "front", "eager"}


@pytest.mark.django_db
def test_compounds_imported_after_a_worker_kept_its_resources_enter_the_random_pool(settings, tmp_path, compounds):
    settings.MEDIA_ROOT = tmp_path / "media"
    options = GenerationOptions(pool_storage="pools/pool.txt", context_model="none")
    store_pool(options.pool_storage, "first")
    assert "brick wall" not in pool_texts(options)
    wall = make_compound("brick wall")
    assert "brick wall" in pool_texts(options)
    wall.delete()
    assert "brick wall" not in pool_texts(options)


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_generation_job_runs_on_a_real_worker_through_redis(celery_worker, compounds):
    with celery_worker():
        job = start_generation_job(compounds, GenerationOptions(), batch=1)  # on_commit: autocommit runs it now
        for _ in range(600):
            job.refresh_from_db()
            if job.is_finished:
                break
            time.sleep(0.1)
    assert (job.status, job.done, sorted(job.done_parts)) == (BuildJob.Status.DONE, 2, [0, 1])
    assert Variant.objects.filter(sentence__compound__in=compounds).count() == job.result["created"]


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_batch_whose_worker_was_killed_is_requeued_and_the_job_finishes(celery_worker, compounds, settings):
    job = create_generation_job(compounds, GenerationOptions(), batch=1)
    # What a SIGKILL during batch 1 leaves: the batch running, its worker silent, its message gone.
    killed_at = timezone.now() - timedelta(seconds=settings.SHARD_HEARTBEAT_TIMEOUT + 60)
    job.shards.filter(index=1).update(
        status=BuildShard.RUNNING, attempts=1, worker="killed-host:4242", heartbeat_at=killed_at
    )
    with celery_worker():
        generate_variants_batch_task.delay(job.pk, 0)
        job = wait_until(job, lambda j: j.done_parts == [0])
        assert job.status == BuildJob.Status.RUNNING
        assert requeue_stale_build_shards_task() == [[job.pk, 1]]
        assert requeue_stale_build_shards_task() == []
        job = wait_until(job, lambda j: j.is_finished)
    assert (job.status, job.done, job.done_parts) == (BuildJob.Status.DONE, 2, [0, 1])
    shard = job.shards.get(index=1)
    assert (shard.status, shard.attempts) == (BuildShard.DONE, 2) and shard.worker != "killed-host:4242"
    created = Variant.objects.filter(sentence__compound__in=compounds).count()
    assert created == job.result["created"] > 0
    # The lost message, back from the broker at last: no batch generated twice, nothing counted twice.
    assert generate_variants_batch_task(job.pk, 1) is False
    job.refresh_from_db()
    assert (job.done, job.result["created"]) == (2, created)


def wait_until(job: BuildJob, done, seconds: float = 60.0) -> BuildJob:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if done(job):
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job.pk} still {job.status} with parts {job.done_parts} done")
