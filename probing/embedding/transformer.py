"""HuggingFace transformers (encoders such as BERT, decoders such as LLaMA): one pass gives both vectors.

Each unique text runs through the model once with output_hidden_states; ``probing.embedding.pooling``
turns the hidden states into sentence and span vectors. With ``{"engine": "onnx"}`` in the model's
options an encoder's pass runs in ONNX Runtime instead (``probing.embedding.onnx_engine``: float32 on
the CPU, checked equal to the eager pass when exported); tokens and pooling are the same.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import torch

from probing.embedding.base import (
    EmbedConfig,
    TextSpan,
    Tokens,
    Vectors,
    engine_of,
    model_identity,
    safetensors_only,
)
from probing.embedding.pooling import (
    FastEncoder,
    hidden_state_count,
    in_text_batches,
    max_length_of,
    pool_hidden_states,
    prepare_tokenizer,
    read_tokens,
    torch_dtype,
    unique_texts,
)


class TransformerBackend:
    """A HuggingFace AutoModel (encoder or decoder) with a fast tokenizer, loaded from a local folder."""

    kind = "transformer"
    supports_span = True

    def __init__(
        self, source: str, options: dict, allow_pickle: bool = False, engine_cache: Path | None = None
    ) -> None:
        from transformers import AutoConfig, AutoTokenizer

        self.source = str(source)
        self.options = options
        self.engine = engine_of(options)
        self.engine_cache = engine_cache
        self._fast = None  # the onnx engine's OnnxEncoder, opened on first use
        self.use_safetensors = safetensors_only(allow_pickle)
        self.local_files_only = bool(options.get("local_files_only", True))
        self.revision = options.get("revision")
        self.tokenizer = prepare_tokenizer(
            AutoTokenizer.from_pretrained(self.source, local_files_only=self.local_files_only, revision=self.revision)
        )
        self.model_config = AutoConfig.from_pretrained(
            self.source, local_files_only=self.local_files_only, revision=self.revision
        )
        self._encoder = FastEncoder(self.tokenizer)
        self._model = None
        self._model_key: tuple[str, str] | None = None
        self._forward_params: set[str] = set()  # kept when the fast engine frees the eager model
        self._identity: dict | None = None

    def identity(self) -> dict:
        if self._identity is None:
            dim = getattr(self.model_config, "hidden_size", None) or self.model_config.dim  # DistilBERT says dim
            self._identity = model_identity(self.kind, self.source, self.options, dim)
        return self._identity

    def token_lengths(self, texts: list[str]) -> list[int]:
        return self._encoder.lengths(texts)

    def layer_count(self) -> int:
        return hidden_state_count(self.model_config)

    def tokens(self, item: TextSpan, config: EmbedConfig) -> Tokens:
        return read_tokens(self.tokenizer, item, self.max_length(config))

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
                use_safetensors=self.use_safetensors,
            )
            self._model = model.to(config.device).eval()
            self._forward_params = set(inspect.signature(model.forward).parameters)
            self._model_key = key
        return self._model

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        return in_text_batches(items, config.batch_size, lambda chunk: self._embed(chunk, config))

    def _embed(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        fast = self.fast_encoder(config) if self.engine != "eager" else None
        model = self.model(config) if fast is None else None
        texts = unique_texts(items)
        max_length = self.max_length(config)
        encoded = self._encoder.batch(texts, max_length)
        offsets = encoded.pop("offset_mapping")
        special = encoded.pop("special_tokens_mask")
        inputs = {key: value.to(config.device) for key, value in encoded.items() if key in self._forward_params}
        if "use_cache" in self._forward_params:
            inputs["use_cache"] = False
        sweep = config.sweep_layers(self.layer_count())
        with torch.inference_mode():
            if fast is not None:  # the layers the config pools, nothing more
                hidden_states = fast.hidden_states(inputs, [*config.layers, *sweep])
            else:
                hidden_states = model(**inputs, output_hidden_states=True).hidden_states
            return pool_hidden_states(
                items,
                texts,
                hidden_states,
                encoded["attention_mask"],
                special,
                offsets,
                config,
                max_length=max_length,
                sweep=sweep,
            )

    def fast_encoder(self, config: EmbedConfig):
        """The onnx engine's encoder (exported and checked on first use); ValueError for a config it cannot run."""
        from probing.embedding.onnx_engine import check_config, open_encoder

        check_config(config)
        if self._fast is None:
            self._fast = open_encoder(self.model(config), self.tokenizer, self.identity(), self.engine_cache)
            self._model, self._model_key = None, None  # the session has the weights: free the eager copy
        return self._fast

    def max_length(self, config: EmbedConfig) -> int:
        return max_length_of(self.model_config, config)
