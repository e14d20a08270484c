"""Embedding backends: one interface over transformers, sentence-transformers, static vectors and OpenAI (pure: no Django)."""

from probing.embedding.backends import load_backend
from probing.embedding.base import (
    Backend,
    EmbedConfig,
    TextSpan,
    Vectors,
    bundled_minilm_path,
)

__all__ = ["Backend", "EmbedConfig", "TextSpan", "Vectors", "bundled_minilm_path", "load_backend"]
