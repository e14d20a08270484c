"""What a shard stores (pure: no Django): the raw cosines of its pairs, computed once, and how the report reads them.

A shard computes every cosine of its minimal pairs at both levels (and at each swept layer) and of
its context pairs, all at once over its vectors (``probing.measures.similarity``), and stores them in its
``result``. The report reads them back (``stored_pair_sims``) instead of computing them again; only
the standardised cosines, which need the whole run's vectors, are computed when the run finishes.

In ``result``, aligned with the shard's pairs and context pairs in release order (``ReleaseProbes.select``):
``pair_sims``: ``{"sentence": [sim or None], "nc": [...]}``; ``context_sims``: ``[sim or None]``; with a
sweep, ``layer_sims``: ``{"index": [hidden-state indices], "sentence": [[sim or None per layer]], "nc": ...}``.
Shards stored before these keys existed keep ``pairs`` and ``context`` rows with their keys; both are read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from probing.measures.metrics import ContextSim, PairSim, context_cosines, pair_cosines
from probing.measures.probes import ContextPair, Pair
from probing.measures.similarity import VectorTable
from probing.vocabulary import LEVELS


def pair_key(pair: Pair) -> tuple:
    return (pair.language, pair.compound, pair.condition, pair.sentence_id, pair.probe, pair.rank)


def context_key(pair: ContextPair) -> tuple:
    return (pair.language, pair.compound, pair.condition, pair.sentence_id, pair.probe)


def measure_shard(
    pairs: Sequence[Pair], context: Sequence[ContextPair], table: VectorTable, layers: Sequence[int] = ()
) -> dict:
    """The result entries of a shard: ``pair_sims``, ``context_sims`` and, with swept ``layers``, ``layer_sims``."""
    result = {
        "pair_sims": {level: _floats(pair_cosines(pairs, table, level)) for level in LEVELS},
        "context_sims": _floats(context_cosines(context, table)),
    }
    if layers:
        result["layer_sims"] = {"index": list(layers)}
        for level in LEVELS:
            per_layer = np.stack([pair_cosines(pairs, table, level, row) for row in range(len(layers))], axis=1)
            result["layer_sims"][level] = [_floats(row) for row in per_layer]
    return result


def _floats(values: np.ndarray) -> list[float | None]:
    return [None if value != value else float(value) for value in values.tolist()]  # NaN: none


def stored_pair_sims(shards: Iterable[tuple[Mapping, Sequence[Pair]]]) -> list[PairSim]:
    """The shards' raw cosines as PairSim (``sim_std`` None): per pair, each level that has one.

    ``shards``: (result, the shard's pairs in release order) for each shard, in shard order.
    """
    out: list[PairSim] = []
    for result, pairs in shards:
        if "pair_sims" not in result:
            out += _keyed_pair_sims(result, pairs)
            continue
        sims = result["pair_sims"]
        _check(len(pairs), sims, "pair")
        columns = [(level, sims[level]) for level in LEVELS]
        for i, pair in enumerate(pairs):
            out += [PairSim(pair, level, values[i], None) for level, values in columns if values[i] is not None]
    return out


def stored_context_sims(shards: Iterable[tuple[Mapping, Sequence[ContextPair]]]) -> list[ContextSim]:
    out: list[ContextSim] = []
    for result, pairs in shards:
        if "context_sims" not in result:
            by_key = {context_key(p): p for p in pairs}
            out += [ContextSim(by_key[tuple(key)], sim, None) for *key, sim in result.get("context", [])]
            continue
        _check(len(pairs), {"context": result["context_sims"]}, "context pair")
        out += [
            ContextSim(p, sim, None) for p, sim in zip(pairs, result["context_sims"], strict=True) if sim is not None
        ]
    return out


def stored_layer_sims(shards: Sequence[tuple[Mapping, Sequence[Pair]]]) -> tuple[list[int], list[list[PairSim]]]:
    """(swept hidden-state indices, per layer the PairSims of that layer); ([], []) without a sweep."""
    index = next((result["layer_sims"]["index"] for result, _ in shards if result.get("layer_sims")), [])
    per_layer: list[list[PairSim]] = [[] for _ in index]
    for result, pairs in shards:
        sims = result.get("layer_sims") or {}
        if not sims:
            continue
        _check(len(pairs), {level: sims[level] for level in LEVELS}, "pair")
        for i, pair in enumerate(pairs):
            for level in LEVELS:
                for j, sim in enumerate(sims[level][i]):
                    if sim is not None:
                        per_layer[j].append(PairSim(pair, level, sim, None))
    return list(index), per_layer


def _check(count: int, columns: Mapping[str, list], what: str) -> None:
    for level, values in columns.items():
        if len(values) != count:
            raise ValueError(f"a shard stored {len(values)} {level} cosines for {count} {what}s: its result is stale")


def _keyed_pair_sims(result: Mapping, pairs: Sequence[Pair]) -> list[PairSim]:
    by_key = {pair_key(p): p for p in pairs}
    return [PairSim(by_key[tuple(key)], level, sim, None) for *key, level, sim in result.get("pairs", [])]
