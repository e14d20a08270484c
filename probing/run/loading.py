"""What a worker loads once per process: a release's pairs (by the content of its data) and a model's backend."""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial

from core.memory import paused_gc, settle
from datasets import vocabulary
from probing.embedding.lazy import LazyBackend, Recorded, backend_key
from probing.embedding.sources import RefusedSource
from probing.measures.probes import context_items, context_pairs, pairs_from_snapshot, unique_items
from probing.models import EmbeddingModel
from releases.actions import release_files
from releases.formats import snapshot_from_files
from releases.formats.reader import SNAPSHOT_FILES as SNAPSHOT_READS
from releases.formats.tidy import COMPOUNDS_JSONL, PAIRS_JSONL
from releases.models import Release
from releases.snapshot import Snapshot

NEUTRAL_PATTERN = vocabulary.NEUTRAL_SHORT
# The release files a snapshot's compounds, sentences and variants are read from (releases.formats.reader):
# what the pairs are made of. A run reads these and datapackage.json (SNAPSHOT_READS), not the others.
SNAPSHOT_FILES = (COMPOUNDS_JSONL, PAIRS_JSONL)
_KEEP_RELEASES, _KEEP_BACKENDS = 4, 2


@dataclass
class ReleaseProbes:
    """A release's minimal pairs and context pairs, grouped by (language, compound)."""

    snapshot: Snapshot
    compounds: list[tuple[str, str]]  # canonical order; only compounds with something to probe
    pairs: dict[tuple[str, str], list] = field(default_factory=dict)
    context: dict[tuple[str, str], list] = field(default_factory=dict)
    without_pairs: list[tuple[str, str]] = field(default_factory=list)

    def select(self, keys: Iterable[tuple[str, str]]) -> tuple[list, list]:
        keys = [tuple(k) for k in keys]
        return [p for k in keys for p in self.pairs.get(k, ())], [c for k in keys for c in self.context.get(k, ())]

    def items(self, keys: Iterable[tuple[str, str]]) -> list:
        pairs, context = self.select(keys)
        return list(dict.fromkeys([*unique_items(pairs), *context_items(context)]))


_releases: OrderedDict[str, ReleaseProbes] = OrderedDict()


def probes_key(release: Release) -> str:
    """What a release's pairs are made of: the sha256 of the files the snapshot is read from, as its manifest says.

    A new release of the same data (another version, date or title) has the same key, and its pairs
    are not read and parsed again. A manifest without them falls back to the release checksum.
    """
    hashes = {entry.get("path"): entry.get("sha256") for entry in (release.manifest or {}).get("files", [])}
    parts = [hashes.get(path) for path in SNAPSHOT_FILES]
    if not all(parts):
        return release.checksum
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def release_probes(release: Release) -> ReleaseProbes:
    """The pairs of a release, read from its verified files once per process (keyed by their content)."""
    key = probes_key(release)
    if key in _releases:
        _releases.move_to_end(key)
        return _releases[key]
    with paused_gc():  # tens of thousands of records and pairs, no cycles (core.memory)
        snapshot, _ = snapshot_from_files(release_files(release, only=SNAPSHOT_READS))
        pairs: dict[tuple[str, str], list] = {}
        for pair in pairs_from_snapshot(snapshot, neutral_pattern=NEUTRAL_PATTERN):
            pairs.setdefault((pair.language, pair.compound), []).append(pair)
        context: dict[tuple[str, str], list] = {}
        for pair in context_pairs(snapshot, neutral_pattern=NEUTRAL_PATTERN):
            context.setdefault((pair.language, pair.compound), []).append(pair)
    order = [(c.language, c.text) for c in snapshot.compounds]  # snapshot_from_files gives the canonical order
    probes = ReleaseProbes(
        snapshot=snapshot,
        compounds=[k for k in order if k in pairs or k in context],
        pairs=pairs,
        context=context,
        without_pairs=[k for k in order if k not in pairs and k not in context],
    )
    _releases[key] = probes
    while len(_releases) > _KEEP_RELEASES:
        _releases.popitem(last=False)
    settle()  # the worker keeps these pairs: later collections need not walk them (core.memory)
    return probes


def estimate_cost(release: Release, model: EmbeddingModel) -> dict | None:
    """What a run would cost a paid API (OpenAI): {"texts", "tokens", "usd"}; None for local models.

    Counts the release's unique texts at sentence level (the API gives no NC-level vectors). None
    too for a model the administrator's rules refuse: it will not run (its runs fail with the reason).
    """
    if model.kind != "openai":
        return None
    try:
        backend = model_backend(model)
    except RefusedSource:
        return None
    probes = release_probes(release)
    items = unique_items([p for pairs in probes.pairs.values() for p in pairs])
    items += context_items([p for pairs in probes.context.values() for p in pairs])
    texts = sorted({item.text for item in items})
    estimate = backend.estimate_cost(texts)
    return {"texts": len(texts), **estimate}


_backends: OrderedDict[str, LazyBackend] = OrderedDict()


def model_backend(model: EmbeddingModel) -> LazyBackend:
    """The model's backend, kept once per process (the few most recently used); opened only when it must compute.

    A run whose vectors are all cached asks only the model's identity, kind, spans and layers:
    they come from what the last opening recorded (``EmbeddingModel.opened``) while the check of
    its files still matches (``probing.embedding.lazy``), so no network is built.
    """
    source, options = model.resolved_source(), dict(model.options or {})
    key = backend_key(model.kind, source, options)
    if key not in _backends:
        _backends[key] = model.lazy_backend(on_open=partial(_opened, model.pk, model.opened))
        while len(_backends) > _KEEP_BACKENDS:
            _backends.popitem(last=False)
    _backends.move_to_end(key)
    return _backends[key]


def _opened(model_id: int, known: dict, record: Recorded) -> None:
    from probing.actions import record_opened_model  # probing.actions imports this module

    settle()  # a model's modules and tokenizer live as long as the worker (core.memory)
    if record.as_dict() != known:
        record_opened_model(model_id, record.as_dict())
