"""Pooling and batching every backend with token states shares: tokens, batches, sentence and span means.

The configured layers are averaged, the sentence vector is the mean over its tokens (padding never,
special tokens only when configured) and the span vector the mean over the tokens whose character
offsets overlap the span. Texts are padded on the right, so every real token keeps the position ids
and attention it has alone: the vectors do not depend on which texts share a batch. A layer sweep
pools every hidden state of the same pass alone as well (``pool_hidden_states``). The transformers,
sentence-transformers and ELMo backends import these.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from probing.embedding.base import (
    EmbedConfig,
    TextSpan,
    Tokens,
    Vectors,
    span_beyond,
    tokens_in_span,
)

log = logging.getLogger(__name__)

TORCH_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def torch_dtype(name: str) -> torch.dtype:
    return TORCH_DTYPES[name]


def unique_texts(items: list[TextSpan]) -> list[str]:
    return list(dict.fromkeys(item.text for item in items))


def in_text_batches(
    items: list[TextSpan], batch_size: int, embed: Callable[[list[TextSpan]], list[Vectors]]
) -> list[Vectors]:
    """Vectors of items, embedding at most batch_size unique texts per call (all spans of a text together)."""
    texts = unique_texts(items)
    by_item: dict[TextSpan, Vectors] = {}
    for start in range(0, len(texts), batch_size):
        chunk = set(texts[start : start + batch_size])
        chunk_items = list(dict.fromkeys(item for item in items if item.text in chunk))
        by_item.update(zip(chunk_items, embed(chunk_items), strict=True))
    return [by_item[item] for item in items]


def prepare_tokenizer(tokenizer):
    """Right padding and a pad token: decoders (LLaMA) often ship neither."""
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError("span mapping needs character offsets: load a fast (tokenizers) tokenizer")
    tokenizer.padding_side = "right"
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token or tokenizer.bos_token
    if tokenizer.pad_token is None:
        raise ValueError("the tokenizer has no pad, eos, unk or bos token to pad with")
    return tokenizer


@dataclass
class Pooling:
    """How one batch's token vectors become its items' vectors: the weights, computed once for every layer."""

    rows: list[int]  # the batch row of each item
    lengths: list[int]  # tokens of each batch row
    sentence_weights: torch.Tensor  # (B, T) 0/1, divided by sentence_norms when applied
    sentence_norms: torch.Tensor  # (B, 1)
    span_items: list[int]  # the item of each pooled span
    # Spans in layers of at most one per batch row: (weights (B, T), rows, positions in span_items).
    span_slots: list[tuple[torch.Tensor, list[int], list[int]]]
    truncated: set[int]  # items whose span max_length cut off

    def sentences(self, hidden: torch.Tensor) -> np.ndarray:
        """(B, D) float32: the mean of each row's counted tokens."""
        weights = self.sentence_weights.to(hidden.device)
        pooled = torch.einsum("bt,btd->bd", weights, hidden.float()) / self.sentence_norms.to(hidden.device)
        return pooled.cpu().numpy().astype(np.float32, copy=False)

    def spans(self, hidden: torch.Tensor) -> np.ndarray | None:
        """(n, D) float32: the mean of each span's tokens, in span_items order."""
        if not self.span_items:
            return None
        hidden = hidden.float()
        out = np.empty((len(self.span_items), hidden.shape[-1]), dtype=np.float32)
        for weights, rows, positions in self.span_slots:
            pooled = torch.einsum("bt,btd->bd", weights.to(hidden.device), hidden)[rows]
            out[positions] = pooled.cpu().numpy()
        return out


def pooling(
    items: list[TextSpan],
    texts: list[str],
    attention_mask: torch.Tensor,
    special_tokens_mask: torch.Tensor,
    offsets: torch.Tensor,
    *,
    max_length: int,
    include_special_tokens: bool = False,
) -> Pooling:
    """The pooling weights of a batch: padding never counts, special tokens only when asked; spans by offsets."""
    attention = attention_mask.to(torch.float32)
    lengths = [int(n) for n in attention.sum(dim=1).tolist()]
    weights = attention if include_special_tokens else attention * (1 - special_tokens_mask.float())
    # A text of special tokens only (the empty string) falls back to every attended token.
    weights = torch.where(weights.sum(dim=1, keepdim=True) > 0, weights, attention)
    row_of = {text: row for row, text in enumerate(texts)}
    offset_rows = offsets.tolist()

    span_items: list[int] = []
    slots: list[tuple[np.ndarray, list[int], list[int]]] = []  # weights filled in numpy, one tensor at the end
    truncated: set[int] = set()
    for index, item in enumerate(items):
        if item.span is None:
            continue
        row = row_of[item.text]
        n = lengths[row]
        row_offsets = offset_rows[row][:n]
        selected = tokens_in_span(row_offsets, item.span, item.text)
        if n >= max_length and span_beyond(row_offsets, item.span, item.text):
            truncated.add(index)
            continue
        if not selected:
            log.warning("no token overlaps span %s of %r", item.span, item.text)
            continue
        slot = next((slot for slot in slots if row not in slot[1]), None)
        if slot is None:
            slot = (np.zeros(tuple(attention.shape), dtype=np.float32), [], [])
            slots.append(slot)
        slot[0][row, selected] = 1.0 / len(selected)
        slot[1].append(row)
        slot[2].append(len(span_items))
        span_items.append(index)
    if truncated:
        log.warning("%d span(s) lie beyond max_length=%d: their span vectors are None", len(truncated), max_length)
    return Pooling(
        rows=[row_of[item.text] for item in items],
        lengths=lengths,
        sentence_weights=weights,
        sentence_norms=weights.sum(dim=1, keepdim=True).clamp(min=1),
        span_items=span_items,
        span_slots=[(torch.from_numpy(weights), rows, positions) for weights, rows, positions in slots],
        truncated=truncated,
    )


def pool_vectors(
    items: list[TextSpan],
    texts: list[str],
    hidden: torch.Tensor,
    attention_mask: torch.Tensor,
    special_tokens_mask: torch.Tensor,
    offsets: torch.Tensor,
    *,
    max_length: int,
    include_special_tokens: bool = False,
    sentence: torch.Tensor | None = None,
) -> list[Vectors]:
    """Sentence and span vectors of items from one batch's token vectors hidden (B, T, D), float32.

    When sentence (B, D) is given (a sentence-transformers pipeline) it is used as is.
    """
    return pool_hidden_states(
        items,
        texts,
        (),
        attention_mask,
        special_tokens_mask,
        offsets,
        EmbedConfig(include_special_tokens=include_special_tokens),
        max_length=max_length,
        combined=hidden,
        sentence=sentence,
    )


def pool_hidden_states(
    items: list[TextSpan],
    texts: list[str],
    hidden_states: Sequence[torch.Tensor],
    attention_mask: torch.Tensor,
    special_tokens_mask: torch.Tensor,
    offsets: torch.Tensor,
    config: EmbedConfig,
    *,
    max_length: int,
    sweep: tuple[int, ...] = (),
    combined: torch.Tensor | None = None,
    sentence: torch.Tensor | None = None,
) -> list[Vectors]:
    """Every vector a layered backend gives from one pass: the configured combination and each swept layer.

    ``hidden_states``: one (B, T, D) tensor per layer (transformers' ``hidden_states``, ELMo's three
    layers). The combination is the mean of ``config.layers``, or ``combined`` (B, T, D) and
    ``sentence`` (B, D) when the model defines its own (a sentence-transformers pipeline). Each layer
    of ``sweep`` (indices into hidden_states) is pooled alone with the same weights; its rows go to
    ``Vectors.layer_sentences`` and ``layer_spans`` in ``sweep`` order.
    """
    pool = pooling(
        items,
        texts,
        attention_mask,
        special_tokens_mask,
        offsets,
        max_length=max_length,
        include_special_tokens=config.include_special_tokens,
    )
    if combined is None:
        combined = layer_mean(tuple(hidden_states), config.layers)
    vectors = _vectors(items, pool, combined, sentence)
    if not sweep:
        return vectors
    sentences = np.stack([pool.sentences(hidden_states[layer]) for layer in sweep], axis=1)  # (B, S, D)
    span_layers = [pool.spans(hidden_states[layer]) for layer in sweep]
    spans = np.stack(span_layers, axis=1) if pool.span_items else None  # (n, S, D)
    span_row = {item: n for n, item in enumerate(pool.span_items)}
    for index, item_vectors in enumerate(vectors):
        item_vectors.layer_sentences = sentences[pool.rows[index]].copy()
        if index in span_row:
            item_vectors.layer_spans = spans[span_row[index]].copy()
    return vectors


def _vectors(
    items: list[TextSpan], pool: Pooling, hidden: torch.Tensor, sentence: torch.Tensor | None
) -> list[Vectors]:
    if sentence is None:
        sentence_np = pool.sentences(hidden)
    else:
        sentence_np = sentence.float().cpu().numpy().astype(np.float32, copy=False)
    pooled = pool.spans(hidden)
    spans = dict(zip(pool.span_items, pooled, strict=True)) if pooled is not None else {}
    return [
        Vectors(
            sentence=sentence_np[pool.rows[index]].copy(),
            span=spans.get(index),
            tokens=pool.lengths[pool.rows[index]],
            span_truncated=index in pool.truncated,
        )
        for index in range(len(items))
    ]


def max_length_of(model_config, config: EmbedConfig) -> int:
    """The tokens a text is cut to: the config's, at most the model's positions (every transformers backend)."""
    positions = getattr(model_config, "max_position_embeddings", None)
    return min(config.max_length, positions) if positions else config.max_length


def hidden_state_count(model_config) -> int:
    """Hidden states a transformers model returns: the embedding output and one per layer."""
    for name in ("num_hidden_layers", "n_layers", "n_layer", "num_layers"):
        if isinstance(getattr(model_config, name, None), int):
            return getattr(model_config, name) + 1
    raise ValueError(f"cannot tell how many layers a {type(model_config).__name__} has")


class FastEncoder:
    """A fast tokenizer's Rust core, called directly: token counts for sorting, and padded batches.

    What the tokenizer's Python call gives (the same ids, masks, offsets and special-token marks,
    padded on the right), without its per-call overhead (a third of the Python call). Each text
    is tokenized once: ``lengths`` (the engine sorts by them) keeps its encodings, and the batches
    that follow reuse those that ``max_length`` does not cut. A copy of the core, so the tokenizer
    a pipeline shares is never reconfigured.
    """

    def __init__(self, tokenizer) -> None:
        from tokenizers import Tokenizer

        self.core = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
        self.core.no_padding()
        self.core.no_truncation()
        self.pad_id = tokenizer.pad_token_id
        self.type_ids = "token_type_ids" in tokenizer.model_input_names
        self.truncation: int | None = None
        self._kept: dict[str, object] = {}  # the last ``lengths`` call's encodings, for its batches

    def lengths(self, texts: list[str]) -> list[int]:
        """Tokens of each text with the special ones (no truncation); the encodings are kept for ``batch``."""
        self._truncate(None)
        texts = list(texts)
        encodings = self.core.encode_batch(texts)
        self._kept = dict(zip(texts, encodings, strict=True))
        return [len(encoding) for encoding in encodings]

    def batch(self, texts: list[str], max_length: int) -> dict[str, torch.Tensor]:
        """``input_ids``, ``attention_mask`` (and ``token_type_ids``), ``offset_mapping`` and
        ``special_tokens_mask`` of ``texts`` truncated to ``max_length``, as (B, T) tensors."""
        encodings = self._encodings(list(texts), max_length)
        steps = max((len(e.ids) for e in encodings), default=0)
        ids = np.full((len(texts), steps), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(texts), steps), dtype=np.int64)
        types = np.zeros((len(texts), steps), dtype=np.int64)
        special = np.ones((len(texts), steps), dtype=np.int64)  # padding counts as special, as the Python call says
        offsets = np.zeros((len(texts), steps, 2), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = encoding.ids, 1, encoding.type_ids
            special[row, :n] = encoding.special_tokens_mask
            if n:
                offsets[row, :n] = encoding.offsets
        batch = {"input_ids": ids, "attention_mask": mask, "offset_mapping": offsets, "special_tokens_mask": special}
        if self.type_ids:
            batch["token_type_ids"] = types
        return {key: torch.from_numpy(value) for key, value in batch.items()}

    def _encodings(self, texts: list[str], max_length: int) -> list:
        """Each text's encoding truncated to ``max_length``: a kept one when it is no longer (truncation
        would change nothing), the others encoded now."""
        found = [self._kept.get(text) for text in texts]
        missing = [i for i, encoding in enumerate(found) if encoding is None or len(encoding.ids) > max_length]
        if missing:
            self._truncate(max_length)
            for i, encoding in zip(missing, self.core.encode_batch([texts[i] for i in missing]), strict=True):
                found[i] = encoding
        return found

    def _truncate(self, max_length: int | None) -> None:
        if max_length != self.truncation:
            if max_length is None:
                self.core.no_truncation()
            else:
                self.core.enable_truncation(max_length)
            self.truncation = max_length


def read_tokens(tokenizer, item: TextSpan, max_length: int) -> Tokens:
    """The tokens a fast tokenizer gives a text (special ones included), and those overlapping its span."""
    encoded = tokenizer(item.text, truncation=True, max_length=max_length, return_offsets_mapping=True)
    tokens = tokenizer.convert_ids_to_tokens(encoded["input_ids"])
    if item.span is None:
        return Tokens(tokens, [])
    selected = tokens_in_span([tuple(pair) for pair in encoded["offset_mapping"]], item.span, item.text)
    return Tokens(tokens, [tokens[i] for i in selected])


def layer_mean(hidden_states: tuple[torch.Tensor, ...], layers: tuple[int, ...]) -> torch.Tensor:
    """The mean of the chosen hidden states (index 0 is the embedding output), in float32."""
    count = len(hidden_states)
    for layer in layers:
        if not -count <= layer < count:
            raise ValueError(f"layer {layer} does not exist: the model has hidden states 0..{count - 1}")
    total = hidden_states[layers[0]].float()
    for layer in layers[1:]:
        total = total + hidden_states[layer].float()
    return total / len(layers)
