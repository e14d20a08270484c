"""Probe runs end to end in this process: shards, cache, report, idempotence, cancel and resume."""

from __future__ import annotations

import pytest

from probing.actions import (
    ProbeError,
    cancel_run,
    release_probes,
    resume_run,
    run_inline,
    run_shard,
    start_probe_run,
)
from probing.models import CachedVectors, ProbeRun, ProbeShard
from probing.reporting import report_csv, run_report
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish, register_tiny_bert

pytestmark = pytest.mark.django_db


@pytest.fixture
def release():
    make_probe_data()
    return publish("1.0.0")


@pytest.fixture
def bert(tmp_path):
    return register_tiny_bert(tmp_path / "tiny-bert")


def test_a_run_measures_every_compound_at_both_levels_and_conditions(release, bert):
    run = start_probe_run(release, bert, shard_size=2, enqueue=False)
    assert (run.status, run.shards_total, run.queue) == (ProbeRun.QUEUED, 3, "probe_cpu")
    assert run.provenance["release"] == {"version": "1.0.0", "checksum": release.checksum, "languages": ["en"]}

    run = run_inline(run)

    assert run.status == ProbeRun.DONE, run.error
    assert run.shards_done == 3 and run.texts_embedded + run.texts_cached == run.texts_total
    # Shards share texts (the random variants of the same sentence pattern): later shards find them cached.
    assert run.texts_cached > 0 and CachedVectors.objects.count() == run.texts_embedded
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
    assert beaver["human"] == 0.8 and report["human_score"]["sources"] == {"token_score": 4, "type_score": 1}
    assert report["correlations"] and report["summary"] and report["context"]
    provenance = report["provenance"]
    assert provenance["model_identity"]["weights_sha256"] and provenance["config"]["batch_size"] == 8
    assert provenance["packages"]["torch"] and provenance["code_version"]
    assert [w["shards"] for w in provenance["workers"]] == [[0, 1, 2]]
    assert report["standardisation"]["max_raw_difference"] < 1e-6
    assert report_csv(run, "per_compound").startswith(f"# probe run {run.pk} (done): model tiny-bert")


def test_a_second_release_with_the_same_data_embeds_nothing_new(release, bert):
    first = run_inline(start_probe_run(release, bert, enqueue=False))
    rows = CachedVectors.objects.count()
    second = run_inline(start_probe_run(publish("1.0.1"), bert, enqueue=False))
    assert second.status == ProbeRun.DONE
    assert (second.texts_embedded, second.texts_cached) == (0, second.texts_total)
    assert CachedVectors.objects.count() == rows
    assert run_report(second)["per_compound"] == run_report(first)["per_compound"]


def test_a_config_change_that_changes_vectors_misses_the_cache(release, bert):
    run_inline(start_probe_run(release, bert, enqueue=False))
    faster = run_inline(start_probe_run(release, bert, config={"batch_size": 3}, enqueue=False))
    assert faster.texts_embedded == 0  # batch size never changes a vector
    last_layer = run_inline(start_probe_run(release, bert, config={"layers": [-1]}, enqueue=False))
    assert last_layer.texts_cached == 0 and last_layer.texts_embedded == last_layer.texts_total


def test_running_a_finished_shard_again_changes_nothing(release, bert):
    run = run_inline(start_probe_run(release, bert, shard_size=2, enqueue=False))
    shard = run.shards.get(index=1)
    before = (shard.result, shard.finished_at, shard.attempts)
    assert run_shard(run.pk, 1) is False
    shard.refresh_from_db()
    run.refresh_from_db()
    assert (shard.result, shard.finished_at, shard.attempts) == before
    assert (run.shards_done, run.status) == (3, ProbeRun.DONE)


def test_a_cancelled_run_skips_its_remaining_shards_and_resumes_where_it_stopped(release, bert):
    run = start_probe_run(release, bert, shard_size=2, enqueue=False)
    assert run_shard(run.pk, 0) is True
    assert cancel_run(run) and run.status == ProbeRun.CANCELLED
    assert run_shard(run.pk, 1) is False
    assert run.shards.get(index=1).status == ProbeShard.PENDING
    done_at = run.shards.get(index=0).finished_at

    assert resume_run(run, enqueue=False) == [1, 2]
    run = run_inline(run)

    assert run.status == ProbeRun.DONE
    assert run.shards.get(index=0).finished_at == done_at
    assert run.shards.get(index=0).attempts == 1


def test_drafts_and_bad_configs_are_refused(bert):
    from datasets.releases.actions import create_release

    make_probe_data(COMPOUNDS[:1])
    draft = create_release("0.1.0", languages=["en"])
    with pytest.raises(ProbeError, match="draft"):
        start_probe_run(draft, bert)
    release = publish("0.2.0")
    with pytest.raises(ProbeError, match="unknown embedding config keys: pooling"):
        start_probe_run(release, bert, config={"pooling": "max"})
    assert not ProbeRun.objects.exists()


def test_the_release_is_read_once_per_process(release, bert, django_assert_max_num_queries):
    release_probes(release)
    with django_assert_max_num_queries(0):
        assert release_probes(release).compounds


def test_the_admin_shows_runs_with_progress_and_cancels_them(admin_client, release, bert):
    run = start_probe_run(release, bert, shard_size=2, enqueue=False)
    run_shard(run.pk, 0)
    page = admin_client.get("/admin/probing/proberun/").content.decode()
    assert '<progress value="1" max="3"></progress> 1/3' in page
    assert "tiny-bert" in admin_client.get(f"/admin/probing/proberun/{run.pk}/change/").content.decode()
    response = admin_client.post(
        "/admin/probing/proberun/", {"action": "cancel_runs", "_selected_action": [run.pk]}, follow=True
    )
    assert "1 run(s) cancelled." in response.content.decode()
    run.refresh_from_db()
    assert run.status == ProbeRun.CANCELLED
    assert admin_client.get("/admin/probing/embeddingmodel/").status_code == 200
