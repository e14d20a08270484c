"""Texts that begin alike: the common beginning computed once, the same log-probabilities as whole texts."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from probing.likelihood.prefixes import MIN_SHARED, prefix_groups
from probing.likelihood.scoring import causal_scores

SENTENCE = "My sister is a night owl and reads until three."
TEXTS = [
    SENTENCE,
    f"{SENTENCE}\nHere, night owl means: a late sleeper.",
    f"{SENTENCE}\nHere, night owl means: a nocturnal bird.",
    f"{SENTENCE}\nHere, night owl means: a silver screen.",
    "The research lab hired a grey matter expert.",
    "An eager beaver finished the report early.",
]


def test_groups_are_runs_of_texts_sharing_enough_tokens_each_keeping_a_token_to_score():
    a, b, c = [1] * 10 + [2, 3], [1] * 10 + [4], [1] * 10 + [2, 5, 6]
    short = [1] * 9  # shares 9 tokens but has none left after them: its group's prefix stops at 8
    unrelated = [7, 8, 9]
    groups = prefix_groups([a, b, c, unrelated])
    assert groups == [(10, [0, 2, 1])]  # sorted by ids; a and c share 11 tokens but b only 10
    assert prefix_groups([a, short]) == [(8, [1, 0])]
    assert prefix_groups([[1] * (MIN_SHARED - 1) + [2], [1] * (MIN_SHARED - 1) + [3]]) == []  # too little shared
    assert prefix_groups([]) == [] and prefix_groups([a]) == []


@pytest.mark.parametrize("fixture", ["tiny_llama", "tiny_gpt2"])
@pytest.mark.parametrize("start_token", [False, True])
def test_shared_prefixes_give_the_whole_texts_log_probabilities(fixture, start_token, request):
    folder = request.getfixturevalue(fixture)
    model, tokenizer = AutoModelForCausalLM.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)
    assert prefix_groups([tokenizer(t)["input_ids"] for t in TEXTS])  # the fixture texts do share a beginning
    shared = causal_scores(model, tokenizer, TEXTS, 3, start_token, share_prefixes=True)
    whole = causal_scores(model, tokenizer, TEXTS, 3, start_token, share_prefixes=False)
    for ours, theirs in zip(shared, whole, strict=True):
        assert list(ours.names) == list(theirs.names) and list(ours.offsets) == list(theirs.offsets)
        assert [v is None for v in ours.logprobs] == [v is None for v in theirs.logprobs]
        assert [v for v in ours.logprobs if v is not None] == pytest.approx(
            [v for v in theirs.logprobs if v is not None], abs=1e-5
        )


def test_the_common_beginning_is_run_once(tiny_llama):
    model, tokenizer = (
        AutoModelForCausalLM.from_pretrained(tiny_llama).eval(),
        AutoTokenizer.from_pretrained(tiny_llama),
    )
    seen: list[int] = []
    model.register_forward_pre_hook(
        lambda _, args, kwargs: seen.append(int(kwargs["input_ids"].ne(-1).sum())), with_kwargs=True
    )

    def tokens_run(**options) -> int:
        seen.clear()
        causal_scores(model, tokenizer, TEXTS[:4], 8, **options)
        return sum(seen)

    lengths = [len(tokenizer(t)["input_ids"]) for t in TEXTS[:4]]
    ((prefix, members),) = prefix_groups([tokenizer(t)["input_ids"] for t in TEXTS[:4]])
    assert len(members) == 4
    # Whole: one padded batch of the four texts; shared: the prefix once, then each text's rest (padded).
    assert tokens_run(share_prefixes=False) == 4 * max(lengths)
    assert tokens_run(share_prefixes=True) == prefix + 4 * (max(lengths) - prefix)
    assert torch.is_grad_enabled()  # nothing left switched off
