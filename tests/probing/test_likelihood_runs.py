"""Likelihood runs through the run machinery: shards, the score cache, the report, CSV/JSON, warm runs, Celery."""

from __future__ import annotations

import math
import os
import time

import pytest

from probing import tasks
from probing.actions import ProbeError, create_probe_run, run_inline
from probing.likelihood.items import TEMPLATE_VERSION
from probing.likelihood.loading import open_language_model
from probing.likelihood.probe import probe
from probing.models import CachedScores, CachedVectors, EmbeddingModel, ProbeRun
from probing.report.build import report_csv, run_report
from probing.report.human import human_comp
from probing.run import loading
from probing.run.loading import release_probes
from tests.probing.probe_factories import likelihood_corpus, make_probe_data, publish
from tests.tiny_models import save_tiny_bert, save_tiny_llama, words_of

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def llama_folder(tmp_path_factory):
    return save_tiny_llama(tmp_path_factory.mktemp("run-llama"), likelihood_corpus(), causal_lm=True)


@pytest.fixture(scope="module")
def bert_folder(tmp_path_factory):
    corpus = likelihood_corpus()
    return save_tiny_bert(tmp_path_factory.mktemp("run-bert"), words_of(corpus), texts=corpus, masked_lm=True)


@pytest.fixture
def release():
    make_probe_data()
    return publish("1.0.0")


@pytest.fixture
def llama(llama_folder):
    loading._backends.clear()  # each test opens its model as a fresh worker would
    return EmbeddingModel.objects.create(
        name="tiny-llama", kind="causal_lm", source=str(llama_folder), config={"batch_size": 8}
    )


def test_a_likelihood_run_scores_each_text_once_and_reports_what_the_probe_computes(release, llama, llama_folder):
    run = create_probe_run(release, llama, shard_size=2)
    assert run.family == ProbeRun.Family.LIKELIHOOD and run.shards_total == 3
    assert run.config["template_version"] == TEMPLATE_VERSION and run.config["batch_size"] == 8
    assert run.provenance["probes"]["template"]["version"] == TEMPLATE_VERSION

    run = run_inline(run)

    assert run.status == ProbeRun.Status.DONE, run.error
    # Every text the pairs and items need, scored once over the run: a text two shards share (the same
    # random compound in the same pattern) is read from the cache by the later one. No vectors.
    assert run.texts_embedded == CachedScores.objects.count() > 0 and CachedVectors.objects.count() == 0
    assert run.texts_cached > 0 and run.texts_embedded + run.texts_cached == run.texts_total
    report = run_report(run)
    assert report["family"] == "likelihood" and report["template"]["version"] == TEMPLATE_VERSION
    assert report["provenance"]["model_identity"]["weights_sha256"]

    # The same numbers as the whole probe computed in one process with the model opened directly.
    pairs = [p for key in release_probes(release).compounds for p in release_probes(release).pairs[key]]
    human, _ = human_comp(release_probes(release).snapshot)
    expected = probe(pairs, open_language_model("causal_lm", str(llama_folder)), human)
    key = ("language", "compound", "condition", "level")
    want = {tuple(r[k] for k in key): r for r in expected["compounds"]}
    assert len(report["per_compound"]) == len(want) == 5 * 2 * 2
    for row in report["per_compound"]:
        for measure in ("pref_comp", "pref_words_syn", "pref_rand", "pref_rand_per_token", "surprisal"):
            assert row[measure] == pytest.approx(want[tuple(row[k] for k in key)][measure], abs=1e-4), (
                measure
            )  # float32, other batches
    assert len(report["items"]) == len(expected["items"]) > 0
    metrics = ("acc", "acc_norm", "acc_bytes", "acc_mutual_info")
    assert [[r[m] for m in metrics] for r in report["items"]] == [[r[m] for m in metrics] for r in expected["items"]]
    assert report["accuracy"] == expected["accuracy"]
    got = [(r["condition"], r["level"], r["measure"], r["subset"], r["n"]) for r in report["correlations"]]
    assert got == [(r["condition"], r["level"], r["measure"], r["subset"], r["n"]) for r in expected["correlations"]]
    assert [r["rho"] for r in report["correlations"]] == pytest.approx([r["rho"] for r in expected["correlations"]])

    # Rows carry the human score and class the correlations used.
    beaver = next(r for r in report["per_compound"] if r["compound"] == "eager beaver")
    assert (beaver["class"], beaver["human"]) == ("idiomatic", 0.8)
    by_class = {(r["condition"], r["level"], r["class"]) for r in report["by_class"]}
    assert ("naturalistic", "nc", "idiomatic") in by_class and ("neutral", "sentence", "all") in by_class


def test_a_second_run_of_the_same_model_reads_every_score_and_opens_no_model(release, llama, monkeypatch):
    first = run_inline(create_probe_run(release, llama, shard_size=2))
    assert first.status == ProbeRun.Status.DONE, first.error
    llama.refresh_from_db()
    assert llama.opened["identity"] == first.provenance["model_identity"]

    loading._backends.clear()  # a new worker process

    def refuse(self):
        raise AssertionError("the model was opened although every score is cached")

    monkeypatch.setattr(EmbeddingModel, "load_language_model", refuse)
    second = run_inline(create_probe_run(publish("1.1.0"), llama, shard_size=5))
    assert second.status == ProbeRun.Status.DONE, second.error
    assert (second.texts_embedded, second.texts_cached) == (0, second.texts_total)
    assert run_report(second)["per_compound"] == run_report(first)["per_compound"]


def test_a_changed_weight_file_is_scored_again_under_its_new_identity(release, llama, tmp_path):
    first = run_inline(create_probe_run(release, llama))
    other = save_tiny_llama(tmp_path / "other", likelihood_corpus(), causal_lm=True, seed=1)
    llama.source = str(other)
    llama.save()
    loading._backends.clear()
    second = run_inline(create_probe_run(release, llama))
    assert second.status == ProbeRun.Status.DONE, second.error
    assert second.texts_cached == 0 and second.texts_embedded == second.texts_total
    assert second.provenance["model_identity"] != first.provenance["model_identity"]
    firsts = {r["compound"]: r["surprisal"] for r in run_report(first)["per_compound"]}
    assert any(r["surprisal"] != firsts[r["compound"]] for r in run_report(second)["per_compound"])


def test_a_masked_lm_run_scores_pseudo_log_likelihoods(release, bert_folder):
    bert = EmbeddingModel.objects.create(name="tiny-bert-mlm", kind="masked_lm", source=str(bert_folder))
    loading._backends.clear()
    run = run_inline(create_probe_run(release, bert))
    assert run.status == ProbeRun.Status.DONE, run.error
    report = run_report(run)
    assert "pseudo-log-likelihood" in report["provenance"]["config"]["measure"]
    values = [r["surprisal"] for r in report["per_compound"]]
    assert values and all(v is not None and math.isfinite(v) and v > 0 for v in values)


def test_csv_tables_and_refusals(release, llama):
    run = run_inline(create_probe_run(release, llama, shard_size=5))
    items = report_csv(run, "items")
    assert items.startswith(f"# probe run {run.pk} (done): model tiny-llama")
    header = next(line for line in items.splitlines() if not line.startswith("#"))
    assert {"compound", "condition", "gold", "acc", "acc_norm", "acc_mutual_info"} <= set(header.split(","))
    accuracy = report_csv(run, "accuracy").splitlines()
    assert any(line.startswith("en,naturalistic") or ",all," in line for line in accuracy)
    with pytest.raises(ValueError, match="unknown table 'context'"):
        report_csv(run, "context")  # a similarity table: a likelihood run has none
    with pytest.raises(ProbeError, match="unknown setting.*layers"):
        create_probe_run(release, llama, config={"layers": [-1]})
    with pytest.raises(ProbeError, match="batch_size must be"):
        create_probe_run(release, llama, config={"batch_size": 0})


def test_the_fixture_model_reads_every_text_a_run_scores_without_unknown_tokens(release, llama_folder):
    # Random weights, but a real vocabulary: no text (pairs, items, answers alone) falls back to <unk>,
    # so that different texts get different scores.
    from transformers import AutoTokenizer

    from probing.run.likelihood import shard_texts

    probes = release_probes(release)
    _, _, scored, alone, _ = shard_texts(probes, probes.compounds)
    tokenizer = AutoTokenizer.from_pretrained(llama_folder)
    assert len(scored) > 100 and alone
    assert all(tokenizer.unk_token_id not in tokenizer(text)["input_ids"] for text in [*scored, *alone])


QUEUE = f"probe_cpu_likelihood_{os.getpid()}"


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_likelihood_run_through_celery_finishes_with_its_report(celery_worker, settings, llama_folder):
    settings.PROBE_QUEUES = {"cpu": QUEUE, "gpu": QUEUE}
    make_probe_data()
    release = publish("1.0.0")
    loading._backends.clear()
    llama = EmbeddingModel.objects.create(name="tiny-llama", kind="causal_lm", source=str(llama_folder))
    with celery_worker(queues=[QUEUE], shutdown_timeout=30):
        run = tasks.start_probe_run(release, llama, shard_size=2)
        deadline = time.monotonic() + 120
        while not run.is_finished and time.monotonic() < deadline:
            time.sleep(0.1)
            run.refresh_from_db()
    assert run.status == ProbeRun.Status.DONE, run.error
    assert run.shards.filter(status="done").count() == 3
    report = run_report(run)
    assert report["accuracy"] and report["per_compound"] and report["provenance"]["workers"]


def test_the_run_page_reads_like_the_papers_and_offers_every_table_and_figure(client, release, llama):
    from django.urls import reverse

    run = run_inline(create_probe_run(release, llama, shard_size=5))
    page = client.get(reverse("probe_run", args=[run.pk])).content.decode()
    assert "Multiple-choice accuracy" in page and "acc_mutual_info" in page
    assert "Here, {compound} means:" in page or "means:" in page  # the prompt template, shown
    assert 'data-figure="pref-comp-vs-human"' in page and "ρ =" in page
    assert "it has no layers" in page and "Sim_R" not in page  # no similarity tables
    for table in ("items", "accuracy", "by_class", "per_compound"):
        href = reverse("probe_run_csv", args=[run.pk, table])
        assert href in page
        response = client.get(href)
        assert response.status_code == 200 and response.content.startswith(b"# probe run")
    assert client.get(reverse("probe_run_csv", args=[run.pk, "context"])).status_code == 404
    figure = client.get(reverse("probe_run_figure", args=[run.pk, "pref-comp-vs-human", "png"]))
    assert figure.status_code == 200 and figure.content.startswith(b"\x89PNG")
    data = client.get(reverse("probe_run_json", args=[run.pk]) + "?full=1").json()
    assert data["family"] == "likelihood" and data["accuracy"]


def test_the_comparison_sets_likelihood_runs_apart_and_the_api_names_the_family(client, release, llama):
    from django.urls import reverse

    first = run_inline(create_probe_run(release, llama, shard_size=5))
    second = run_inline(create_probe_run(release, llama, config={"batch_size": 2}, shard_size=5))
    page = client.get(reverse("probe_compare") + f"?runs={first.pk},{second.pk}").content.decode()
    assert 'id="likelihood"' in page and f"#{first.pk} tiny-llama" in page and "acc_mutual_info" in page
    assert "ρ Pref_Comp" in page
    listed = client.get("/api/probing/runs/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert {row["family"] for row in rows} == {"likelihood"}
    assert client.get(reverse("probe_leaderboard")).status_code == 200  # similarity runs only: none here


def test_a_bfloat16_run_is_scored_and_cached_apart_from_float32(release, llama):
    full = run_inline(create_probe_run(release, llama, shard_size=5))
    half = run_inline(create_probe_run(release, llama, config={"dtype": "bfloat16"}, shard_size=5))
    assert half.status == ProbeRun.Status.DONE, half.error
    assert half.texts_cached == 0 and half.texts_embedded == full.texts_embedded  # not float32's rows
    fulls = {(r["compound"], r["condition"], r["level"]): r["surprisal"] for r in run_report(full)["per_compound"]}
    halves = {(r["compound"], r["condition"], r["level"]): r["surprisal"] for r in run_report(half)["per_compound"]}
    assert fulls.keys() == halves.keys() and fulls != halves
    assert all(abs(halves[k] - fulls[k]) < 0.05 * abs(fulls[k]) + 0.5 for k in fulls)  # close, as bf16 is
    with pytest.raises(ProbeError, match="dtype must be one of"):
        create_probe_run(release, llama, config={"dtype": "int8"})
    for device in ("tpu", "cuda:0; rm -rf /", "cuda:"):
        with pytest.raises(ProbeError, match="device must be"):
            create_probe_run(release, llama, config={"device": device})


@pytest.fixture
def completions_model(llama_folder, settings, monkeypatch):
    from tests.llm_server import LanguageModelServer

    monkeypatch.setenv("TEST_COMPLETIONS_KEY", "sk-local")
    settings.WORKBENCH_MODEL_API_HOSTS, settings.WORKBENCH_MODEL_API_KEY_ENVS = ["127.0.0.1"], ["TEST_COMPLETIONS_KEY"]
    server = LanguageModelServer(llama_folder).start()
    loading._backends.clear()
    options = {"base_url": server.base_url, "api_key_env": "TEST_COMPLETIONS_KEY", "model": "tiny-llama"}
    yield (
        EmbeddingModel.objects.create(
            name="served-llama", kind="openai_completions", source="tiny-llama", options=options
        ),
        server,
    )
    server.stop()


def test_a_run_against_a_completions_server_gives_the_local_models_numbers(release, llama, completions_model, client):
    from django.urls import reverse

    served, server = completions_model
    remote = run_inline(create_probe_run(release, served, shard_size=5))
    assert remote.status == ProbeRun.Status.DONE, remote.error
    # Visitors read the run, never where its model is served from or the key variable.
    for address in (
        reverse("probe_run", args=[remote.pk]),
        reverse("probe_run_json", args=[remote.pk]) + "?full=1",
        reverse("probe_run_csv", args=[remote.pk, "items"]),
        f"/api/probing/runs/{remote.pk}/",
    ):
        body = client.get(address).content.decode()
        assert server.base_url not in body and "TEST_COMPLETIONS_KEY" not in body, address
    from tests.building.review_factories import make_curator

    client.force_login(make_curator("alice"))  # a curator sees it: the checks above could have failed
    assert server.base_url in client.get(reverse("probe_run_json", args=[remote.pk]) + "?full=1").content.decode()
    assert server.requests and all(r["body"].get("echo") for r in server.requests)
    local = run_inline(create_probe_run(release, llama, shard_size=5))
    theirs = {(r["compound"], r["condition"], r["level"]): r for r in run_report(remote)["per_compound"]}
    for row in run_report(local)["per_compound"]:
        other = theirs[(row["compound"], row["condition"], row["level"])]
        for measure in ("pref_comp", "pref_words_syn", "surprisal"):
            assert other[measure] == pytest.approx(row[measure], abs=1e-3), measure


def test_a_run_against_a_host_no_longer_allowed_fails_saying_why(release, completions_model, settings):
    served, server = completions_model
    settings.WORKBENCH_MODEL_API_HOSTS = []  # the administrator took the host off the list
    loading._backends.clear()
    run = run_inline(create_probe_run(release, served, shard_size=5))
    assert run.status == ProbeRun.Status.FAILED and "127.0.0.1" in run.error
    assert not server.requests


def test_a_run_sharing_prefixes_gives_the_same_numbers(release, llama):
    whole = run_inline(create_probe_run(release, llama, shard_size=5))
    CachedScores.objects.all().delete()
    shared = run_inline(create_probe_run(release, llama, config={"share_prefixes": True}, shard_size=5))
    assert shared.status == ProbeRun.Status.DONE and shared.config["share_prefixes"] is True
    theirs = {(r["compound"], r["condition"], r["level"]): r for r in run_report(whole)["per_compound"]}
    for row in run_report(shared)["per_compound"]:
        assert row["surprisal"] == pytest.approx(
            theirs[(row["compound"], row["condition"], row["level"])]["surprisal"], abs=1e-4
        )
    with pytest.raises(ProbeError, match="share_prefixes must be"):
        create_probe_run(release, llama, config={"share_prefixes": "yes"})


def test_a_likelihood_run_stopped_halfway_resumes_without_scoring_again(release, llama):
    from probing.actions import cancel_run, resume_run, run_shard

    run = create_probe_run(release, llama, shard_size=2)
    assert run_shard(run.pk, 0) is True
    cancel_run(run)
    scored = CachedScores.objects.count()
    assert resume_run(run) == [1, 2]
    run = run_inline(run)
    assert run.status == ProbeRun.Status.DONE, run.error
    assert run.shards.get(index=0).attempts == 1  # the finished shard was not computed again
    assert run.texts_embedded == CachedScores.objects.count() > scored
    fresh = run_inline(create_probe_run(publish("2.0.0"), llama, shard_size=2))
    assert run_report(fresh)["per_compound"] == run_report(run)["per_compound"]


def test_a_gpt2_run_scores_the_answers_alone_after_a_start_token(release, tmp_path):
    # GPT-2's tokenizer adds no start token: without one an answer's first token has no score and the
    # items would have no acc_mutual_info (lm-evaluation-harness scores them after an empty context).
    from tests.tiny_models import save_tiny_gpt2

    folder = save_tiny_gpt2(tmp_path / "gpt2", likelihood_corpus())
    gpt2 = EmbeddingModel.objects.create(name="tiny-gpt2", kind="causal_lm", source=str(folder))
    loading._backends.clear()
    run = run_inline(create_probe_run(release, gpt2, shard_size=5))
    assert run.status == ProbeRun.Status.DONE, run.error
    items = run_report(run)["items"]
    assert items and all(row["acc_mutual_info"] in (0, 1) for row in items)
