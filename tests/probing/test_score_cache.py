"""The likelihood runs' score cache: rows as arrays, lossless, keyed by model, start token and dtype."""

from __future__ import annotations

import pytest

from probing.likelihood.scores import TextScore
from probing.models import CachedScores
from probing.run.score_cache import DatabaseScoreCache, ScoreStats, decode_score, encode_score, score_cached

SCORE = TextScore("An eager beaver.", ["▁An", "▁eager", "▁beaver", "."], [(0, 2), (2, 8), (8, 15), (15, 16)],
                  [None, -3.141592653589793, -0.1 + 1e-12, -2.5e-9])  # fmt: skip


@pytest.mark.parametrize(
    "score",
    [
        SCORE,
        TextScore("odd\x1ftokens", ["odd", "\x1f", "tokens"], [(0, 3), (3, 4), (4, 10)], [-1.0, -2.0, None]),
        TextScore("", [], [], []),
    ],
)
def test_a_score_comes_back_as_it_went_in(score):
    back = decode_score(score.text, *encode_score(score))
    assert (list(back.names), list(back.offsets), list(back.logprobs)) == (
        list(score.names),
        list(score.offsets),
        list(score.logprobs),
    )


@pytest.mark.django_db
def test_rows_are_kept_apart_by_model_start_token_and_dtype():
    cache, other, half = DatabaseScoreCache("m1"), DatabaseScoreCache("m2"), DatabaseScoreCache("m1", "bfloat16")
    cache.put_many([SCORE], start_token=False)
    cache.put_many([SCORE], start_token=False)  # a second writer of the same text: ignored
    assert CachedScores.objects.count() == 1
    assert list(cache.get_many([SCORE.text], False)[SCORE.text].logprobs) == list(SCORE.logprobs)
    assert cache.get_many([SCORE.text], True) == {} and other.get_many([SCORE.text], False) == {}
    assert half.get_many([SCORE.text], False) == {}


@pytest.mark.django_db
def test_score_cached_scores_only_what_the_cache_lacks():
    asked: list[list[str]] = []

    class Scorer:
        def score(self, texts, batch_size=None, start_token=False, **placement):
            asked.append(list(texts))
            return [TextScore(t, [t], [(0, len(t))], [-float(len(t))]) for t in texts]

    cache, stats = DatabaseScoreCache("m1"), ScoreStats()
    first = score_cached(Scorer(), ["a", "bb", "a"], cache, batch_size=4, stats=stats, chunk=1)
    second = score_cached(Scorer(), ["bb", "ccc"], cache, batch_size=4, stats=stats)
    assert asked == [["a"], ["bb"], ["ccc"]]  # each text once, stored chunk by chunk
    assert (stats.embedded, stats.cached) == (3, 1)
    assert first["a"].total == -1.0 and second["bb"].total == -2.0 and second["ccc"].total == -3.0
