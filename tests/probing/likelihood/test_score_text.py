"""score_text: one text's log-probabilities under a registered causal or masked LM, and the rules it loads under."""

from __future__ import annotations

import json
import shutil
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from probing.actions import ProbeError, create_probe_run, register_model
from probing.models import EmbeddingModel
from tests.probing.likelihood.conftest import CORPUS
from tests.probing.likelihood.test_scoring import minicons_causal, minicons_masked
from tests.probing.probe_factories import COMPOUNDS, make_probe_data, publish

pytestmark = pytest.mark.django_db
TEXT = CORPUS[0]  # "My sister is a night owl and reads until three."
SPAN = (TEXT.index("night owl"), TEXT.index("night owl") + len("night owl"))


def score_text(*args: str) -> dict:
    out = StringIO()
    call_command("score_text", *args, stdout=out)
    return json.loads(out.getvalue())


def test_a_causal_lm_prints_each_token_with_its_offsets_and_the_span_given_its_left_context(tiny_llama):
    register_model("tiny-llama", "causal_lm", str(tiny_llama))
    shown = score_text("--model", "tiny-llama", "--text", TEXT, "--span", f"{SPAN[0]}:{SPAN[1]}", "--format", "json")
    peer = minicons_causal(tiny_llama, [TEXT])[0]
    assert [t["token"] for t in shown["tokens"]] == [token for token, _ in peer]
    assert [t["logprob"] for t in shown["tokens"]] == pytest.approx([score for _, score in peer], abs=1e-4)
    assert shown["total"] == pytest.approx(sum(score for _, score in peer), abs=1e-4)
    inside = [t for t in shown["tokens"] if t["start"] < SPAN[1] and SPAN[0] < t["end"]]
    assert "".join(TEXT[t["start"] : t["end"]] for t in inside).strip() == "night owl"
    assert shown["span_logprob"] == pytest.approx(sum(t["logprob"] for t in inside))
    assert shown["identity"]["kind"] == "causal_lm" and len(shown["identity"]["weights_sha256"]) == 64
    assert "given the tokens before it" in shown["measure"]


def test_a_first_token_without_context_prints_null(tiny_gpt2):
    register_model("tiny-gpt2", "causal_lm", str(tiny_gpt2))
    shown = score_text("--model", "tiny-gpt2", "--text", TEXT)
    assert shown["tokens"][0]["logprob"] is None and shown["tokens"][1]["logprob"] is not None
    assert shown["span_logprob"] is None and shown["span"] is None


def test_a_masked_lm_prints_pseudo_log_likelihoods_with_the_within_word_rule(tiny_bert):
    register_model("tiny-mlm", "masked_lm", str(tiny_bert))
    text = "unbelievably overcomplicated"
    shown = score_text("--model", "tiny-mlm", "--text", text, "--span", "0:12")
    peer = minicons_masked(tiny_bert, [text], "within_word_l2r")[0]
    assert [t["logprob"] for t in shown["tokens"]] == pytest.approx([score for _, score in peer], abs=1e-4)
    assert shown["span_logprob"] == pytest.approx(sum(score for _, score in peer[:3]), abs=1e-4)  # un ##believ ##ably


def test_what_it_refuses_it_names(tiny_llama, tmp_path):
    register_model("tiny-llama", "causal_lm", str(tiny_llama))
    with pytest.raises(CommandError, match="no such model"):
        score_text("--model", "nope", "--text", TEXT)
    with pytest.raises(CommandError, match="--span 40:99: not a span"):
        score_text("--model", "tiny-llama", "--text", TEXT, "--span", "40:99")
    with pytest.raises(CommandError, match="--text: the text is empty"):
        score_text("--model", "tiny-llama", "--text", "  ")
    EmbeddingModel.objects.create(name="vectors", kind="transformer", source=str(tiny_llama))
    with pytest.raises(CommandError, match="gives vectors, not log-probabilities"):
        score_text("--model", "vectors", "--text", TEXT)


def test_language_models_load_under_the_embedding_models_rules(tiny_llama, tmp_path, settings):
    # A pickled checkpoint beside the safetensors is refused unless trusted, as for any model.
    copy = shutil.copytree(tiny_llama, tmp_path / "pickled")
    (copy / "pytorch_model.bin").write_bytes(b"not really a checkpoint")
    with pytest.raises(ProbeError, match="is a pickle"):
        register_model("pickled", "causal_lm", str(copy))
    # Outside the folders an administrator lists.
    settings.WORKBENCH_MODEL_DIRS = []
    with pytest.raises(ProbeError, match="WORKBENCH_MODEL_DIRS"):
        register_model("elsewhere", "causal_lm", str(tiny_llama))
    with pytest.raises(ProbeError, match="Options not used by masked_lm"):
        register_model("remote", "masked_lm", str(tiny_llama), options={"trust_remote_code": True})


def test_a_run_of_a_language_model_is_a_likelihood_run(tiny_llama):
    make_probe_data(COMPOUNDS[:1])
    model = register_model("tiny-llama", "causal_lm", str(tiny_llama))
    run = create_probe_run(publish(), model)
    assert run.family == "likelihood" and "vector_key" in run.provenance and run.provenance["vector_key"] is None


def test_the_schedules_start_a_likelihood_run_of_a_language_model_once_per_release(tiny_llama, caplog):
    from probing.run.scheduling import start_nightly_runs, start_publish_runs

    make_probe_data(COMPOUNDS[:1])
    release = publish()
    register_model("tiny-llama", "causal_lm", str(tiny_llama), run_on_publish=True)
    started = start_nightly_runs(release) + start_publish_runs(release)
    families = [(run.model.name, run.family) for run in started]
    assert families == [("minilm", "similarity"), ("tiny-llama", "likelihood")]  # the bundled model's too
    assert "no probe run" not in caplog.text
