"""What a similarity shard computes: the vectors of its texts and the raw cosines of its pairs.

The shard embeds the texts it owns and borrows the others from earlier shards through the cache.
Reads only (the vector cache is written by the engine as it embeds); ``probing.actions.run_shard``
claims the shard, calls ``measure_shard_vectors`` and records the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict

from core.shards import (
    beating,
)
from probing.embedding.base import EmbedConfig, check_sweep
from probing.measures.similarity import VectorTable
from probing.models import ProbeRun, ProbeShard, identity_hash
from probing.run.cache import DatabaseVectorCache, stored_bytes
from probing.run.engine import CacheKeys, embed_all
from probing.run.loading import model_backend, release_probes
from probing.run.provenance import environment
from probing.run.shard_results import measure_shard
from probing.run.sharding import ShardPlan

BORROW_WAIT = 60.0  # seconds a shard waits for the running shard that owns a text it needs (then embeds it)


BORROW_POLL = 0.5


class ProbeError(ValueError):
    """A run that cannot be started, resumed or finished as asked; the message says why."""


def measure_shard_vectors(
    run: ProbeRun, shard: ProbeShard, on_progress: Callable[[int, int], None] | None = None
) -> tuple[dict, object]:
    """The shard's result (raw cosines, stats, model identity, worker) and its embedding stats."""
    probes = release_probes(run.release)
    pairs, context = probes.select(shard.compounds)
    items = probes.items(shard.compounds)
    backend = model_backend(run.model)
    identity = backend.identity()
    expected = run.provenance.get("model_identity")
    if expected and expected != identity:
        raise ProbeError(f"this worker loaded {identity}, but the run's other shards used {expected}")
    config = EmbedConfig.from_dict(run.config)
    try:
        layers = check_sweep(backend, config)
    except ValueError as error:
        raise ProbeError(f"model {run.model.name}: {error}") from None
    cache = DatabaseVectorCache(identity_hash(identity), layer_dtype=config.sweep_storage, run=run.pk)
    own, borrowed = ShardPlan.from_dict(shard.plan).split(items)
    vectors, stats = embed_all(backend, own, config, cache, on_progress=on_progress)
    if borrowed:
        found, stats.borrowed, extra = borrow_vectors(run.pk, borrowed, backend, config, cache)
        vectors.update(found)
        stats.embedded += extra
    # Raw cosines only: standardisation needs the whole run's vectors (finish_run).
    result = measure_shard(pairs, context, VectorTable.from_vectors(vectors, items), layers)
    cache_bytes = sum(stored_bytes(vectors[item], config.sweep_storage) for item in own)
    result |= {
        "stats": {**asdict(stats), "cache_bytes": cache_bytes},
        "identity": identity,
        "worker": environment(),
    }
    return result, stats


def borrow_vectors(run_id: int, borrowed: list[tuple], backend, config, cache) -> tuple[dict, int, int]:
    """Vectors of items whose texts earlier shards own: from the cache, waiting while an owner is still running.

    Returns (vectors, how many were read, how many were embedded here): an owner that is not
    running (pending, failed, silent for BORROW_WAIT seconds, or whose worker stopped beating) is not waited for.
    """
    key_of = CacheKeys(backend.identity(), config)
    keys = {item: key_of(item) for item, _ in borrowed}
    owners = dict(borrowed)
    found: dict = {}
    deadline = time.monotonic() + BORROW_WAIT
    while True:
        hits = cache.get_many([key for item, key in keys.items() if item not in found])
        found |= {item: hits[key] for item, key in keys.items() if key in hits}
        missing = [item for item in keys if item not in found]
        owners_running = ProbeShard.objects.filter(
            beating(), run_id=run_id, index__in={owners[item] for item in missing}
        )
        if not missing or time.monotonic() > deadline or not owners_running.exists():
            break
        time.sleep(BORROW_POLL)
    read = len(found)
    if missing:
        found |= embed_all(backend, missing, config, cache)[0]
    return found, read, len(missing)
