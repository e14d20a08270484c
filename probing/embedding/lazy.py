"""A backend that opens its model only when it must compute: a run whose vectors are all cached loads nothing.

Pure: no Django. Before it embeds anything, a run needs four facts of a model: its ``kind``, its
``identity()`` (the cache keys), whether it gives span vectors and how many layers it has (sweeps).
They are recorded (``Recorded``) the first time the model is really opened, together with
``weights_check``: the sha256 of every weight, config and tokenizer file it reads (or its pinned
revision), which costs a read of the files but not the minutes of building the network. A later
process, a fresh Celery worker after a deploy or another ``run_probes``, trusts the record while
the check still matches; a changed file on disk gives another check, so the model is opened
again and its new identity is the one used (and recorded).

Anything else (``token_lengths``, ``embed_batch``, ``tokens``, ``estimate_cost``) opens the model.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from probing.embedding.base import Backend, commit_hash, file_sha256, weights_sha256
from probing.embedding.e5_backend import model_file
from probing.embedding.elmo_files import ElmoFilesError, elmo_files
from probing.embedding.sources import API_KINDS

RECORD_VERSION = (
    2  # bump when what a record holds changes: older records are then ignored (2: language models have layers)
)


def backend_key(kind: str, source: str, options: dict) -> str:
    """What a record is of: the kind, the resolved source and the loader options (canonical JSON)."""
    return json.dumps([kind, source, options or {}], sort_keys=True)


def weights_check(kind: str, source: str, options: dict) -> dict:
    """What says the model's files are the ones recorded, read without building the network.

    Local models: the sha256 over their weight, config and tokenizer files (an ELMo: its weights
    and options files); a hub id: its pinned revision; an API model (``openai``): nothing on disk,
    its identity follows from its options alone.
    """
    if kind in API_KINDS:  # served: the identity is the options'
        return {}
    if kind == "e5":
        try:
            return {"weights_sha256": file_sha256(model_file(source))}
        except (ValueError, FileNotFoundError):
            return {"missing": source}
    if kind == "elmo":
        try:
            files = elmo_files(source, options.get("options_file"))
        except ElmoFilesError:
            return {"missing": source}  # never equal to a record: opening the model gives the error
        return {"weights_sha256": file_sha256(files.weights), "options_sha256": file_sha256(files.options)}
    if Path(source).exists():
        try:
            return {"weights_sha256": weights_sha256(source)}
        except FileNotFoundError:
            return {"missing": source}
    return {"revision": options.get("revision") or commit_hash(source)}


@dataclass(frozen=True)
class Recorded:
    """The facts of an opened model that a run needs before it embeds, and the check they hold under."""

    key: str
    check: dict
    identity: dict
    supports_span: bool
    layer_count: int | None  # None: the backend has no layers to sweep
    version: int = RECORD_VERSION

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict | None) -> Recorded | None:
        """The record, or None for an empty, older or malformed one (the model is then opened)."""
        if not isinstance(data, dict) or data.get("version") != RECORD_VERSION:
            return None
        try:
            return cls(**data)
        except TypeError:
            return None

    @classmethod
    def of(cls, backend: Backend, key: str, check: dict) -> Recorded:
        count = getattr(backend, "layer_count", None)
        return cls(
            key=key,
            check=check,
            identity=backend.identity(),
            supports_span=bool(backend.supports_span),
            layer_count=None if count is None else int(count()),
        )


class ChangedWhileRunning(RuntimeError):
    """The model opened now is not the one its record (already used for cache keys) described."""


class LazyBackend:
    """A Backend whose model is opened on first need; see the module docstring.

    ``open_backend`` opens the model (with the administrator's checks); ``check`` computes
    ``weights_check``; ``on_open`` receives the record of every opening (the caller stores it when
    it differs from ``recorded``).
    """

    def __init__(
        self,
        kind: str,
        key: str,
        open_backend: Callable[[], Backend],
        check: Callable[[], dict],
        recorded: Recorded | None = None,
        on_open: Callable[[Recorded], None] | None = None,
    ) -> None:
        self.kind = kind
        self._key = key
        self._open = open_backend
        self._check = check
        self._recorded = recorded if recorded is not None and recorded.key == key else None
        self._on_open = on_open
        self._checked: dict | None = None
        self._backend: Backend | None = None
        self._trusted_used = False

    @property
    def loaded(self) -> bool:
        """Whether the model has been opened in this process."""
        return self._backend is not None

    def _trusted(self) -> Recorded | None:
        if self._backend is not None or self._recorded is None:
            return None
        if self._checked is None:
            self._checked = self._check()
        if self._checked != self._recorded.check:
            return None
        self._trusted_used = True
        return self._recorded

    def backend(self) -> Backend:
        """The opened model (opened now if it was not)."""
        if self._backend is None:
            backend = self._open()
            check = self._checked if self._checked is not None else self._check()
            record = Recorded.of(backend, self._key, check)
            if self._trusted_used and self._recorded is not None and record.identity != self._recorded.identity:
                raise ChangedWhileRunning(
                    f"the model's files changed while it was in use: recorded {self._recorded.identity}, "
                    f"opened {record.identity}"
                )
            self._backend = backend
            self._recorded = record
            if self._on_open is not None:
                self._on_open(record)
        return self._backend

    @property
    def supports_span(self) -> bool:
        recorded = self._trusted()
        return recorded.supports_span if recorded is not None else bool(self.backend().supports_span)

    def identity(self) -> dict:
        recorded = self._trusted()
        return dict(recorded.identity) if recorded is not None else self.backend().identity()

    def __getattr__(self, name: str):
        # Only for what the class does not define: layer_count and the members that need the model.
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "layer_count":
            recorded = self._trusted()
            if recorded is not None:
                if recorded.layer_count is None:
                    raise AttributeError(name)  # as the backend itself: probing.embedding.base.layer_count
                count = recorded.layer_count
                return lambda: count
        return getattr(self.backend(), name)
