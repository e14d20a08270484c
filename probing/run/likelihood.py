"""What a likelihood shard computes: the log-probabilities of its texts and its rows of preferences and items.

A shard of a likelihood run is a slice of the release's compounds, as a similarity shard is. It
builds the compounds' multiple-choice items, scores every text they and the minimal pairs need
through the score cache (``probing.run.score_cache``: a text scored by any earlier run or shard of
the same model is read, not scored again) and keeps its rows (``probing.likelihood.probe.rows``);
the run's finish computes the tables over every shard's rows. The model is opened only when a text
is missing from the cache: its identity comes from the record of its last opening while the
weights on disk still match it (``probing.embedding.lazy``). A run that asks for the similarity
measures too (``"similarity"`` in its config) pools the same pass's hidden states into their vectors
(``measure_shard_similarity``, ``probing.run.shared_pass``) and keeps their raw cosines beside its rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

from probing.embedding.base import EmbedConfig, check_sweep
from probing.likelihood.items import choice_items
from probing.likelihood.probe import rows, texts_alone, texts_to_score
from probing.measures.similarity import VectorTable
from probing.models import ProbeRun, ProbeShard, identity_hash
from probing.run.cache import DatabaseVectorCache, stored_bytes
from probing.run.loading import ReleaseProbes, model_backend, release_probes
from probing.run.provenance import environment
from probing.run.score_cache import DatabaseScoreCache, ScoreStats, score_cached
from probing.run.shard_results import measure_shard
from probing.run.shared_pass import score_and_embed_cached
from probing.run.vectors import ProbeError


def shard_texts(probes: ReleaseProbes, compounds) -> tuple[list, list, list[str], list[str], int]:
    """(pairs, items, texts scored in context, choices scored alone, items skipped) of some compounds."""
    pairs, _ = probes.select(compounds)
    items, skipped = choice_items(pairs)
    return pairs, items, texts_to_score(pairs, items), texts_alone(items), skipped


def shard_size_of(probes: ReleaseProbes, compounds, similarity: bool = False) -> int:
    """The distinct texts a shard of ``compounds`` runs through the model (its progress's total); with
    ``similarity``, the texts its similarity measures embed too (the same pass scores them)."""
    *_, texts, alone, _ = shard_texts(probes, compounds)
    embedded = {item.text for item in probes.items(compounds)} if similarity else set()
    return len(set(texts + alone) | embedded)


def measure_shard_likelihood(
    run: ProbeRun, shard: ProbeShard, on_progress: Callable[[int, int], None] | None = None
) -> tuple[dict, ScoreStats]:
    """The shard's result (its rows, stats, the model's identity, the worker) and what it scored."""
    probes = release_probes(run.release)
    pairs, items, texts, alone, skipped = shard_texts(probes, shard.compounds)
    scorer = model_backend(run.model)
    identity = scorer.identity()
    expected = run.provenance.get("model_identity")
    if expected and expected != identity:
        raise ProbeError(f"this worker loaded {identity}, but the run's other shards used {expected}")
    config = run.config
    placement = {key: config[key] for key in ("dtype", "device", "share_prefixes") if key in config}
    cache = DatabaseScoreCache(identity_hash(identity), config.get("dtype", "float32"))
    stats = ScoreStats()
    total = len(texts) + len(alone)

    def progress(offset: int):
        return None if on_progress is None else (lambda done, _: on_progress(offset + done, total))

    size = int(config["batch_size"])
    kwargs = {"batch_size": size, "placement": placement, "stats": stats}
    similarity = None
    if config.get("similarity"):  # both families from one pass (probing.run.shared_pass)
        scores, similarity = measure_shard_similarity(run, shard, probes, scorer, texts, cache, stats, progress(0))
    else:
        scores = score_cached(scorer, texts, cache, on_progress=progress(0), **kwargs)
    # A choice alone is scored after a start token where the tokenizer adds none (lm-evaluation-harness).
    scores |= score_cached(scorer, alone, cache, start_token=True, on_progress=progress(len(texts)), **kwargs)
    result = {
        **rows(pairs, items, scores),
        "items_skipped": skipped,
        "stats": {**asdict(stats), "texts": total},
        "identity": identity,
        "worker": environment(),
        **({"similarity": similarity} if similarity is not None else {}),
    }
    return result, stats


def measure_shard_similarity(run, shard, probes, scorer, texts, cache, stats, on_progress) -> tuple[dict, dict]:
    """The scores of ``texts`` and the shard's similarity result (raw cosines and vector stats), from one pass."""
    config = EmbedConfig.from_dict(run.config["similarity"])
    try:
        layers = check_sweep(scorer, config)
    except ValueError as error:
        raise ProbeError(f"model {run.model.name}: {error}") from None
    pairs, context = probes.select(shard.compounds)
    items = probes.items(shard.compounds)
    vector_cache = DatabaseVectorCache(identity_hash(scorer.identity()), layer_dtype=config.sweep_storage, run=run.pk)
    scores, vectors, vector_stats = score_and_embed_cached(
        scorer,
        texts,
        items,
        config,
        cache,
        vector_cache,
        stats=stats,
        on_progress=on_progress,
    )
    result = measure_shard(pairs, context, VectorTable.from_vectors(vectors, items), layers)
    cache_bytes = sum(stored_bytes(vectors[item], config.sweep_storage) for item in dict.fromkeys(items))
    return scores, {**result, "stats": {**asdict(vector_stats), "cache_bytes": cache_bytes}}
