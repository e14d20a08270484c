"""Probe runs end to end in this process: shards, cache, report, idempotence, cancel and resume."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import AutoModel, AutoTokenizer

from probing.actions import (
    ProbeError,
    cancel_run,
    create_probe_run,
    release_probes,
    resume_run,
    run_inline,
    run_shard,
)
from probing.embedding.base import EmbedConfig
from probing.models import CachedVectors, ProbeRun, ProbeShard
from probing.report.build import report_csv, run_report
from tests.float32 import float32_close
from tests.probing.probe_factories import COMPOUNDS, SENTENCES, make_probe_data, publish, register_tiny_bert

pytestmark = pytest.mark.django_db


@pytest.fixture
def release():
    make_probe_data()
    return publish("1.0.0")


@pytest.fixture
def bert(tmp_path):
    return register_tiny_bert(tmp_path / "tiny-bert")


def test_a_run_measures_every_compound_at_both_levels_and_conditions(release, bert):
    run = create_probe_run(release, bert, shard_size=2)
    assert (run.status, run.shards_total, run.queue) == (ProbeRun.Status.QUEUED, 3, "probe_cpu")
    assert run.provenance["release"] == {"version": "1.0.0", "checksum": release.checksum, "languages": ["en"]}

    run = run_inline(run)

    assert run.status == ProbeRun.Status.DONE, run.error
    assert run.shards_done == 3 and run.texts_embedded + run.texts_cached == run.texts_total
    # Shards share texts (the random variants of the same sentence pattern): each is embedded by one shard only.
    assert run.texts_cached == 0 and CachedVectors.objects.count() == run.texts_embedded == run.texts_total
    report = run_report(run)
    assert report["run"] == run.pk
    rows = report["per_compound"]
    assert {(r["compound"], r["condition"], r["level"]) for r in rows} == {
        (c[0], condition, level)
        for c in COMPOUNDS
        for condition in ("naturalistic", "neutral")
        for level in ("sentence", "nc")
    }
    beaver = next(r for r in rows if r["compound"] == "eager beaver" and r["level"] == "nc")
    assert set(beaver["sim"]) == {"syn", "comp", "words_syn", "rand"}
    assert all(isinstance(x, float) for x in [*beaver["sim"].values(), *beaver["affinity"].values()])
    assert beaver["sim_std"]["syn"] != beaver["sim"]["syn"]
    # The fixture model places each synonym near its compound's words: a working engine must see it.
    for row in rows:
        where = (row["compound"], row["condition"], row["level"])
        assert row["sim"]["syn"] > row["sim"]["rand"], where
        assert row["affinity"]["syn_rand"] > 0, where
        assert isinstance(row["scaled"]["syn"], float) and row["scaled"]["syn"] > row["scaled"]["words_syn"], where
    # The NC vector is pooled over the replaced words only, so it moves more than the sentence's.
    by_key = {(r["compound"], r["condition"], r["level"]): r for r in rows}
    for compound, condition, level in by_key:
        if level == "nc":
            assert (
                by_key[compound, condition, "nc"]["sim"]["rand"]
                < by_key[compound, condition, "sentence"]["sim"]["rand"]
            )
    assert beaver["human"] == 0.8 and report["human_score"]["sources"] == {"token_score": 4, "type_score": 1}
    assert report["summary"] and report["context"]
    overall = [r for r in report["correlations"] if r["subset"] == "all"]
    assert overall and all(isinstance(r["rho"], float) and isinstance(r["p"], float) and r["n"] == 5 for r in overall)
    provenance = report["provenance"]
    assert provenance["model_identity"]["weights_sha256"] and provenance["config"]["batch_size"] == 8
    assert provenance["packages"]["torch"] and provenance["code_version"]
    assert [w["shards"] for w in provenance["workers"]] == [[0, 1, 2]]
    # The standardisation read every vector the shards stored: none had to be embedded again.
    probes = release_probes(run.release)
    pair_items = {i for p in probes.select(probes.compounds)[0] for i in (p.original, p.variant)}
    assert report["standardisation"] == {
        "levels": {"sentence": len(pair_items), "nc": len(pair_items)},
        "reembedded": 0,
    }
    assert report_csv(run, "per_compound").startswith(f"# probe run {run.pk} (done): model tiny-bert")


def nc_vector(folder, text: str, span: str) -> np.ndarray:
    """The NC vector computed without the engine: last four layers averaged, then the span's tokens averaged."""
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    encoded = tokenizer(text, return_tensors="pt", return_offsets_mapping=True)
    start = text.index(span)
    tokens = [
        i
        for i, (a, b) in enumerate(encoded.pop("offset_mapping")[0].tolist())
        if b > a and a >= start and b <= start + len(span)
    ]
    with torch.no_grad():
        states = model(**encoded, output_hidden_states=True).hidden_states
    return torch.stack(states[-4:]).mean(dim=0)[0, tokens].mean(dim=0).numpy()


def test_the_reported_similarity_is_the_cosine_of_the_span_vectors(release, bert):
    report = run_report(run_inline(create_probe_run(release, bert)))
    folder = bert.source
    sims = []
    for pattern in SENTENCES:
        original = nc_vector(folder, pattern.format("eager beaver"), "eager beaver")
        synonym = nc_vector(folder, pattern.format("hard worker"), "hard worker")
        sims.append(float(original @ synonym / np.linalg.norm(original) / np.linalg.norm(synonym)))
    row = next(
        r
        for r in report["per_compound"]
        if (r["compound"], r["condition"], r["level"]) == ("eager beaver", "naturalistic", "nc")
    )
    assert row["sim"]["syn"] == float32_close(np.mean(sims))  # the run's batches vs each text alone


def test_a_second_release_with_the_same_data_embeds_nothing_new(release, bert):
    first = run_inline(create_probe_run(release, bert))
    rows = CachedVectors.objects.count()
    second = run_inline(create_probe_run(publish("1.0.1"), bert))
    assert second.status == ProbeRun.Status.DONE
    assert (second.texts_embedded, second.texts_cached) == (0, second.texts_total)
    assert CachedVectors.objects.count() == rows
    assert run_report(second)["per_compound"] == run_report(first)["per_compound"]


def test_a_config_change_that_changes_vectors_misses_the_cache(release, bert):
    run_inline(create_probe_run(release, bert))
    faster = run_inline(create_probe_run(release, bert, config={"batch_size": 3}))
    assert faster.texts_embedded == 0  # batch size never changes a vector
    last_layer = run_inline(create_probe_run(release, bert, config={"layers": [-1]}))
    assert last_layer.texts_cached == 0 and last_layer.texts_embedded == last_layer.texts_total


def test_running_a_finished_shard_again_changes_nothing(release, bert):
    run = run_inline(create_probe_run(release, bert, shard_size=2))
    shard = run.shards.get(index=1)
    before = (shard.result, shard.finished_at, shard.attempts)
    assert run_shard(run.pk, 1) is False
    shard.refresh_from_db()
    run.refresh_from_db()
    assert (shard.result, shard.finished_at, shard.attempts) == before
    assert (run.shards_done, run.status) == (3, ProbeRun.Status.DONE)


def test_a_cancelled_run_skips_its_remaining_shards_and_resumes_where_it_stopped(release, bert):
    run = create_probe_run(release, bert, shard_size=2)
    assert run_shard(run.pk, 0) is True
    assert cancel_run(run) and run.status == ProbeRun.Status.CANCELLED
    assert run_shard(run.pk, 1) is False
    assert run.shards.get(index=1).status == ProbeShard.PENDING
    done_at = run.shards.get(index=0).finished_at

    assert resume_run(run) == [1, 2]
    run = run_inline(run)

    assert run.status == ProbeRun.Status.DONE
    assert run.shards.get(index=0).finished_at == done_at
    assert run.shards.get(index=0).attempts == 1


def test_drafts_and_bad_configs_are_refused(bert):
    from releases.actions import create_release

    make_probe_data(COMPOUNDS[:1])
    draft = create_release("0.1.0", languages=["en"])
    with pytest.raises(ProbeError, match="draft"):
        create_probe_run(draft, bert)
    release = publish("0.2.0")
    with pytest.raises(ProbeError, match="unknown embedding config keys: pooling"):
        create_probe_run(release, bert, config={"pooling": "max"})
    assert not ProbeRun.objects.exists()


def test_the_release_is_read_once_per_process(release, bert, django_assert_max_num_queries, monkeypatch):
    from probing.run import loading

    settled = []
    monkeypatch.setattr(loading, "settle", lambda: settled.append(True))
    loading._releases.clear()
    release_probes(release)
    assert settled == [True]  # the pairs the worker keeps are left out of later collections (core.memory)
    with django_assert_max_num_queries(0):
        assert release_probes(release).compounds
    assert settled == [True]


def test_the_admin_shows_runs_with_progress_and_cancels_them(admin_client, release, bert):
    run = create_probe_run(release, bert, shard_size=2)
    run_shard(run.pk, 0)
    page = admin_client.get("/admin/probing/proberun/").content.decode()
    assert '<progress value="1" max="3"></progress> 1/3' in page
    assert "tiny-bert" in admin_client.get(f"/admin/probing/proberun/{run.pk}/change/").content.decode()
    response = admin_client.post(
        "/admin/probing/proberun/", {"action": "cancel_runs", "_selected_action": [run.pk]}, follow=True
    )
    assert "1 run(s) cancelled." in response.content.decode()
    run.refresh_from_db()
    assert run.status == ProbeRun.Status.CANCELLED
    assert admin_client.get("/admin/probing/embeddingmodel/").status_code == 200


def test_the_eta_follows_the_pace_of_the_shards_done_since_the_start_or_the_last_resume(release, bert):
    from datetime import timedelta

    from django.utils import timezone

    from probing.actions import _eta

    run = create_probe_run(release, bert, shard_size=2)  # 3 shards
    now = timezone.now()
    run.started_at, run.shards_done = now - timedelta(seconds=30), 1
    assert _eta(run, now) == pytest.approx(60.0)  # 30 s for one shard, two left
    # After a resume only the shards done since then set the pace.
    run.resumed_at, run.shards_done = now - timedelta(seconds=10), 2
    ProbeShard.objects.filter(run=run, index=0).update(status=ProbeShard.DONE, finished_at=now - timedelta(seconds=20))
    ProbeShard.objects.filter(run=run, index=1).update(status=ProbeShard.DONE, finished_at=now - timedelta(seconds=5))
    assert _eta(run, now) == pytest.approx(10.0)  # 10 s for the one shard done since, one left
    run.shards_done = 3
    assert _eta(run, now) == 0.0


def test_vectors_that_left_the_cache_are_embedded_again_into_the_finished_runs_table(release, bert, monkeypatch):
    from probing.report import build
    from probing.run.cache import run_memo
    from probing.run.loading import release_probes

    monkeypatch.setattr(build, "TABLE_CHUNK", 7)  # several chunks, as a large run reads them
    run = run_inline(create_probe_run(release, bert))
    probes = release_probes(release)
    items = probes.items(probes.compounds)
    before, none_missing = build.run_table(run, items, EmbedConfig.from_dict(run.config))
    assert none_missing == 0 and not np.isnan(before.sentence).any()
    gone = CachedVectors.objects.order_by("key").values_list("pk", flat=True)[:5]
    CachedVectors.objects.filter(pk__in=list(gone)).delete()
    run_memo.forget(run.pk)
    after, reembedded = build.run_table(run, items, EmbedConfig.from_dict(run.config))
    assert reembedded == 5
    assert after.items == before.items
    np.testing.assert_allclose(after.sentence, before.sentence, rtol=0, atol=1e-6)
    np.testing.assert_allclose(after.span, before.span, rtol=0, atol=1e-6, equal_nan=True)
