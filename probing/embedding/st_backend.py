"""sentence-transformers models: the pipeline's own sentence vector and the span from the same pass.

One model.forward(features) per batch gives the sentence embedding exactly as the model defines it
(its pooling, dense and normalize modules) and the token embeddings its pooling read; the span vector
is the mean of the token embeddings whose offsets overlap the span. The offsets come from the
model's tokenizer called with the same truncation, and its ids must equal the pipeline's.
The config's layers and include_special_tokens do not apply: the pipeline decides both.
"""

from __future__ import annotations

import torch

from probing.embedding.base import EmbedConfig, TextSpan, Vectors, model_identity
from probing.embedding.transformer import in_text_batches, pool_vectors, torch_dtype, unique_texts


class SentenceTransformersBackend:
    """A SentenceTransformer folder (for example the bundled all-MiniLM-L6-v2)."""

    kind = "sentence_transformers"
    supports_span = True

    def __init__(self, source: str, options: dict) -> None:
        self.source = str(source)
        self.options = options
        self.model = self._load()
        self._model_key = ("float32", "cpu")
        self.dim = int(self.model.get_embedding_dimension())
        self._identity: dict | None = None

    def _load(self):
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(
            self.source,
            device="cpu",
            local_files_only=bool(self.options.get("local_files_only", True)),
            revision=self.options.get("revision"),
        )
        if not getattr(model[0], "tokenizer", None) or not model[0].tokenizer.is_fast:
            raise ValueError("the pipeline's first module needs a fast tokenizer (span offsets)")
        return model.eval()

    @property
    def tokenizer(self):
        return self.model[0].tokenizer

    def identity(self) -> dict:
        if self._identity is None:
            self._identity = model_identity(self.kind, self.source, self.options, self.dim)
        return self._identity

    def token_lengths(self, texts: list[str]) -> list[int]:
        return [len(ids) for ids in self.tokenizer(list(texts), verbose=False)["input_ids"]]

    def _model_for(self, config: EmbedConfig):
        key = (config.dtype, config.device)
        if self._model_key != key:
            if self._model_key[0] != config.dtype:
                self.model = self._load()  # casting back from bfloat16 would not restore the weights
            self.model = self.model.to(device=config.device, dtype=torch_dtype(config.dtype))
            self._model_key = key
        return self.model

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        return in_text_batches(items, config.batch_size, lambda chunk: self._embed(chunk, config))

    def _embed(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        model = self._model_for(config)
        texts = unique_texts(items)
        max_length = min(config.max_length, model.max_seq_length or config.max_length)
        features = model.preprocess(texts, max_length=max_length)
        lowercase = bool(getattr(model[0], "do_lower_case", False))
        encoded = self.tokenizer(
            [text.lower() for text in texts] if lowercase else texts,
            padding=True,
            truncation="longest_first",
            max_length=max_length,
            return_offsets_mapping=True,
            return_special_tokens_mask=True,
            return_tensors="pt",
        )
        if not torch.equal(encoded["input_ids"], features["input_ids"]):
            raise RuntimeError("the tokenizer's ids differ from the pipeline's: span offsets would be wrong")
        if lowercase and any(len(text.lower()) != len(text) for text in texts):
            raise RuntimeError("lower-casing changed a text's length: its offsets no longer match")
        features = {k: v.to(config.device) if isinstance(v, torch.Tensor) else v for k, v in features.items()}
        with torch.inference_mode():
            output = model.forward(features)
        hidden = output["token_embeddings"].float()
        sentence = output["sentence_embedding"].float()
        return pool_vectors(
            items,
            texts,
            hidden,
            encoded["attention_mask"],
            encoded["special_tokens_mask"],
            encoded["offset_mapping"],
            max_length=max_length,
            sentence=sentence,
        )
