"""Both probe families in one run: a causal LM's scoring pass also gives the vectors of the similarity measures."""

from __future__ import annotations

import functools

import pytest

from probing.actions import ProbeError, create_probe_run, run_inline
from probing.embedding.base import EmbedConfig
from probing.models import CachedScores, CachedVectors, EmbeddingModel, ProbeRun
from probing.report.build import report_csv, run_report, tables_of
from probing.run import loading
from tests.probing.probe_factories import likelihood_corpus, make_probe_data, publish
from tests.tiny_models import save_tiny_bert, save_tiny_llama, words_of

pytestmark = pytest.mark.django_db

SIMS = ("sim_syn", "sim_comp", "sim_words_syn", "sim_rand")  # each row's "sim" in the JSON


@pytest.fixture(scope="module")
def llama_folder(tmp_path_factory):
    return save_tiny_llama(tmp_path_factory.mktemp("shared-llama"), likelihood_corpus(), causal_lm=True)


@pytest.fixture
def release():
    make_probe_data()
    return publish("1.0.0")


def register(name: str, kind: str, folder, config: dict | None = None) -> EmbeddingModel:
    loading._backends.clear()  # each run opens its model as a fresh worker would
    return EmbeddingModel.objects.create(name=name, kind=kind, source=str(folder), config=config or {})


def forward_rows(monkeypatch) -> dict[str, int]:
    """Texts run through each network class (rows of every forward pass), counted as the run goes."""
    from transformers import LlamaForCausalLM, LlamaModel

    counted: dict[str, int] = {}
    for cls in (LlamaForCausalLM, LlamaModel):
        original = cls.forward

        @functools.wraps(original)  # its signature too: the transformer backend passes what forward takes
        def forward(self, *args, _original=original, _name=cls.__name__, **kwargs):
            given = [kwargs.get("input_ids"), *args[:1], kwargs.get("inputs_embeds")]
            counted[_name] = counted.get(_name, 0) + int(next(x for x in given if x is not None).shape[0])
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, "forward", forward)
    return counted


def test_a_run_asking_both_families_runs_each_text_once_and_reports_both(release, llama_folder, monkeypatch):
    causal = register("tiny-llama", "causal_lm", llama_folder, {"batch_size": 8})
    rows = forward_rows(monkeypatch)

    run = run_inline(create_probe_run(release, causal, config={"similarity": True}, shard_size=2))

    assert run.status == ProbeRun.Status.DONE, run.error
    scored = CachedScores.objects.count()
    # One forward pass per distinct text for both families: every scored text once through the causal LM
    # (LlamaForCausalLM calls its LlamaModel once per batch), no separate embedding pass.
    assert rows["LlamaForCausalLM"] == scored == run.texts_embedded
    assert run.texts_embedded + run.texts_cached == run.texts_total  # the progress counts every text the pass ran
    assert rows["LlamaModel"] == rows["LlamaForCausalLM"]
    assert CachedVectors.objects.count() > 0
    report = run_report(run)
    similarity = report["similarity"]
    assert similarity["stats"]["embedded"] == CachedVectors.objects.count()
    assert "hidden states of the same forward pass" in report["layers_note"]
    assert run.config["similarity"] == EmbedConfig(batch_size=8).as_dict()
    assert run.provenance["vector_key"] == EmbedConfig(batch_size=8).vector_key()

    # The likelihood part is the plain likelihood run's, to the digit.
    plain = run_report(run_inline(create_probe_run(release, register("plain", "causal_lm", llama_folder))))
    key = ("language", "compound", "condition", "level")
    want = {tuple(r[k] for k in key): r for r in plain["per_compound"]}
    for row in report["per_compound"]:
        assert row["pref_comp"] == pytest.approx(want[tuple(row[k] for k in key)]["pref_comp"], abs=1e-9)
    assert report["accuracy"] == plain["accuracy"]

    # The similarity part is what a similarity run of the same weights computes with the `transformer`
    # backend (AutoModel, its own batches): the same pooling, layers and spans.
    alone_run = run_inline(create_probe_run(release, register("as-encoder", "transformer", llama_folder)))
    assert alone_run.status == ProbeRun.Status.DONE, alone_run.error
    alone = run_report(alone_run)
    assert alone["family"] == "similarity" and alone["status"] == "done", alone["provenance"]
    want = {tuple(r[k] for k in key): r for r in alone["per_compound"]}
    assert len(similarity["per_compound"]) == len(want) > 0
    compared = 0
    for row in similarity["per_compound"]:
        for measure in SIMS:
            expected = want[tuple(row[k] for k in key)]["sim"][measure.removeprefix("sim_")]
            if expected is not None:
                assert row["sim"][measure.removeprefix("sim_")] == pytest.approx(expected, abs=1e-5), measure
                compared += 1
    assert compared >= len(want)
    assert [r["rho"] for r in similarity["correlations"]] == pytest.approx(
        [r["rho"] for r in alone["correlations"]], abs=1e-4, nan_ok=True
    )


def test_a_second_shared_run_reads_both_caches_and_runs_nothing(release, llama_folder, monkeypatch):
    model = register("tiny-llama", "causal_lm", llama_folder)
    first = run_inline(create_probe_run(release, model, config={"similarity": {"layers": [-1]}}))
    assert first.status == ProbeRun.Status.DONE, first.error
    rows = forward_rows(monkeypatch)
    loading._backends.clear()

    second = run_inline(create_probe_run(release, model, config={"similarity": {"layers": [-1]}}))

    assert second.status == ProbeRun.Status.DONE, second.error
    assert rows == {} and second.texts_embedded == 0
    assert run_report(second)["similarity"]["summary"] == run_report(first)["similarity"]["summary"]


def test_the_similarity_tables_download_and_show_on_the_run_page(client, release, llama_folder):
    run = run_inline(
        create_probe_run(release, register("tiny-llama", "causal_lm", llama_folder), config={"similarity": True})
    )

    assert "similarity_summary" in tables_of(run) and "similarity_per_compound" in tables_of(run)
    body = report_csv(run, "similarity_per_compound")
    header, *lines = [line for line in body.splitlines() if not line.startswith("#")]
    assert "sim_words_syn" in header.split(",") and len(lines) == len(run_report(run)["similarity"]["per_compound"]) > 0
    page = client.get(f"/probing/runs/{run.pk}/").content.decode()
    assert 'id="similarity-summary"' in page and 'id="similarity-correlations"' in page
    assert 'id="correlations"' in page  # the preferences' own table is still there, apart
    assert client.get(f"/probing/runs/{run.pk}/similarity_summary.csv").status_code == 200


@pytest.mark.parametrize(
    ("kind", "config", "named"),
    [
        ("masked_lm", {"similarity": True}, "masked_lm model's does not"),
        ("causal_lm", {"similarity": True, "share_prefixes": True}, "share_prefixes"),
        ("causal_lm", {"similarity": {"dtype": "bfloat16"}}, "dtype come from the run's own settings"),
        ("causal_lm", {"similarity": {"pooling": "cls"}}, "unknown embedding config keys: pooling"),
        ("causal_lm", {"similarity": "yes"}, "similarity must be true, false or an embedding config"),
    ],
)
def test_a_run_that_cannot_share_its_pass_is_refused_naming_the_setting(
    release, llama_folder, tmp_path, kind, config, named
):
    folder = llama_folder
    if kind == "masked_lm":
        corpus = likelihood_corpus()
        folder = save_tiny_bert(tmp_path / "bert", words_of(corpus), texts=corpus, masked_lm=True)
    with pytest.raises(ProbeError, match="similarity") as refused:
        create_probe_run(release, register("m", kind, folder), config=config)
    assert named in str(refused.value)


def test_a_curator_asks_for_both_families_in_the_start_form(client, release, llama_folder, monkeypatch):
    from probing import tasks
    from tests.building.review_factories import make_curator

    sent = []
    monkeypatch.setattr(tasks, "enqueue_shards", lambda run_id, queue, indices: sent.append(run_id))
    client.force_login(make_curator("alice"))
    register("tiny-llama", "causal_lm", llama_folder)
    register("as-encoder", "transformer", llama_folder)
    form = {"release": "1.0.0", "model": "tiny-llama", "layers": "-1", "batch_size": "4", "similarity": "on"}

    response = client.post("/probing/", form)

    run = ProbeRun.objects.get()
    assert response.status_code == 302, response.content.decode()
    assert run.family == ProbeRun.Family.LIKELIHOOD and run.config["batch_size"] == 4
    assert run.config["similarity"]["layers"] == [-1] and run.config["similarity"]["batch_size"] == 4
    # Pooling settings without the box are a likelihood run's unknown settings; the box with an encoder is refused.
    response = client.post("/probing/", {**form, "similarity": ""})
    assert response.status_code == 400 and "unknown setting(s) layers" in response.content.decode()
    response = client.post("/probing/", {**form, "model": "as-encoder"})
    assert response.status_code == 400 and "is a transformer model: only a causal language model" in (
        response.content.decode()
    )
    assert ProbeRun.objects.count() == 1


def test_probe_report_prints_both_families_and_every_table_of_the_run(release, llama_folder):
    from io import StringIO

    from django.core.management import CommandError, call_command

    run = run_inline(
        create_probe_run(release, register("tiny-llama", "causal_lm", llama_folder), config={"similarity": True})
    )

    def report(*args) -> str:
        out = StringIO()
        call_command("probe_report", str(run.pk), *args, stdout=out)
        return out.getvalue()

    text = report("--format", "text", "--all")
    assert "multiple-choice accuracy" in text and "acc_norm=" in text and "pref_comp" in text
    assert "similarity measures from the same forward pass" in text and "sim_syn" in text
    assert report("--format", "csv", "--table", "items").count("\n") > len(run.report["items"])
    assert "sim_words_syn" in report("--format", "csv", "--table", "similarity_summary")
    with pytest.raises(CommandError, match="unknown table 'context'"):
        report("--format", "csv", "--table", "context")  # a similarity run's table, not this run's


def test_the_api_starts_a_run_of_both_families_and_names_a_bad_setting(client, release, llama_folder, monkeypatch):
    from probing import tasks
    from tests.building.review_factories import make_curator

    monkeypatch.setattr(tasks, "enqueue_shards", lambda run_id, queue, indices: None)
    client.force_login(make_curator("alice"))
    register("tiny-llama", "causal_lm", llama_folder)
    payload = {"release": "1.0.0", "model": "tiny-llama", "config": {"similarity": {"sweep": "all"}}}

    created = client.post("/api/probing/runs/", payload, content_type="application/json")

    assert created.status_code == 201, created.json()
    assert ProbeRun.objects.get().config["similarity"]["sweep"] == "all"
    payload["config"] = {"similarity": {"layers": "last"}}
    refused = client.post("/api/probing/runs/", payload, content_type="application/json")
    assert refused.status_code == 400 and "similarity: layers must be" in str(refused.json()["detail"]), refused.json()


def test_the_comparison_page_sets_the_similarity_part_beside_similarity_runs(client, release, llama_folder):
    shared = run_inline(
        create_probe_run(release, register("tiny-llama", "causal_lm", llama_folder), config={"similarity": True})
    )
    alone = run_inline(create_probe_run(release, register("as-encoder", "transformer", llama_folder)))

    page = client.get(f"/probing/compare/?runs={shared.pk},{alone.pk}").content.decode()

    assert f"#{shared.pk} tiny-llama (same pass)" in page and f"#{alone.pk} as-encoder" in page
    # The correlograms set both runs' per-compound measures side by side (two runs: one off-diagonal cell each).
    assert page.count(f"#{shared.pk} tiny-llama (same pass)") >= 3


def test_vectors_that_left_the_cache_are_embedded_again_by_the_causal_lm_at_the_finish(release, llama_folder):
    from probing.report.likelihood import build_likelihood_report

    run = run_inline(
        create_probe_run(release, register("tiny-llama", "causal_lm", llama_folder), config={"similarity": True})
    )
    before = run.report["similarity"]
    kept = CachedVectors.objects.count()
    CachedVectors.objects.all().delete()
    loading._backends.clear()

    again = build_likelihood_report(run, list(run.shards.order_by("index")))["similarity"]

    assert again["standardisation"]["reembedded"] == kept > 0 and CachedVectors.objects.count() == kept
    assert before["standardisation"]["reembedded"] == 0
    key = ("language", "compound", "condition", "level")
    want = {tuple(r[k] for k in key): r for r in before["per_compound"]}
    standardised = [
        (row["sim_syn_std"], want[tuple(row[k] for k in key)]["sim_syn_std"]) for row in again["per_compound"]
    ]
    assert sum(value is not None for value, _ in standardised) >= 10
    assert [value for value, _ in standardised] == pytest.approx([value for _, value in standardised], abs=1e-4)


def test_the_leaderboard_ranks_the_similarity_part_with_the_similarity_runs(client, release, llama_folder):
    shared = run_inline(
        create_probe_run(release, register("tiny-llama", "causal_lm", llama_folder), config={"similarity": True})
    )
    plain = run_inline(create_probe_run(release, register("plain-llama", "causal_lm", llama_folder)))
    alone = run_inline(create_probe_run(release, register("as-encoder", "transformer", llama_folder)))
    assert {shared.status, plain.status, alone.status} == {ProbeRun.Status.DONE}

    page = client.get("/probing/leaderboard/?release=1.0.0&all=1").content.decode()

    assert "tiny-llama (same pass)" in page and "as-encoder" in page
    assert "plain-llama" not in page  # a likelihood run without the part has no similarity measures
