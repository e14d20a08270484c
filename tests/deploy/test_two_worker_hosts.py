"""Two worker hosts that share only PostgreSQL, the broker and an S3 bucket (issue 35, item 3).

Each host is a real Celery worker process (``tests/probing/worker_processes.py``) with a working directory,
a var folder (``WORKBENCH_VAR_DIR``: MEDIA_ROOT, NLTK data, engines), a home, caches and a temporary folder
of its own, all empty at the start; its environment names this test's database, Redis and the bucket
(``WORKBENCH_STORAGE``, moto's S3 server over HTTP: ``tests/storage_fixtures.py``), as a deployment's does.
What the hosts have in common on disk is what every machine carries: the code and the model files.

A sharded probe run and a generation job are split over both hosts; one host is SIGKILLed while it holds
a shard, the periodic requeue task (called here as beat would) sends that shard again once its heartbeat
is SHARD_HEARTBEAT_TIMEOUT old, and the other host finishes with the numbers (the variants) of a run in
one process. The split is made certain, not likely: workers take one message at a time (prefetch 1), so
two idle hosts take one shard each, and while this test holds the job's row (``recording_held``) a host
that has computed a shard waits to record it, the shard running under it, where it is killed.
Then PROBE_QUEUES: a GPU model's shards reach only the host started with ``-Q`` its GPU queue.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import connections, transaction
from django.db.models import Model, QuerySet

from building.models import BuildJob
from building.tasks import enqueue_parts, requeue_stale_build_shards_task
from building.variants.jobs import create_generation_job, run_generation_batch
from building.variants.resources import GenerationOptions
from config.celery import app
from core.models import Shard
from core.paths import real_path
from datasets import vocabulary
from datasets.models import Variant
from probing import tasks
from probing.actions import create_probe_run, run_inline
from probing.models import CachedVectors, EmbeddingModel, ProbeRun
from probing.report.build import run_report
from tests.datasets.factories import make_compound, make_sentence
from tests.float32 import assert_same_numbers
from tests.probing.probe_factories import make_probe_data, publish, register_tiny_bert
from tests.probing.test_worker_resume import numbers
from tests.probing.worker_processes import start_worker, wait_for
from tests.storage_fixtures import S3_BACKEND

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]
CPU_QUEUE, GPU_QUEUE = f"probe_cpu_hosts_{os.getpid()}", f"probe_gpu_hosts_{os.getpid()}"
BUILD_QUEUE = "celery"  # generation batches go to the default queue, here in this test process's own Redis database
TIMEOUT = 6  # seconds of silence before a shard is taken for dead, for the hosts and this process alike
POOL = "".join(f"stored word{i}\n" for i in range(12))
GENERATED = ["front man", "eager beaver", "research lab", "police car", "brick wall"]


@dataclass
class Host:
    """A worker machine: its own folder, its own process."""

    name: str
    folder: Path
    process: subprocess.Popen

    @property
    def media(self) -> Path:
        return self.folder / "var" / "media"

    def took(self, shard: Shard) -> bool:
        """Whether this host's process claimed ``shard`` last (``core.shards.worker_name``: host:pid:namespace)."""
        return shard.worker.split(":")[1] == str(self.process.pid)

    def kill(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)


@pytest.fixture
def models(settings, tmp_path) -> Path:
    """The model folder every host carries, listed as an administrator lists it (in this process too)."""
    folder = tmp_path / "models"
    folder.mkdir()
    settings.WORKBENCH_MODEL_DIRS = [*settings.WORKBENCH_MODEL_DIRS, real_path(folder)]
    return folder


@pytest.fixture
def start_host(
    celery_worker, redis_url, s3_storage, models, settings, tmp_path
) -> Iterator[Callable[[str, str], Host]]:
    """``start_host(name, queues)``: a host consuming ``queues`` (commas), once it answers a ping.

    ``celery_worker`` only points this process's Celery app at ``redis_url`` here: no worker runs in it.
    """
    storage = {
        "WORKBENCH_STORAGE": S3_BACKEND,
        "WORKBENCH_STORAGE_OPTIONS": json.dumps(settings.STORAGES["default"]["OPTIONS"]),
    }
    heartbeat = {"SHARD_HEARTBEAT_TIMEOUT": str(TIMEOUT), "SHARD_HEARTBEAT_EVERY": "1"}
    hosts: list[Host] = []

    def start(name: str, queues: str) -> Host:
        folder = tmp_path / name
        for sub in ("work", "var", "home", "cache", "tmp"):
            (folder / sub).mkdir(parents=True)
        own = {"WORKBENCH_VAR_DIR": folder / "var", "HOME": folder / "home", "TMPDIR": folder / "tmp"}
        own |= {"XDG_CACHE_HOME": folder / "cache", "HF_HOME": folder / "cache" / "huggingface"}
        env = {**storage, **heartbeat, **{key: str(value) for key, value in own.items()}}
        node = f"{name}@two-hosts-{os.getpid()}"
        log = tmp_path / f"{name}.log"
        process = start_worker(redis_url, queues, models, log, env, "-n", node, cwd=folder / "work")
        hosts.append(Host(name, folder, process))
        wait_for(lambda: process.poll() is None and app.control.ping([node], timeout=0.5), 120, f"{name} to start")
        return hosts[-1]

    for queue in (CPU_QUEUE, GPU_QUEUE, BUILD_QUEUE):
        with app.connection_for_write() as broker:
            broker.default_channel.queue_purge(queue)
    try:
        yield start
    finally:
        for host in hosts:
            host.stop()


@contextmanager
def recording_held(job: Model) -> Iterator[None]:
    """The job's row locked by another connection while the block runs: ``core.shards.complete_shard`` locks it
    first, so a worker that has computed a shard waits there, its shard still running under it."""
    locked, release = threading.Event(), threading.Event()

    def hold() -> None:
        try:
            with transaction.atomic():
                type(job).objects.select_for_update().get(pk=job.pk)
                locked.set()
                release.wait(300)
        finally:
            connections.close_all()  # this thread's own connection

    thread = threading.Thread(target=hold, name="recording held", daemon=True)
    thread.start()
    assert locked.wait(30), "the job's row could not be locked"
    try:
        yield
    finally:
        release.set()
        thread.join(30)


def split_kill_and_finish(
    job: Model, shards: QuerySet, enqueue: Callable[[list[int]], None], requeue: Callable[[], list], hosts: list[Host]
) -> Shard:
    """Shards 0 and 1 sent to two idle hosts, one each; 2 and 3 computed by one each and held at their recording;
    the first host killed there, the rest sent; the killed shard requeued by the periodic task and the job
    finished by the second host. The killed shard."""
    first, second = hosts
    total = shards.count()
    enqueue([0, 1])
    wait_for(lambda: shards.filter(status=Shard.DONE).count() == 2, 240, "a shard done on each host")
    assert {owner(shard, hosts) for shard in shards.filter(index__in=[0, 1])} == {first.name, second.name}
    with recording_held(job):
        enqueue([2, 3])

        def held() -> list[Shard]:
            running = list(shards.filter(status=Shard.RUNNING))
            return running if {owner(shard, hosts) for shard in running} == {first.name, second.name} else []

        [killed] = [shard for shard in wait_for(held, 240, "a shard held on each host") if first.took(shard)]
        first.kill()
        enqueue(list(range(4, total)))
    wait_for(lambda: shards.filter(status=Shard.DONE).count() == total - 1, 240, "the other shards")
    killed.refresh_from_db()
    assert (killed.status, killed.attempts) == (Shard.RUNNING, 1)  # nobody takes it while it may be alive
    assert wait_for(requeue, 3 * TIMEOUT, "the killed host's shard to go stale") == [[job.pk, killed.index]]
    wait_for(lambda: type(job).objects.get(pk=job.pk).is_finished, 240, "the job to finish")
    killed.refresh_from_db()
    assert (killed.status, killed.attempts) == (Shard.DONE, 2) and second.took(killed)
    return killed


def owner(shard: Shard, hosts: list[Host]) -> str:
    """The name of the host that claimed ``shard`` last; "" for none of them."""
    return next((host.name for host in hosts if host.took(shard)), "")


def who_did(shards: QuerySet, hosts: list[Host]) -> dict[str, list[int]]:
    """Each host's name and the indices of the shards it completed."""
    done = shards.filter(status=Shard.DONE).order_by("index")
    return {host.name: [shard.index for shard in done if host.took(shard)] for host in hosts}


def assert_nothing_on_their_disks(hosts: list[Host]) -> None:
    for host in hosts:
        assert not any(host.media.rglob("*")), host.name
        assert not any((host.folder / "work").iterdir()), host.name


def test_a_probe_run_split_over_two_hosts_finishes_on_one_when_the_other_is_killed(
    start_host, s3_storage, models, settings
):
    settings.PROBE_QUEUES = {"cpu": CPU_QUEUE, "gpu": GPU_QUEUE}
    settings.SHARD_HEARTBEAT_TIMEOUT = TIMEOUT
    make_probe_data()
    release = publish("1.0.0")
    bert = register_tiny_bert(models / "tiny-bert")
    hosts = [start_host("host-a", CPU_QUEUE), start_host("host-b", CPU_QUEUE)]
    run = create_probe_run(release, bert, shard_size=1)
    assert run.queue == CPU_QUEUE and run.shards_total == 5

    def enqueue(indices: list[int]) -> None:
        tasks.enqueue_shards(run.pk, run.queue, indices)

    killed = split_kill_and_finish(run, run.shards, enqueue, tasks.requeue_stale_probe_shards_task, hosts)

    run.refresh_from_db()
    assert run.status == ProbeRun.Status.DONE, run.error
    done = who_did(run.shards, hosts)
    assert len(done["host-a"]) == 1 and sorted(done["host-a"] + done["host-b"]) == [0, 1, 2, 3, 4]
    assert killed.index in done["host-b"]
    assert s3_storage.keys() == [] and s3_storage.local_files() == []
    assert_nothing_on_their_disks(hosts)
    split = numbers(run_report(run))
    CachedVectors.objects.all().delete()
    alone = run_inline(create_probe_run(release, bert, shard_size=1))
    assert alone.status == ProbeRun.Status.DONE, alone.error
    expected = numbers(run_report(alone))
    assert_same_numbers(split, expected)


def generated_variants() -> list[tuple]:
    """Every variant's sentence, kind, rank, isolation, text and span, in one order."""
    fields = ("sentence__text", "kind", "rank", "isolated", "text", "span_start", "span_end", "status")
    return sorted(Variant.objects.values_list(*fields))


def test_a_generation_job_split_over_two_hosts_finishes_on_one_when_the_other_is_killed(
    start_host, s3_storage, debian_wordnet, settings, tmp_path_factory
):
    settings.SHARD_HEARTBEAT_TIMEOUT = TIMEOUT
    settings.WORDNET_DIR = debian_wordnet  # for the one-process job below; the hosts read Debian's by default
    settings.NLTK_DATA_DIR = tmp_path_factory.getbasetemp() / "nltk_data"
    compounds = [make_compound(text) for text in GENERATED]
    for compound in compounds:
        make_sentence(compound, f"Everyone saw the {compound.text} near the station yesterday.")
    s3_storage.put("pools/pool.txt", POOL.encode())  # the pool exists in the bucket only
    # Ranked by the lexicon: the context model would embed on every core (tests/conftest.py).
    options = GenerationOptions(pool_storage="pools/pool.txt", context_model="none")
    hosts = [start_host("host-a", BUILD_QUEUE), start_host("host-b", BUILD_QUEUE)]
    job = create_generation_job(compounds, options, batch=1)
    assert job.shards.count() == 5

    killed = split_kill_and_finish(
        job, job.shards, lambda indices: enqueue_parts(job, indices), requeue_stale_build_shards_task, hosts
    )

    job.refresh_from_db()
    assert (job.status, job.done, job.done_parts) == (BuildJob.Status.DONE, 5, [0, 1, 2, 3, 4]), job.message
    done = who_did(job.shards, hosts)
    assert len(done["host-a"]) == 1 and killed.index in done["host-b"]
    split = generated_variants()
    rand = [text for _, kind, _, isolated, text, *_ in split if kind == vocabulary.RANDOM_FREQ and isolated]
    assert any(text.startswith("stored word") for text in rand), rand  # read from the bucket by both hosts
    assert s3_storage.keys() == ["pools/pool.txt"] and s3_storage.local_files() == []
    assert_nothing_on_their_disks(hosts)
    Variant.objects.all().delete()
    alone = create_generation_job(compounds, options, batch=1)
    for index in range(5):
        run_generation_batch(alone.pk, index)
    assert split == generated_variants() and len(split) == job.result["created"]


def test_probe_queues_send_a_gpu_models_shards_to_the_gpu_host_only(start_host, models, settings):
    settings.PROBE_QUEUES = {"cpu": CPU_QUEUE, "gpu": GPU_QUEUE}
    make_probe_data()
    release = publish("1.0.0")
    on_cpu = register_tiny_bert(models / "cpu-bert", name="cpu-bert")
    on_gpu = register_tiny_bert(models / "gpu-bert", name="gpu-bert", queue=EmbeddingModel.Queue.GPU)
    hosts = [start_host("cpu-host", CPU_QUEUE), start_host("gpu-host", GPU_QUEUE)]  # `-Q probe_gpu` on GPU machines

    runs = [tasks.start_probe_run(release, model, shard_size=2) for model in (on_cpu, on_gpu)]  # enqueued at once
    for run in runs:
        wait_for(lambda run=run: ProbeRun.objects.get(pk=run.pk).is_finished, 240, f"the run of {run.model.name}")

    cpu_run, gpu_run = (ProbeRun.objects.get(pk=run.pk) for run in runs)
    assert (cpu_run.status, gpu_run.status) == (ProbeRun.Status.DONE, ProbeRun.Status.DONE), (
        cpu_run.error + gpu_run.error
    )
    assert (cpu_run.queue, gpu_run.queue) == (CPU_QUEUE, GPU_QUEUE)
    assert who_did(cpu_run.shards, hosts) == {"cpu-host": [0, 1, 2], "gpu-host": []}
    assert who_did(gpu_run.shards, hosts) == {"cpu-host": [], "gpu-host": [0, 1, 2]}
