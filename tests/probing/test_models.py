"""The model registry, its validation, the bundled MiniLM and the database vector cache."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from core.json_columns import FastJSONEncoder
from probing.actions import ProbeError, register_model
from probing.embedding.base import Vectors, bundled_minilm_path
from probing.models import CachedVectors, EmbeddingModel, ProbeRun, ProbeShard
from probing.run import cache as cache_module
from probing.run.cache import DatabaseVectorCache
from tests.probing.report_factories import make_model, make_release, make_run

pytestmark = pytest.mark.django_db


def test_the_bundled_minilm_is_registered_and_resolves_to_the_installed_folder():
    minilm = EmbeddingModel.objects.get(name="minilm")
    assert (minilm.kind, minilm.source, minilm.queue, minilm.active) == (
        "sentence_transformers",
        "bundled:minilm",
        "cpu",
        True,
    )
    assert minilm.resolved_source() == str(bundled_minilm_path())
    assert minilm.celery_queue == "probe_cpu"
    assert minilm.embed_config().layers == (-4, -3, -2, -1)


def test_config_overrides_are_checked_against_the_embed_config(tmp_path):
    model = EmbeddingModel(name="bert", kind="transformer", source=str(tmp_path / "bert"), config={"layer": [-1]})
    with pytest.raises(ValidationError, match="unknown embedding config keys: layer"):
        model.full_clean()
    model.config = {"layers": [-1], "dtype": "float64"}
    with pytest.raises(ValidationError, match="dtype must be one of"):
        model.full_clean()
    model.config = {"layers": [-1], "batch_size": 8}
    model.full_clean()
    assert model.embed_config({"batch_size": 4}).as_dict()["batch_size"] == 4


def test_a_secret_in_the_options_is_refused():
    with pytest.raises(ProbeError, match="Never store a secret here \\(api_key\\)"):
        register_model("openai-small", "openai", "text-embedding-3-small", options={"api_key": "sk-123"})
    model = register_model(
        "openai-small", "openai", "text-embedding-3-small", options={"api_key_env": "OPENAI_API_KEY"}
    )
    assert model.options == {"api_key_env": "OPENAI_API_KEY"}


def test_registering_a_name_again_updates_the_model(tmp_path):
    register_model("glove", "static_vectors", str(tmp_path / "glove.txt"))
    register_model("glove", "static_vectors", str(tmp_path / "glove.840B.txt"), queue="gpu")
    glove = EmbeddingModel.objects.get(name="glove")
    assert (glove.source, glove.celery_queue) == (str(tmp_path / "glove.840B.txt"), "probe_gpu")


def vectors(seed: int, span: bool = True) -> Vectors:
    rng = np.random.default_rng(seed)
    return Vectors(
        sentence=rng.normal(size=8).astype(np.float32),
        span=rng.normal(size=8).astype(np.float32) if span else None,
        tokens=seed,
        oov=seed % 2,
    )


def test_the_database_cache_gives_back_exactly_what_it_stored(monkeypatch):
    monkeypatch.setattr(cache_module, "CHUNK", 2)  # several queries and insert batches
    cache = DatabaseVectorCache("model-a")
    stored = {f"key{i}": vectors(i, span=i != 3) for i in range(5)}
    cache.put_many(stored)
    found = cache.get_many([*stored, "unknown"])
    assert found.keys() == stored.keys()
    for key, original in stored.items():
        assert found[key].sentence.dtype == np.float32
        np.testing.assert_array_equal(found[key].sentence, original.sentence)
        if original.span is None:
            assert found[key].span is None
        else:
            np.testing.assert_array_equal(found[key].span, original.span)
        assert (found[key].tokens, found[key].oov) == (original.tokens, original.oov)
    assert set(CachedVectors.objects.values_list("model", "dim").distinct()) == {("model-a", 8)}


def test_a_key_stored_twice_keeps_the_first_vectors():
    cache = DatabaseVectorCache("model-a")
    cache.put_many({"same": vectors(1)})
    cache.put_many({"same": vectors(2), "other": vectors(3)})
    assert CachedVectors.objects.count() == 2
    np.testing.assert_array_equal(cache.get_many(["same"])["same"].sentence, vectors(1).sentence)


def test_reports_and_shard_results_are_stored_with_lz4_where_postgresql_has_it():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's column compression")
    with connection.cursor() as cursor:
        cursor.execute("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
        if "lz4" not in cursor.fetchone()[0]:
            pytest.skip("this PostgreSQL was built without lz4")
        cursor.execute(
            "SELECT attrelid::regclass::text, attname, attcompression FROM pg_attribute "
            "WHERE (attrelid, attname) IN (('probing_proberun'::regclass, 'report'), "
            "('probing_probeshard'::regclass, 'result'))"
        )
        assert sorted(cursor.fetchall()) == [("probing_proberun", "report", "l"), ("probing_probeshard", "result", "l")]


def test_cache_rows_of_one_text_stay_inline_and_vectors_are_never_compressed():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's TOAST settings")
    rng = np.random.default_rng(0)
    dim = 384  # the bundled MiniLM: two float32 vectors are 3 KB, over the default 2 KB threshold
    DatabaseVectorCache("model-a").put_many(
        {"row": Vectors(rng.normal(size=dim).astype(np.float32), rng.normal(size=dim).astype(np.float32), tokens=5)}
    )
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE oid = 'probing_cachedvectors'::regclass")
        assert "toast_tuple_target=8160" in cursor.fetchone()[0]
        cursor.execute(
            "SELECT attname, attstorage FROM pg_attribute WHERE attrelid = 'probing_cachedvectors'::regclass "
            "AND attname IN ('sentence', 'span', 'layers') ORDER BY attname"
        )
        assert cursor.fetchall() == [("layers", "e"), ("sentence", "e"), ("span", "e")]
        # Nothing of the row went to the TOAST table: its vectors are read with the row.
        cursor.execute(
            "SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'probing_cachedvectors'::regclass"
        )
        assert cursor.fetchone()[0] == 0


def test_reports_and_shard_results_are_written_through_orjson_and_read_back_equal():
    run = make_run(make_release(), make_model(), report={"rho": np.float64(0.1) + 0.2, "rows": [{"p": 1e-12}]})
    ProbeShard.objects.create(run=run, index=0, result={"sims": np.array([0.5, 0.25]), "missing": np.nan})
    assert ProbeRun._meta.get_field("report").encoder is FastJSONEncoder
    assert ProbeRun.objects.get(pk=run.pk).report == {"rho": 0.30000000000000004, "rows": [{"p": 1e-12}]}
    assert ProbeShard.objects.get(run=run).result == {"sims": [0.5, 0.25], "missing": None}
