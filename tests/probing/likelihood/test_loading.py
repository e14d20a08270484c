"""A local language model is read when first used, in the dtype its run computes in, as transformers reads it."""

from __future__ import annotations

import torch
from transformers import AutoConfig, AutoModelForCausalLM

from probing.likelihood.loading import open_language_model
from probing.likelihood.scoring import causal_scores
from tests.probing.likelihood.conftest import CORPUS


def test_the_network_is_read_at_first_use_in_the_runs_dtype_and_scores_as_if_converted(tiny_llama, monkeypatch):
    reads = []
    read = AutoModelForCausalLM.from_pretrained.__func__

    def counting(cls, *args, **kwargs):
        reads.append(kwargs.get("dtype"))
        return read(cls, *args, **kwargs)

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", classmethod(counting))
    model = open_language_model("causal_lm", str(tiny_llama))
    assert model.network is None and reads == []  # the identity and the tokenizer only
    assert model.identity()["dim"] == AutoConfig.from_pretrained(tiny_llama).vocab_size
    scores = model.score(CORPUS, batch_size=4, dtype="bfloat16")
    model.score(CORPUS[:2], batch_size=4, dtype="bfloat16")  # placed already: not read again
    assert reads == ["bfloat16"] and next(model.network.parameters()).dtype == torch.bfloat16
    # As transformers (and lm-evaluation-harness) read a model in a dtype: the rotary frequencies stay float32,
    # where a float32 copy converted afterwards rounds them to bfloat16 (about 1e-3 nats apart on this model).
    assert {buffer.dtype for name, buffer in model.network.named_buffers() if "inv_freq" in name} == {torch.float32}
    expected = causal_scores(
        read(AutoModelForCausalLM, str(tiny_llama), dtype="bfloat16").eval(), model.tokenizer, CORPUS, 4
    )
    assert [s.logprobs for s in scores] == [s.logprobs for s in expected]


def test_the_model_attribute_reads_it_in_float32_on_the_cpu(tiny_llama):
    model = open_language_model("causal_lm", str(tiny_llama))
    first = next(model.model.parameters())
    assert (first.dtype, first.device.type) == (torch.float32, "cpu") and model.network is model.model
