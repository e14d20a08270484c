"""OpenAI (or any server speaking POST /v1/embeddings): sentence vectors only, batched and retried.

The key is read from an environment variable when the first request is made, so a model can be
registered and its cost estimated without one. With ``ApiRules`` (every model someone registered)
the variable and ``base_url`` are checked before the key is read, and the HTTP client connects only
to checked addresses and follows no redirect (``probing.embedding.network``).

Tokens are counted with tiktoken when it is importable, otherwise estimated as one token per four
characters (rounded up), the rule of thumb OpenAI documents for English.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from probing.embedding.base import EmbedConfig, TextSpan, Vectors
from probing.embedding.network import ApiRules, Endpoint

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
# USD per million input tokens (public price list); override with options["price_per_million_tokens"].
PRICES = {"text-embedding-3-small": 0.02, "text-embedding-3-large": 0.13, "text-embedding-ada-002": 0.10}
DIMENSIONS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}
MAX_INPUTS_PER_REQUEST = 2048


class OpenAIBackend(Endpoint):
    """Embeddings over HTTP. Options: model, base_url, price_per_million_tokens, dimensions, and those of
    every ``Endpoint`` (api_key_env, max_retries, backoff_seconds, timeout)."""

    kind = "openai"
    supports_span = False

    def __init__(
        self,
        source: str,
        options: dict,
        sleep: Callable[[float], None] = time.sleep,
        rules: ApiRules | None = None,
    ) -> None:
        super().__init__(options.get("base_url") or DEFAULT_BASE_URL, options, rules, sleep)
        self.model = options.get("model") or source or DEFAULT_MODEL
        self.price = float(options.get("price_per_million_tokens", PRICES.get(self.model, 0.0)))
        self.dimensions = options.get("dimensions")
        self._encoding: object | None = False  # looked up on first use

    def identity(self) -> dict:
        return {
            "kind": self.kind,
            "name": self.model,
            "base_url": self.base_url,
            "revision": self.model,  # the API serves one version per model name
            "dim": self.dimensions or DIMENSIONS.get(self.model),
        }

    def token_lengths(self, texts: list[str]) -> list[int]:
        if self._encoding is False:
            self._encoding = _tiktoken_encoding(self.model)
        if self._encoding is not None:
            return [len(self._encoding.encode(text)) for text in texts]
        return [max(1, math.ceil(len(text) / 4)) for text in texts]

    def estimate_cost(self, texts: list[str]) -> dict:
        """{"tokens": n, "usd": x} for embedding the unique texts once."""
        tokens = sum(self.token_lengths(list(dict.fromkeys(texts))))
        return {"tokens": tokens, "usd": tokens * self.price / 1_000_000}

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        texts = list(dict.fromkeys(item.text for item in items))
        size = min(config.batch_size, MAX_INPUTS_PER_REQUEST)
        vectors: dict[str, np.ndarray] = {}
        for start in range(0, len(texts), size):
            chunk = texts[start : start + size]
            vectors.update(zip(chunk, self._request(chunk), strict=True))
        lengths = dict(zip(texts, self.token_lengths(texts), strict=True))
        return [Vectors(sentence=vectors[item.text].copy(), span=None, tokens=lengths[item.text]) for item in items]

    def _request(self, texts: list[str]) -> list[np.ndarray]:
        extra = {"dimensions": int(self.dimensions)} if self.dimensions else {}

        response = self.call(
            lambda client: client.embeddings.create(input=texts, model=self.model, encoding_format="float", **extra),
            "embeddings",
        )
        rows = sorted(response.data, key=lambda row: row.index)
        if len(rows) != len(texts):
            raise RuntimeError(f"asked for {len(texts)} embeddings, got {len(rows)}")
        return [np.asarray(row.embedding, dtype=np.float32) for row in rows]


def _tiktoken_encoding(model: str):
    try:
        import tiktoken
    except ImportError:
        return None
    try:
        return tiktoken.encoding_for_model(model)
    except Exception:  # an unknown model, or the encoding file cannot be fetched (no network)
        return None
