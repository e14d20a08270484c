"""Log-probabilities of texts under a language model, token by token (no Django: torch and a tokenizer).

- A causal LM gives each token's log-probability given the tokens before it, in one forward pass
  per batch, as minicons' ``IncrementalLMScorer.token_score`` does: the text is tokenised as the
  tokenizer does by default (LLaMA's adds ``<s>``, which is context and not scored; GPT-2's adds
  nothing, so its first token has no context and no log-probability).
- A masked LM gives each token's pseudo-log-likelihood (Salazar et al. 2020): the token masked, its
  log-probability in the rest of the sentence, with the within-word correction of Kauf & Ivanova
  (2023) that also masks the later pieces of the same word (minicons' ``PLL_metric=
  "within_word_l2r"``); one row per scored token, rows of every text batched together.

Log-probabilities are natural logs, computed in float32 from the model's logits by a log-softmax
over the vocabulary, the target's value picked.
A span's log-probability is the sum over the tokens that overlap it; for a causal LM that is its
conditional log-probability given the left context.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import compress

import torch

from probing.likelihood.prefixes import padded, prefix_groups, shared_prefix_logprobs
from probing.likelihood.scores import CAUSAL, MASKED, TextScore

# (batch's text indices, every text's encoding, hidden states per layer (B, T, D), attention mask (B, T))
HiddenStates = Callable[[Sequence[int], Sequence[dict], tuple, torch.Tensor], None]


def chunks(items: Sequence, size: int) -> Iterator[Sequence]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def pad_id(tokenizer) -> int:
    """The padding id: the tokenizer's own, else its end-of-text or unknown token (attention masks them out)."""
    for candidate in (tokenizer.pad_token_id, tokenizer.eos_token_id, tokenizer.unk_token_id, 0):
        if candidate is not None:
            return candidate
    return 0


def token_logprobs(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log softmax(logits)[target] for each position: (..., V) and (...) -> (...), in float32.

    One fused log-softmax over the vocabulary, then the targets picked: about half the time of the
    gathered logit less a separate log-sum-exp (measured on a CPU, 16 x 24 positions, 8,000 words).
    """
    return torch.log_softmax(logits.float(), dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)


def encode(tokenizer, texts: Sequence[str], words: bool = False) -> list[dict]:
    """Each text's ids, token strings, offsets and special-token mask (and word ids if ``words``), as the
    tokenizer gives them by default, in one call for every text."""
    encoded = tokenizer(list(texts), return_offsets_mapping=True, return_special_tokens_mask=True)
    return [
        {
            "ids": encoded["input_ids"][i],
            "tokens": encoded.tokens(i),
            "offsets": encoded["offset_mapping"][i],
            "special": encoded["special_tokens_mask"][i],
            **({"words": encoded.word_ids(i)} if words else {}),
        }
        for i in range(len(texts))
    ]


def shortest_first(encoded: Sequence[dict]) -> list[int]:
    """Indices of the encoded texts from the fewest tokens to the most (less padding per batch)."""
    return sorted(range(len(encoded)), key=lambda i: (len(encoded[i]["ids"]), i))


def with_start_token(item: dict, tokenizer) -> dict:
    """``item`` with a start token as context when the tokenizer added none (GPT-2): the text's first token
    is then scored given it, as lm-evaluation-harness scores a continuation after an empty context."""
    if item["special"] and item["special"][0]:
        return item
    start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    if start is None:
        return item
    return {
        "ids": [start, *item["ids"]],
        "tokens": [tokenizer.convert_ids_to_tokens(start), *item["tokens"]],
        "offsets": [(0, 0), *item["offsets"]],
        "special": [1, *item["special"]],
    }


def causal_scores(
    model,
    tokenizer,
    texts: Sequence[str],
    batch_size: int = 16,
    start_token: bool = False,
    share_prefixes: bool = False,
    hidden: HiddenStates | None = None,
) -> list[TextScore]:
    """Every token's log-probability given the tokens before it, for each text (one pass per batch).

    ``start_token``: give each text a start token as context if its tokenizer adds none (``with_start_token``).
    ``share_prefixes``: texts that begin with the same tokens have that beginning computed once
    (``probing.likelihood.prefixes``); the others, or all without it, are scored whole.
    ``hidden``: called with each batch's text indices, every text's encoding, the batch's hidden
    states (embeddings and every layer, as transformers gives them) and its attention mask, before
    the next batch runs: the pass that scores the texts also gives their vectors
    (``probing.likelihood.shared_pass``). Not with ``share_prefixes``, whose texts have no whole pass.
    """
    if hidden is not None and share_prefixes:
        raise ValueError("share_prefixes runs texts in pieces: it cannot also give their hidden states")
    encoded = encode(tokenizer, texts)
    if start_token:
        encoded = [with_start_token(item, tokenizer) for item in encoded]
    pad = pad_id(tokenizer)
    ids = [item["ids"] for item in encoded]
    groups = prefix_groups(ids) if share_prefixes else []
    found: dict[int, list[float | None]] = shared_prefix_logprobs(model, ids, groups, pad, batch_size) if groups else {}
    device = next(model.parameters()).device
    alone = [i for i in shortest_first(encoded) if i not in found]
    pending = []  # each batch's scores stay on the device until every batch is queued: one wait, not one per batch
    for batch in chunks(alone, batch_size):
        batch_ids, mask = padded([ids[i] for i in batch], pad)
        with torch.inference_mode():
            batch_ids, mask = batch_ids.to(device), mask.to(device)
            output = model(input_ids=batch_ids, attention_mask=mask, output_hidden_states=hidden is not None)
            pending.append((batch, token_logprobs(output.logits[:, :-1], batch_ids[:, 1:])))
            if hidden is not None:
                hidden(batch, encoded, output.hidden_states, mask)
            del output
    for batch, scores in pending:
        for row, i in zip(scores.cpu().tolist(), batch, strict=True):
            found[i] = [None, *row[: len(ids[i]) - 1]]
    return [text_score(text, encoded[i], found[i]) for i, text in enumerate(texts)]


def masked_rows(item: dict, mask_id: int, within_word: bool) -> list[tuple[int, list[int]]]:
    """(scored position, ids with it masked) per non-special token; with ``within_word``, later pieces of its word too."""
    ids, words = item["ids"], item.get("words")
    targets = [p for p, special in enumerate(item["special"]) if not special]
    rows = []
    for position in targets:
        masked = list(ids)
        hidden = [position]
        if within_word and words is not None and words[position] is not None:
            hidden += [j for j in range(position + 1, targets[-1] + 1) if words[j] == words[position]]
        for j in hidden:
            masked[j] = mask_id
        rows.append((position, masked))
    return rows


def masked_scores(
    model, tokenizer, texts: Sequence[str], batch_size: int = 64, within_word: bool = True
) -> list[TextScore]:
    """Every token's pseudo-log-likelihood in its text, for each text (one row per token, rows batched)."""
    if tokenizer.mask_token_id is None:
        raise ValueError("this tokenizer has no mask token: a masked LM's pseudo-log-likelihood needs one")
    encoded = encode(tokenizer, texts, words=within_word)
    rows = [
        (i, position, masked)
        for i in shortest_first(encoded)
        for position, masked in masked_rows(encoded[i], tokenizer.mask_token_id, within_word)
    ]
    found: list[list[float | None]] = [[None] * len(item["ids"]) for item in encoded]
    device = next(model.parameters()).device
    pad = pad_id(tokenizer)
    for batch in chunks(rows, batch_size):
        ids, mask = padded([masked for _, _, masked in batch], pad)
        positions = torch.tensor([position for _, position, _ in batch])
        targets = torch.tensor([encoded[i]["ids"][position] for i, position, _ in batch])
        with torch.inference_mode():
            logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
            picked = logits[torch.arange(len(batch), device=device), positions.to(device)]
            scores = token_logprobs(picked, targets.to(device)).cpu().tolist()
        for (i, position, _), score in zip(batch, scores, strict=True):
            found[i][position] = score
    return [text_score(text, encoded[i], found[i]) for i, text in enumerate(texts)]


def text_score(text: str, item: dict, logprobs: Sequence[float | None]) -> TextScore:
    """The text's own tokens (special ones left out) with their offsets and log-probabilities."""
    special = item["special"]
    if not any(special):
        return TextScore(text, item["tokens"], item["offsets"], logprobs)
    keep = [not flag for flag in special]
    return TextScore(
        text,
        list(compress(item["tokens"], keep)),
        list(compress(item["offsets"], keep)),
        list(compress(logprobs, keep)),
    )


def score_texts(
    kind: str,
    model,
    tokenizer,
    texts: Sequence[str],
    batch_size: int | None = None,
    start_token: bool = False,
    share_prefixes: bool = False,
    hidden: HiddenStates | None = None,
) -> list[TextScore]:
    """The scores of ``texts`` under a ``causal_lm`` or ``masked_lm`` model (``start_token``, ``share_prefixes``
    and ``hidden``: causal only)."""
    if kind == CAUSAL:
        return causal_scores(model, tokenizer, texts, batch_size or 16, start_token, share_prefixes, hidden)
    if hidden is not None:
        raise ValueError("only a causal LM's scoring pass gives hidden states: a masked LM's masks every token")
    if kind == MASKED:
        return masked_scores(model, tokenizer, texts, batch_size or 64)
    raise ValueError(f"no likelihood scoring for {kind!r} models: causal_lm or masked_lm")
