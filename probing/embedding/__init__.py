"""Embedding backends: one interface over transformers, sentence-transformers, static vectors and OpenAI."""

from probing.embedding.base import (
    Backend,
    EmbedConfig,
    TextSpan,
    Vectors,
    bundled_minilm_path,
    load_backend,
)

__all__ = ["Backend", "EmbedConfig", "TextSpan", "Vectors", "bundled_minilm_path", "load_backend"]
