"""What a model makes of one text, as the engine computes it (pure: no Django): for ``embed_text``.

The vectors come from ``probing.run.engine.embed_all`` with the given config, so they are the ones a
probe run would use and cache; a layer sweep adds each swept hidden state alone.
"""

from __future__ import annotations

import numpy as np

from probing.embedding.base import Backend, EmbedConfig, TextSpan, check_sweep
from probing.embedding.e5_backend import KIND as E5_KIND
from probing.embedding.e5_backend import refuse_nc_level
from probing.run.engine import embed_all

COMBINED = "combined"  # the key of the configured combination (config.layers averaged, or the pipeline's own)


def describe_text(backend: Backend, item: TextSpan, config: EmbedConfig, model: str) -> dict:
    """``{"model", "identity", "config", "combined_layers", "tokens", "span_tokens", "layers"}``.

    ``layers`` maps each swept hidden state (its index from 0, the embedding layer) and ``"combined"``
    to ``{"sentence": [...], "span": [...] or None}``. ``tokens``/``span_tokens`` are None for a
    backend that cannot say what it read (an API).
    """
    if item.span is not None and backend.kind == E5_KIND:
        raise refuse_nc_level(backend.kind)
    sweep = check_sweep(backend, config)
    vectors = embed_all(backend, [item], config)[0][item]
    layers = {
        str(layer): _level_vectors(
            vectors.layer_sentences[row], None if vectors.layer_spans is None else vectors.layer_spans[row]
        )
        for row, layer in enumerate(sweep)
    }
    layers[COMBINED] = _level_vectors(vectors.sentence, vectors.span)
    read = backend.tokens(item, config) if hasattr(backend, "tokens") else None
    return {
        "model": model,
        "identity": backend.identity(),
        "config": config.as_dict(),
        "combined_layers": "pipeline" if backend.kind == "sentence_transformers" else list(config.layers),
        "tokens": read.tokens if read is not None else None,
        "span_tokens": read.span_tokens if read is not None else None,
        "span_truncated": vectors.span_truncated,
        "layers": layers,
    }


def _level_vectors(sentence: np.ndarray, span: np.ndarray | None) -> dict:
    return {"sentence": _floats(sentence), "span": None if span is None else _floats(span)}


def _floats(vector: np.ndarray) -> list[float]:
    return [float(x) for x in np.asarray(vector, dtype=np.float32)]
