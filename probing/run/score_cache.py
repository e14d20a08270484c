"""The likelihood runs' cache in the database: each text's per-token log-probabilities, once per model.

A row is keyed by the model's identity hash, whether the text was scored after a start token (a
multiple-choice item's choice alone, lm-evaluation-harness's empty context), the scoring format
(``probing.likelihood.scores.SCORE_FORMAT``) and the text: a row is never reused for other weights
or another way of scoring, and any worker reuses what another scored. Rows are only inserted (the
first of two workers scoring the same text wins), never updated, as the vector cache's are. A row
holds the token strings, their offsets and their log-probabilities as arrays (no JSON: writing a
run's scores as JSON cost more than scoring them with a small model).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from probing.likelihood.scores import SCORE_FORMAT, TextScore
from probing.models import CachedScores
from probing.run import new_rows

CHUNK = 2000  # keys per query
# A model is read in its run's dtype, as transformers reads one (its rotary frequencies stay float32): its
# bfloat16 and float16 scores differ, by about 1e-3 nats, from a float32 copy's converted after reading, so
# such rows carry this mark and are never mixed with rows scored the other way. float32 rows carry none.
READ_IN_DTYPE = "read-in-dtype"


def score_key(model: str, text: str, start_token: bool) -> str:
    """sha256 of what makes a text's scores: the model's identity hash, the start token, the format, the text."""
    payload = json.dumps([model, bool(start_token), SCORE_FORMAT, text], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


@dataclass
class ScoreStats:
    """What a shard's scoring did: texts scored by the model (``embedded``, as the runs count it) and read from the cache."""

    embedded: int = 0
    cached: int = 0


SEPARATOR, AS_JSON = "\x1f", "\x1e"  # between token strings; the mark of names kept as JSON (one holds U+001F)


def encode_names(names: Sequence[str]) -> str:
    joined = SEPARATOR.join(names)
    if joined.count(SEPARATOR) != max(len(names) - 1, 0) or joined.startswith(AS_JSON):
        return AS_JSON + json.dumps(list(names), ensure_ascii=False)
    return joined


def decode_names(text: str, count: int) -> list[str]:
    if text.startswith(AS_JSON):
        return json.loads(text[1:])
    return text.split(SEPARATOR) if count else []


def encode_score(score: TextScore) -> tuple[str, bytes, bytes]:
    """A TextScore's columns: names, offsets (int32 pairs), log-probabilities (float64, NaN for none: lossless)."""
    offsets = np.asarray(score.offsets, dtype="<i4").reshape(-1, 2)
    logprobs = np.array([np.nan if v is None else v for v in score.logprobs], dtype="<f8")
    return encode_names(score.names), offsets.tobytes(), logprobs.tobytes()


def decode_score(text: str, names: str, offsets, logprobs) -> TextScore:
    values = np.frombuffer(logprobs, dtype="<f8").tolist()
    pairs = np.frombuffer(offsets, dtype="<i4").reshape(-1, 2).tolist()
    return TextScore(
        text,
        decode_names(names, len(values)),
        [(start, end) for start, end in pairs],
        [None if v != v else v for v in values],  # NaN: a token without a log-probability
    )


class DatabaseScoreCache:
    """TextScores on ``CachedScores`` rows, filed under ``model`` (the identity hash).

    ``dtype``: the precision the model computed in, which changes its scores: float32 rows keep the
    identity hash as it is, others are filed under the hash with the dtype beside it. On PostgreSQL
    rows are written by binary COPY (``probing.run.pgcopy``), as the vector cache's are.
    """

    def __init__(self, model: str, dtype: str = "float32") -> None:
        reduced = f"{model}:{dtype}:{READ_IN_DTYPE}"
        self.model = model if dtype == "float32" else hashlib.sha256(reduced.encode()).hexdigest()
        self.keys: dict[tuple[str, bool], str] = {}  # each text's key, hashed once for its read and its write

    def key(self, text: str, start_token: bool) -> str:
        found = self.keys.get((text, start_token))
        if found is None:
            found = self.keys[(text, start_token)] = score_key(self.model, text, start_token)
        return found

    def get_many(self, texts: Sequence[str], start_token: bool) -> dict[str, TextScore]:
        keys = {self.key(text, start_token): text for text in dict.fromkeys(texts)}
        found: dict[str, TextScore] = {}
        listed = list(keys)
        for start in range(0, len(listed), CHUNK):
            rows = CachedScores.objects.filter(key__in=listed[start : start + CHUNK])
            for key, names, offsets, logprobs in rows.values_list("key", "names", "offsets", "logprobs"):
                found[keys[key]] = decode_score(keys[key], names, offsets, logprobs)
        return found

    def put_many(self, scores: Sequence[TextScore], start_token: bool) -> None:
        if not scores:
            return
        rows = [(self.key(score.text, start_token), self.model, *encode_score(score)) for score in scores]
        new_rows.insert_new(CachedScores, COLUMNS, rows)


COLUMNS = ("key", "model", "names", "offsets", "logprobs")


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
    ``placement``: how a local model computes (dtype, device, share_prefixes: ``LanguageModel.score``).
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
