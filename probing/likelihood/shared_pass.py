"""One forward pass of a causal LM for both probe families: each text's log-probabilities and its vectors.

A causal LM's scoring pass (``probing.likelihood.scoring.causal_scores``) computes every hidden
state on its way to the logits. Asked for them, it hands each batch's hidden states to
``PooledVectors``, which pools them exactly as the ``transformer`` embedding backend pools its own
pass (``probing.embedding.pooling.pool_hidden_states``: the same tokens, offsets, layers, spans
and sweep), so a run that asks for both families runs each text through the model once.

Truncation: the embedding backend cuts a text at ``max_length`` tokens. A causal LM's hidden state
at a position depends only on the tokens before it, so the first ``max_length`` positions of the
whole text's pass are those of the cut text's pass; a text longer than that is still pooled from
its own pass only when the tokenizer adds nothing at the end, and is otherwise left for a separate
embedding pass (``left``). ``embed_texts`` is that pass, for the items the scoring pass did not
give (and for a finished run whose vectors left the cache). Pure: no Django (torch and the pooling).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from probing.embedding.base import EmbedConfig, TextSpan, Vectors
from probing.embedding.pooling import FastEncoder, pool_hidden_states


class PooledVectors:
    """The vectors of ``items`` pooled from the batches a scoring pass shows it (``causal_scores``' ``hidden``).

    ``texts``: the texts the pass scores, in its order (the batch indices point into them).
    After the pass, ``vectors`` holds every item pooled; ``left`` the items of texts it could not pool.
    """

    def __init__(
        self, texts: Sequence[str], items: Sequence[TextSpan], config: EmbedConfig, max_length: int, layer_count: int
    ) -> None:
        self.texts = list(texts)
        self.by_text: dict[str, list[TextSpan]] = {}
        for item in dict.fromkeys(items):
            self.by_text.setdefault(item.text, []).append(item)
        self.config = config
        self.max_length = max_length
        self.sweep = config.sweep_layers(layer_count)
        self.vectors: dict[TextSpan, Vectors] = {}
        scored = set(self.texts)
        self.left: list[TextSpan] = [
            item for text, found in self.by_text.items() if text not in scored for item in found
        ]

    def __call__(self, batch: Sequence[int], encoded: Sequence[dict], hidden_states: tuple, mask: torch.Tensor) -> None:
        rows, texts = [], []
        for row, index in enumerate(batch):
            text = self.texts[index]
            if text not in self.by_text:
                continue
            if fits(encoded[index], self.max_length):
                rows.append(row)
                texts.append(text)
            else:
                self.left.extend(self.by_text[text])
        if not rows:
            return
        steps = min(max(len(encoded[batch[row]]["ids"]) for row in rows), self.max_length)
        select = torch.tensor(rows, device=mask.device)
        layers = [layer.index_select(0, select)[:, :steps] for layer in hidden_states]
        special = torch.ones((len(rows), steps), dtype=torch.long)  # padding counts as special, as the encoder says
        offsets = torch.zeros((len(rows), steps, 2), dtype=torch.long)
        for n, row in enumerate(rows):
            item = encoded[batch[row]]
            length = min(len(item["ids"]), steps)
            special[n, :length] = torch.tensor(item["special"][:length])
            if length:
                offsets[n, :length] = torch.tensor(item["offsets"][:length])
        items = [item for text in texts for item in self.by_text[text]]
        vectors = pool_hidden_states(
            items,
            texts,
            layers,
            mask.index_select(0, select)[:, :steps].cpu(),
            special,
            offsets,
            self.config,
            max_length=self.max_length,
            sweep=self.sweep,
        )
        self.vectors.update(zip(items, vectors, strict=True))


def fits(item: dict, max_length: int) -> bool:
    """Whether a text's first ``max_length`` tokens are what the embedding backend would run: all of it, or a cut
    that loses no special token at its end (a causal LM's early positions do not see the later ones)."""
    if len(item["ids"]) <= max_length:
        return True
    return not any(item["special"][max_length:])


def embed_texts(
    network, tokenizer, items: Sequence[TextSpan], config: EmbedConfig, max_length: int, layer_count: int
) -> list[Vectors]:
    """The vectors of ``items`` from a pass of their texts alone (cut at ``max_length``), pooled as the shared pass pools.

    For items a scoring pass did not give; the network is the causal LM itself (its hidden states).
    """
    texts = list(dict.fromkeys(item.text for item in items))
    encoder = FastEncoder(tokenizer)
    if encoder.pad_id is None:
        from probing.likelihood.scoring import pad_id

        encoder.pad_id = pad_id(tokenizer)
    encoded = encoder.batch(texts, max_length)
    offsets = encoded.pop("offset_mapping")
    special = encoded.pop("special_tokens_mask")
    device = next(network.parameters()).device
    with torch.inference_mode():
        output = network(
            input_ids=encoded["input_ids"].to(device),
            attention_mask=encoded["attention_mask"].to(device),
            output_hidden_states=True,
        )
        return pool_hidden_states(
            list(items),
            texts,
            output.hidden_states,
            encoded["attention_mask"],
            special,
            offsets,
            config,
            max_length=max_length,
            sweep=config.sweep_layers(layer_count),
        )
