"""probing/likelihood/scoring.py against minicons, the peer library: the same log-probabilities within 1e-4."""

from __future__ import annotations

import math

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

from probing.likelihood.scoring import causal_scores, masked_rows, masked_scores
from tests.probing.likelihood.conftest import CORPUS

TOLERANCE = 1e-4


def load(folder, head):
    return head.from_pretrained(folder).eval(), AutoTokenizer.from_pretrained(folder)


def minicons_causal(folder, texts):
    from minicons import scorer

    lm = scorer.IncrementalLMScorer(str(folder), device="cpu")
    found = lm.token_score(list(texts))
    # minicons lists the BOS token it was given (LLaMA's <s>, score 0): context, which we do not list.
    bos = lm.tokenizer.bos_token
    return [
        tokens[1:] if tokens and tokens[0][0] == bos and bos != lm.tokenizer.eos_token else tokens for tokens in found
    ]


def minicons_masked(folder, texts, metric):
    from minicons import scorer

    lm = scorer.MaskedLMScorer(str(folder), device="cpu")
    # minicons 0.3.39 calls batch_encode_plus, which transformers 5 removed; the call itself does the same.
    lm.tokenizer.batch_encode_plus = lm.tokenizer.__call__
    return lm.token_score(list(texts), PLL_metric=metric)


@pytest.mark.parametrize("fixture", ["tiny_llama", "tiny_gpt2"])
def test_causal_token_logprobs_equal_minicons(request, fixture):
    folder = request.getfixturevalue(fixture)
    model, tokenizer = load(folder, AutoModelForCausalLM)
    ours = causal_scores(model, tokenizer, CORPUS, batch_size=3)  # batches of mixed lengths: padding is masked
    theirs = minicons_causal(folder, CORPUS)
    for text, mine, peer in zip(CORPUS, ours, theirs, strict=True):
        # minicons lists the text's tokens with the first one's score 0.0 when it has no context (GPT-2).
        assert [t.token for t in mine.tokens] == [token for token, _ in peer], text
        for token, (_, score) in zip(mine.tokens, peer, strict=True):
            expected = None if (token.logprob is None and score == 0.0) else score
            assert token.logprob is not None or expected is None, text
            if token.logprob is not None:
                assert abs(token.logprob - score) < TOLERANCE, (text, token)
        assert abs(mine.total - sum(score for _, score in peer)) < TOLERANCE


def test_the_first_token_has_no_logprob_only_without_a_bos_token(tiny_llama, tiny_gpt2):
    llama = causal_scores(*load(tiny_llama, AutoModelForCausalLM), CORPUS[:1])[0]
    gpt2 = causal_scores(*load(tiny_gpt2, AutoModelForCausalLM), CORPUS[:1])[0]
    assert llama.tokens[0].logprob is not None  # LLaMA's <s> is context
    assert gpt2.tokens[0].logprob is None and all(t.logprob is not None for t in gpt2.tokens[1:])
    assert gpt2.scored == len(gpt2.tokens) - 1


def test_a_span_is_the_sum_of_its_tokens_and_its_offsets_are_the_texts(tiny_llama):
    text = CORPUS[0]
    [score] = causal_scores(*load(tiny_llama, AutoModelForCausalLM), [text])
    start = text.index("night owl")
    end = start + len("night owl")
    inside = [t for t in score.tokens if t.start < end and start < t.end]
    assert "".join(text[t.start : t.end] for t in inside).replace(" ", "") == "nightowl"
    assert score.span_logprob(start, end) == pytest.approx(sum(t.logprob for t in inside))
    assert score.span_logprob(len(text), len(text) + 3) is None  # nothing there


def test_causal_logprobs_are_those_of_a_plain_forward_pass(tiny_llama):
    # An independent check of the arithmetic: log_softmax of the unpadded text's own logits.
    model, tokenizer = load(tiny_llama, AutoModelForCausalLM)
    text = CORPUS[1]
    [score] = causal_scores(model, tokenizer, [CORPUS[0], text, CORPUS[7]], batch_size=3)[1:2]
    ids = tokenizer(text, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        logprobs = torch.log_softmax(model(input_ids=ids).logits[0, :-1], dim=-1)
    expected = logprobs[torch.arange(ids.shape[1] - 1), ids[0, 1:]].tolist()
    assert [t.logprob for t in score.tokens] == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("metric, within_word", [("within_word_l2r", True), ("original", False)])
def test_masked_pseudo_loglikelihoods_equal_minicons(tiny_bert, metric, within_word):
    model, tokenizer = load(tiny_bert, AutoModelForMaskedLM)
    ours = masked_scores(model, tokenizer, CORPUS, batch_size=7, within_word=within_word)
    peer = minicons_masked(tiny_bert, CORPUS, metric)
    for text, mine, theirs in zip(CORPUS, ours, peer, strict=True):
        assert [t.token for t in mine.tokens] == [token for token, _ in theirs], text
        for token, (_, score) in zip(mine.tokens, theirs, strict=True):
            assert abs(token.logprob - score) < TOLERANCE, (text, token)


def test_the_within_word_rule_masks_the_later_pieces_of_the_same_word(tiny_bert):
    tokenizer = AutoTokenizer.from_pretrained(tiny_bert)
    encoded = tokenizer(["unbelievably overcomplicated"], return_special_tokens_mask=True)
    item = {
        "ids": encoded["input_ids"][0],
        "special": encoded["special_tokens_mask"][0],
        "words": encoded.word_ids(0),
    }
    assert tokenizer.convert_ids_to_tokens(item["ids"]) == [
        "[CLS]", "un", "##believ", "##ably", "over", "##compl", "##icated", "[SEP]"
    ]  # fmt: skip
    mask = tokenizer.mask_token_id
    hidden = {position: [j for j, i in enumerate(ids) if i == mask] for position, ids in masked_rows(item, mask, True)}
    assert hidden == {1: [1, 2, 3], 2: [2, 3], 3: [3], 4: [4, 5, 6], 5: [5, 6], 6: [6]}
    original = {
        position: [j for j, i in enumerate(ids) if i == mask] for position, ids in masked_rows(item, mask, False)
    }
    assert original == {p: [p] for p in range(1, 7)}


def test_a_tokenizer_without_a_mask_token_is_refused(tiny_llama):
    model, tokenizer = load(tiny_llama, AutoModelForCausalLM)
    with pytest.raises(ValueError, match="no mask token"):
        masked_scores(model, tokenizer, CORPUS[:1])


def test_scores_are_finite_negative_logs(tiny_llama, tiny_bert):
    for score in causal_scores(*load(tiny_llama, AutoModelForCausalLM), CORPUS) + masked_scores(
        *load(tiny_bert, AutoModelForMaskedLM), CORPUS
    ):
        assert all(math.isfinite(t.logprob) and t.logprob < 0 for t in score.tokens if t.logprob is not None)


def test_with_a_start_token_gpt2s_first_token_is_scored_as_minicons_does_with_its_bos(tiny_gpt2, tiny_llama):
    # lm-evaluation-harness scores a continuation after an empty context given the end-of-text token;
    # minicons does the same with bos_token=True (GPT-2's BOS is its end-of-text token).
    from minicons import scorer

    model, tokenizer = load(tiny_gpt2, AutoModelForCausalLM)
    texts = [" a late sleeper", " a nocturnal bird"]
    ours = causal_scores(model, tokenizer, texts, start_token=True)
    peer = scorer.IncrementalLMScorer(str(tiny_gpt2), device="cpu").token_score(texts, bos_token=True)
    for mine, theirs in zip(ours, peer, strict=True):
        theirs = [(token, score) for token, score in theirs if token != tokenizer.bos_token]
        assert [t.token for t in mine.tokens] == [token for token, _ in theirs]
        assert all(t.logprob is not None for t in mine.tokens)
        assert [t.logprob for t in mine.tokens] == pytest.approx([score for _, score in theirs], abs=TOLERANCE)
    assert causal_scores(model, tokenizer, texts)[0].tokens[0].logprob is None  # without: no context
    # A tokenizer that adds its own start token (LLaMA's <s>) gets no second one.
    llama = load(tiny_llama, AutoModelForCausalLM)
    with_start, without = causal_scores(*llama, texts, start_token=True), causal_scores(*llama, texts)
    assert [s.logprobs for s in with_start] == [s.logprobs for s in without]
