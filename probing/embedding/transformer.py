"""HuggingFace transformers (encoders such as BERT, decoders such as LLaMA): one pass gives both vectors.

Each unique text runs through the model once with output_hidden_states; the configured layers are
averaged, the sentence vector is the mean over its tokens (padding never, special tokens only when
configured) and the span vector the mean over the tokens whose character offsets overlap the span.
Texts are padded on the right, so every real token keeps the position ids and attention it has alone:
the vectors do not depend on which texts share a batch.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable

import numpy as np
import torch

from probing.embedding.base import EmbedConfig, TextSpan, Vectors, model_identity, span_beyond, tokens_in_span

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
    attention = attention_mask.to(hidden.device, torch.float32)
    lengths = attention.sum(dim=1)
    if sentence is None:
        weights = attention if include_special_tokens else attention * (1 - special_tokens_mask.float())
        # A text of special tokens only (the empty string) falls back to every attended token.
        weights = torch.where(weights.sum(dim=1, keepdim=True) > 0, weights, attention)
        sentence = torch.einsum("bt,btd->bd", weights, hidden) / weights.sum(dim=1, keepdim=True).clamp(min=1)
    sentence_np = sentence.float().cpu().numpy().astype(np.float32)
    row_of = {text: row for row, text in enumerate(texts)}

    span_rows, span_weights, span_items = [], [], []
    truncated: set[int] = set()
    for index, item in enumerate(items):
        if item.span is None:
            continue
        row = row_of[item.text]
        n = int(lengths[row])
        row_offsets = [tuple(pair) for pair in offsets[row, :n].tolist()]
        selected = tokens_in_span(row_offsets, item.span, item.text)
        if n >= max_length and span_beyond(row_offsets, item.span, item.text):
            truncated.add(index)
            continue
        if not selected:
            log.warning("no token overlaps span %s of %r", item.span, item.text)
            continue
        weight = torch.zeros(hidden.shape[1])
        weight[selected] = 1.0 / len(selected)
        span_rows.append(row)
        span_weights.append(weight)
        span_items.append(index)
    spans: dict[int, np.ndarray] = {}
    if span_items:
        weights = torch.stack(span_weights).to(hidden.device)
        pooled = torch.einsum("nt,ntd->nd", weights, hidden[span_rows]).cpu().numpy().astype(np.float32)
        spans = dict(zip(span_items, pooled, strict=True))
    if truncated:
        log.warning("%d span(s) lie beyond max_length=%d: their span vectors are None", len(truncated), max_length)
    return [
        Vectors(
            sentence=sentence_np[row_of[item.text]].copy(),
            span=spans.get(index),
            tokens=int(lengths[row_of[item.text]]),
            span_truncated=index in truncated,
        )
        for index, item in enumerate(items)
    ]


class TransformerBackend:
    """A HuggingFace AutoModel (encoder or decoder) with a fast tokenizer, loaded from a local folder."""

    kind = "transformer"
    supports_span = True

    def __init__(self, source: str, options: dict) -> None:
        from transformers import AutoConfig, AutoTokenizer

        self.source = str(source)
        self.options = options
        self.local_files_only = bool(options.get("local_files_only", True))
        self.revision = options.get("revision")
        self.tokenizer = prepare_tokenizer(
            AutoTokenizer.from_pretrained(self.source, local_files_only=self.local_files_only, revision=self.revision)
        )
        self.model_config = AutoConfig.from_pretrained(
            self.source, local_files_only=self.local_files_only, revision=self.revision
        )
        self._model = None
        self._model_key: tuple[str, str] | None = None
        self._identity: dict | None = None

    def identity(self) -> dict:
        if self._identity is None:
            dim = getattr(self.model_config, "hidden_size", None) or self.model_config.dim  # DistilBERT says dim
            self._identity = model_identity(self.kind, self.source, self.options, dim)
        return self._identity

    def token_lengths(self, texts: list[str]) -> list[int]:
        return [len(ids) for ids in self.tokenizer(list(texts), verbose=False)["input_ids"]]

    def model(self, config: EmbedConfig):
        key = (config.dtype, config.device)
        if self._model_key != key:
            from transformers import AutoModel

            self._model = None  # free the old copy first: a dtype change reloads from the files
            model = AutoModel.from_pretrained(
                self.source,
                dtype=torch_dtype(config.dtype),
                local_files_only=self.local_files_only,
                revision=self.revision,
            )
            self._model = model.to(config.device).eval()
            self._forward_params = set(inspect.signature(model.forward).parameters)
            self._model_key = key
        return self._model

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        return in_text_batches(items, config.batch_size, lambda chunk: self._embed(chunk, config))

    def _embed(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        model = self.model(config)
        texts = unique_texts(items)
        max_length = self.max_length(config)
        encoded = self.tokenizer(
            texts,
            padding=True,
            truncation=True,
            max_length=max_length,
            return_offsets_mapping=True,
            return_special_tokens_mask=True,
            return_tensors="pt",
        )
        offsets = encoded.pop("offset_mapping")
        special = encoded.pop("special_tokens_mask")
        inputs = {key: value.to(config.device) for key, value in encoded.items() if key in self._forward_params}
        if "use_cache" in self._forward_params:
            inputs["use_cache"] = False
        with torch.inference_mode():
            hidden_states = model(**inputs, output_hidden_states=True).hidden_states
            hidden = layer_mean(hidden_states, config.layers)
        return pool_vectors(
            items,
            texts,
            hidden,
            encoded["attention_mask"],
            special,
            offsets,
            max_length=max_length,
            include_special_tokens=config.include_special_tokens,
        )

    def max_length(self, config: EmbedConfig) -> int:
        positions = getattr(self.model_config, "max_position_embeddings", None)
        return min(config.max_length, positions) if positions else config.max_length


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
