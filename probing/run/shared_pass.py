"""A likelihood shard that also measures similarity: one pass of the causal LM fills both caches.

The shard runs the texts it scores in context together with those the similarity measures
embed (the same sentences and variants, and the compounds and their words alone for the in and
out of context measures). Whatever either cache lacks is run through the model once
(``LanguageModel.score_and_embed``): a text missing its scores or any of its items' vectors is
scored again and pooled, so both caches end up holding it and a resumed shard runs nothing twice.
The vectors are filed in the vector cache under the run's model identity and embedding config,
as a similarity run's are (``probing.run.cache``), and read back by the run's finish to standardise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from probing.embedding.base import EmbedConfig, TextSpan, Vectors
from probing.likelihood.scores import TextScore
from probing.run.engine import CacheKeys, EngineStats, round_as_stored
from probing.run.score_cache import DatabaseScoreCache, ScoreStats


def score_and_embed_cached(
    scorer,
    texts: Sequence[str],
    items: Sequence[TextSpan],
    config: EmbedConfig,
    scores_cache: DatabaseScoreCache,
    vector_cache,
    *,
    stats: ScoreStats,
    on_progress: Callable[[int, int], None] | None = None,
    chunk: int = 512,
) -> tuple[dict[str, TextScore], dict[TextSpan, Vectors], EngineStats]:
    """Each text's scores and each item's vectors: from the caches, else from one pass per chunk, stored as it goes.

    ``texts`` are scored in context (no start token), and the items' texts with them (the same pass).
    The EngineStats count the vectors as a similarity run counts them (``embedded``: pooled now).
    """
    started = time.perf_counter()
    wanted = list(dict.fromkeys(items))
    unique = list(dict.fromkeys([*texts, *(item.text for item in wanted)]))
    found = scores_cache.get_many(unique, start_token=False)
    stats.cached += len(found)
    key_of = CacheKeys(scorer.identity(), config)
    keys = {item: key_of(item) for item in wanted}
    cached = vector_cache.get_many(list(keys.values())) if keys else {}
    vectors = {item: cached[key] for item, key in keys.items() if key in cached}
    lacking = {item.text for item in wanted if item not in vectors}
    missing = [text for text in unique if text not in found or text in lacking]
    vector_stats = EngineStats(
        requested=len(items), unique=len(wanted), cached=len(vectors), embedded=0, batches=0, seconds=0.0, oov=0
    )
    done = len(unique) - len(missing)
    for start in range(0, len(missing), chunk):
        part = missing[start : start + chunk]
        in_part = set(part)
        asked = [item for item in wanted if item.text in in_part and item not in vectors]
        scored, fresh = scorer.score_and_embed(part, asked, config, config.batch_size, config.dtype, config.device)
        new_scores = [score for score in scored if score.text not in found]
        scores_cache.put_many(new_scores, start_token=False)
        found.update((score.text, score) for score in scored if score.text not in found)
        stats.embedded += len(new_scores)
        round_as_stored(fresh.values(), config)
        vector_cache.put_many({keys[item]: item_vectors for item, item_vectors in fresh.items()})
        vectors.update(fresh)
        vector_stats.embedded += len(fresh)
        vector_stats.batches += 1
        vector_stats.texts += len({item.text for item in fresh})
        done += len(part)
        if on_progress is not None:
            on_progress(done, len(unique))
    vector_stats.seconds = time.perf_counter() - started
    vector_stats.spans_truncated = sum(1 for item_vectors in vectors.values() if item_vectors.span_truncated)
    return found, {item: vectors[item] for item in wanted}, vector_stats
