"""sentence-transformers models: the pipeline's own sentence vector and the span from the same pass.

One model.forward(features) per batch gives the sentence embedding exactly as the model defines it
(its pooling, dense and normalize modules) and the token embeddings its pooling read; the span vector
is the mean of the token embeddings whose offsets overlap the span. The offsets come from the
model's tokenizer called with the same truncation, and its ids must equal the pipeline's.
The config's layers and include_special_tokens do not apply: the pipeline decides both. A layer sweep
adds each hidden state of the pipeline's transformer, mean-pooled by the engine (special tokens as the
config says), from the same pass.

With ``{"engine": "onnx"}`` in the model's options the pipeline's transformer runs in ONNX Runtime
(``probing.embedding.onnx_engine``: float32 on the CPU, checked equal to the eager pass when
exported) and its token embeddings go through the pipeline's other modules (pooling, normalize) as
they are; a pipeline whose first module is not a plain text transformer is refused (with the reason).

The tokenizer runs once per batch: once the first batch has shown that the pipeline's own
preprocessing gives the same ids and nothing else, later batches are fed the tokenizer's output.
"""

from __future__ import annotations

from pathlib import Path

import torch

from probing.embedding.base import EmbedConfig, TextSpan, Tokens, Vectors, engine_of, model_identity, safetensors_only
from probing.embedding.pooling import (
    FastEncoder,
    hidden_state_count,
    in_text_batches,
    pool_hidden_states,
    read_tokens,
    torch_dtype,
    unique_texts,
)

# What the pipeline's preprocessing gives a text model: with nothing else, the tokenizer's output can stand in.
PLAIN_FEATURES = {"input_ids", "attention_mask", "token_type_ids", "modality"}


class SentenceTransformersBackend:
    """A SentenceTransformer folder (for example the bundled all-MiniLM-L6-v2)."""

    kind = "sentence_transformers"
    supports_span = True

    def __init__(
        self, source: str, options: dict, allow_pickle: bool = False, engine_cache: Path | None = None
    ) -> None:
        self.source = str(source)
        self.options = options
        self.allow_pickle = allow_pickle
        self.engine = engine_of(options)
        self.engine_cache = engine_cache
        self._fast = None  # the onnx engine's OnnxEncoder, opened on first use
        self.model = self._load()
        self._model_key = ("float32", "cpu")
        self.dim = int(self.model.get_embedding_dimension())
        self._identity: dict | None = None
        self._plain_features: set[int] = set()  # max lengths whose preprocessing the tokenizer was seen to match
        self._encoder = FastEncoder(self.tokenizer)

    def _load(self):
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(
            self.source,
            device="cpu",
            local_files_only=bool(self.options.get("local_files_only", True)),
            revision=self.options.get("revision"),
            model_kwargs={"use_safetensors": safetensors_only(self.allow_pickle)},
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
        return self._encoder.lengths(texts)

    def layer_count(self) -> int:
        return hidden_state_count(self.model[0].auto_model.config)

    def tokens(self, item: TextSpan, config: EmbedConfig) -> Tokens:
        max_length = min(config.max_length, self.model.max_seq_length or config.max_length)
        if getattr(self.model[0], "do_lower_case", False):
            item = TextSpan(item.text.lower(), item.span)
        return read_tokens(self.tokenizer, item, max_length)

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
        lowercase = bool(getattr(model[0], "do_lower_case", False))
        if lowercase and any(len(text.lower()) != len(text) for text in texts):
            raise RuntimeError("lower-casing changed a text's length: its offsets no longer match")
        encoded = self._encoder.batch([text.lower() for text in texts] if lowercase else texts, max_length)
        features = self._features(model, texts, encoded, max_length)
        features = {k: v.to(config.device) if isinstance(v, torch.Tensor) else v for k, v in features.items()}
        sweep = config.sweep_layers(self.layer_count())
        fast = self.fast_encoder(config) if self.engine != "eager" else None
        model[0].auto_model.config.output_hidden_states = bool(sweep)
        with torch.inference_mode():
            output = model.forward(features) if fast is None else self._fast_forward(model, fast, features, sweep)
            return pool_hidden_states(
                items,
                texts,
                output.get("all_layer_embeddings") or (),
                encoded["attention_mask"],
                encoded["special_tokens_mask"],
                encoded["offset_mapping"],
                config,
                max_length=max_length,
                sweep=sweep,
                combined=output["token_embeddings"].float(),
                sentence=output["sentence_embedding"].float(),
            )

    def fast_encoder(self, config: EmbedConfig):
        """The onnx engine's encoder (exported and checked on first use); ValueError where it cannot stand in."""
        from probing.embedding.onnx_engine import check_config, open_encoder

        check_config(config)
        if self._fast is None:
            first = self.model[0]
            text = getattr(first, "modality_config", {}).get("text", {})
            plain = text.get("method") == "forward" and text.get("method_output_name") in (
                "last_hidden_state",
                ("last_hidden_state",),
                ["last_hidden_state"],
            )
            if not plain or getattr(first, "module_output_name", None) != "token_embeddings":
                raise ValueError(
                    f"the {self.engine} engine stands in for a pipeline's transformer that gives its last hidden "
                    "state as token embeddings; this pipeline's first module does otherwise: use the eager engine"
                )
            self._fast = open_encoder(first.auto_model, self.tokenizer, self.identity(), self.engine_cache)
        return self._fast

    @staticmethod
    def _fast_forward(model, fast, features: dict, sweep: tuple[int, ...]) -> dict:
        """The pipeline's forward with its first module's pass from the fast engine, the other modules as they are."""
        states = fast.hidden_states(features, range(len(fast.output_names)) if sweep else [-1])
        features = {**features, "token_embeddings": states[-1]}
        if sweep:
            features["all_layer_embeddings"] = tuple(states)
        for module in list(model)[1:]:
            features = module(features)
        return features

    def _features(self, model, texts: list[str], encoded, max_length: int) -> dict:
        """The pipeline's input features: its own preprocessing until it has been seen to equal the tokenizer's."""
        if max_length in self._plain_features:
            features = {
                key: encoded[key] for key in ("input_ids", "attention_mask", "token_type_ids") if key in encoded
            }
            return {**features, "modality": "text"}
        features = model.preprocess(texts, max_length=max_length)
        if not torch.equal(encoded["input_ids"], features["input_ids"]):
            raise RuntimeError("the tokenizer's ids differ from the pipeline's: span offsets would be wrong")
        plain = set(features) <= PLAIN_FEATURES and features.get("modality", "text") == "text"
        if plain and all(torch.equal(encoded[k], features[k]) for k in features if k != "modality"):
            self._plain_features.add(max_length)
        return features
