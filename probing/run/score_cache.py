"""The likelihood runs' cache in the database: each text's per-token log-probabilities, once per model.

A row is keyed by the model's identity hash, whether the text was scored after a start token (a
multiple-choice item's choice alone, lm-evaluation-harness's empty context), the scoring format
(``probing.likelihood.scores.SCORE_FORMAT``) and the text: a row is never reused for other weights
or another way of scoring, and any worker reuses what another scored. Rows are only inserted (the
first of two workers scoring the same text wins), never updated, as the vector cache's are.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from probing.likelihood.scores import SCORE_FORMAT, TextScore
from probing.models import CachedScores

CHUNK = 2000  # keys per query


def score_key(model: str, text: str, start_token: bool) -> str:
    """sha256 of what makes a text's scores: the model's identity hash, the start token, the format, the text."""
    payload = json.dumps([model, bool(start_token), SCORE_FORMAT, text], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


@dataclass
class ScoreStats:
    """What a shard's scoring did: texts scored by the model (``embedded``, as the runs count it) and read from the cache."""

    embedded: int = 0
    cached: int = 0


class DatabaseScoreCache:
    """TextScores on ``CachedScores`` rows, filed under ``model`` (the identity hash).

    ``dtype``: the precision the model computed in, which changes its scores: float32 rows keep the
    identity hash as it is, others are filed under the hash with the dtype beside it.
    """

    def __init__(self, model: str, dtype: str = "float32") -> None:
        self.model = model if dtype == "float32" else hashlib.sha256(f"{model}:{dtype}".encode()).hexdigest()

    def get_many(self, texts: Sequence[str], start_token: bool) -> dict[str, TextScore]:
        keys = {score_key(self.model, text, start_token): text for text in dict.fromkeys(texts)}
        found: dict[str, TextScore] = {}
        listed = list(keys)
        for start in range(0, len(listed), CHUNK):
            rows = CachedScores.objects.filter(key__in=listed[start : start + CHUNK]).values_list("key", "tokens")
            for key, tokens in rows:
                text = keys[key]
                offsets = [tuple(pair) for pair in tokens["offsets"]]
                found[text] = TextScore(text, tokens["names"], offsets, tokens["logprobs"])
        return found

    def put_many(self, scores: Sequence[TextScore], start_token: bool) -> None:
        rows = [
            CachedScores(
                key=score_key(self.model, score.text, start_token),
                model=self.model,
                tokens={
                    "names": list(score.names),
                    "offsets": [list(pair) for pair in score.offsets],
                    "logprobs": list(score.logprobs),
                },
            )
            for score in scores
        ]
        CachedScores.objects.bulk_create(rows, batch_size=500, ignore_conflicts=True)


def score_cached(
    scorer,
    texts: Sequence[str],
    cache: DatabaseScoreCache,
    *,
    batch_size: int,
    start_token: bool = False,
    placement: dict | None = None,
    stats: ScoreStats | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    chunk: int = 512,
) -> dict[str, TextScore]:
    """Each distinct text's scores: from the cache, else scored by ``scorer`` a chunk at a time and stored.

    Stored as each chunk is scored, so a shard killed halfway keeps what it scored. The scorer sorts
    a chunk by length itself; a chunk is ``chunk`` texts (a multiple of most batch sizes).
    ``placement``: the dtype and device a local model computes in (``ScoringBackend.score``).
    """
    stats = stats if stats is not None else ScoreStats()
    unique = list(dict.fromkeys(texts))
    found = cache.get_many(unique, start_token)
    stats.cached += len(found)
    missing = [text for text in unique if text not in found]
    done = len(found)
    for start in range(0, len(missing), chunk):
        part = missing[start : start + chunk]
        scored = scorer.score(part, batch_size, start_token, **(placement or {}))
        cache.put_many(scored, start_token)
        found.update(zip(part, scored, strict=True))
        stats.embedded += len(part)
        done += len(part)
        if on_progress is not None:
            on_progress(done, len(unique))
    return found
