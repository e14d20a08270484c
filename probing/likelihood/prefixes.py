"""Texts that begin alike, scored with their common beginning computed once (a causal LM's key-value cache).

A likelihood probe scores many texts that share a long beginning: the three answers of a
multiple-choice item follow the same sentence and question, and a sentence's variants share the
words before the compound. A causal LM's log-probabilities of the later tokens depend on the
earlier ones only through their keys and values, so the common prefix is run once, its cache is
repeated for each text of the group, and only each text's own rest is run after it (with the
positions it has in the whole text). The result equals one forward pass over each whole text up
to float rounding (tests: within 1e-5 on the tiny LLaMA and GPT-2).

Groups are found on the token ids (so tokenisation is exactly the whole text's): the texts sorted
by their ids, runs of neighbours sharing at least ``MIN_SHARED`` tokens form a group whose prefix
is the run's common beginning, one token short of its shortest text (every text keeps a token to
score after the prefix). Texts in no group are scored whole, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

MIN_SHARED = 8  # tokens a group must share: below that the saved work does not pay for the extra pass


def common_length(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def prefix_groups(ids: Sequence[Sequence[int]], min_shared: int = MIN_SHARED) -> list[tuple[int, list[int]]]:
    """(prefix length, member indices) of each group of two or more texts sharing ``min_shared`` tokens or more."""
    order = sorted(range(len(ids)), key=lambda i: tuple(ids[i]))
    groups: list[tuple[int, list[int]]] = []
    run, shared = [order[0]] if order else [], 0
    for previous, current in zip(order, order[1:], strict=False):
        common = common_length(ids[previous], ids[current])
        length = min(shared, common) if len(run) > 1 else common
        if common >= min_shared and length >= min_shared:
            run.append(current)
            shared = length
            continue
        groups.append((shared, run))
        run, shared = [current], 0
    if run:
        groups.append((shared, run))
    out = []
    for shared, members in groups:
        prefix = min(shared, min(len(ids[i]) for i in members) - 1)
        if len(members) > 1 and prefix >= min_shared:
            out.append((prefix, members))
    return out


def padded(rows: Sequence[Sequence[int]], pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids, attention mask) of ``rows`` padded on the right."""
    lengths = torch.tensor([len(row) for row in rows], dtype=torch.long)
    keep = torch.arange(int(lengths.max())) < lengths[:, None]
    ids = torch.full(keep.shape, pad, dtype=torch.long)
    ids[keep] = torch.tensor([token for row in rows for token in row], dtype=torch.long)  # row by row, in order
    return ids, keep.long()


def shared_prefix_logprobs(
    model, ids: Sequence[Sequence[int]], groups: Sequence[tuple[int, list[int]]], pad: int, batch_size: int
) -> dict[int, list[float | None]]:
    """Each grouped text's per-token log-probabilities (None for its first token), its group's prefix run once.

    Groups are taken together until their members fill ``batch_size`` rows: one pass over their
    prefixes (padded on the right, cached), one over every member's rest.
    """
    from probing.likelihood.scoring import token_logprobs  # scoring imports this module

    device = next(model.parameters()).device
    found: dict[int, list[float | None]] = {}
    # Groups of like rests and prefixes batched together: less padding in both passes.
    ordered = sorted(groups, key=lambda g: (max(len(ids[i]) for i in g[1]) - g[0], g[0]))
    for batch in _batches(ordered, batch_size):
        prefixes = [list(ids[members[0]][:length]) for length, members in batch]
        prefix_ids, prefix_mask = padded(prefixes, pad)
        with torch.inference_mode():
            out = model(input_ids=prefix_ids.to(device), attention_mask=prefix_mask.to(device), use_cache=True)
            logits, cache = out.logits, out.past_key_values
            within = token_logprobs(logits[:, :-1], prefix_ids[:, 1:].to(device)).cpu()
            owners = [g for g, (_, members) in enumerate(batch) for _ in members]
            rows = [(g, i) for g, (_, members) in enumerate(batch) for i in members]
            cache.reorder_cache(torch.tensor(owners, device=device))  # each group's keys and values, once per member
            rests = [list(ids[i][batch[g][0] :]) for g, i in rows]
            rest_ids, rest_mask = padded(rests, pad)
            starts = torch.tensor([batch[g][0] for g, _ in rows])
            positions = starts[:, None] + torch.arange(rest_ids.shape[1])[None, :]
            mask = torch.cat([prefix_mask[owners], rest_mask], dim=1)
            rest_logits = model(
                input_ids=rest_ids.to(device),
                attention_mask=mask.to(device),
                position_ids=positions.to(device),
                past_key_values=cache,
                use_cache=False,
            ).logits
            # The first token of each rest is predicted by its prefix's last position.
            last = logits[torch.tensor(owners, device=device), (starts - 1).to(device)]
            first = token_logprobs(last, rest_ids[:, 0].to(device)).cpu()
            later = token_logprobs(rest_logits[:, :-1], rest_ids[:, 1:].to(device)).cpu()
        for r, (g, i) in enumerate(rows):
            length, n = batch[g][0], len(ids[i])
            found[i] = [None, *within[g, : length - 1].tolist(), float(first[r]), *later[r, : n - length - 1].tolist()]
    return found


def _batches(groups: Sequence[tuple[int, list[int]]], rows: int) -> list[list[tuple[int, list[int]]]]:
    """Consecutive groups whose members add up to about ``rows`` (a group is never split)."""
    batches, current, size = [], [], 0
    for group in groups:
        if current and size + len(group[1]) > rows:
            batches.append(current)
            current, size = [], 0
        current.append(group)
        size += len(group[1])
    if current:
        batches.append(current)
    return batches
