"""probing.run.cache.RunMemo: a run's vectors kept for its finish, bounded, and forgotten per run."""

import numpy as np

from probing.embedding.base import Vectors
from probing.run.cache import RunMemo, stored_bytes


def vectors(value: float) -> Vectors:
    return Vectors(sentence=np.full(4, value, dtype=np.float32), span=np.full(4, value, dtype=np.float32), tokens=3)


def test_runs_are_remembered_apart_and_forgotten_one_at_a_time():
    memo = RunMemo()
    memo.add(1, {"a": vectors(1.0), "b": vectors(2.0)})
    memo.add(2, {"a": vectors(3.0)})
    assert memo.get(1, ["a", "b", "c"])["b"].sentence[0] == 2.0
    assert memo.get(2, ["a", "b"]).keys() == {"a"}
    memo.forget(1)
    assert memo.get(1, ["a", "b"]) == {}
    assert memo.get(2, ["a"])["a"].sentence[0] == 3.0
    assert memo.size == stored_bytes(vectors(3.0))
    memo.forget(2)
    memo.forget(3)  # a run never seen: nothing to do
    assert (memo.size, len(memo.vectors), memo.keys) == (0, 0, {})


def test_the_oldest_vectors_go_first_beyond_the_limit_and_forget_still_balances_the_size():
    one = stored_bytes(vectors(0.0))
    memo = RunMemo(limit=2 * one)
    memo.add(1, {"a": vectors(1.0), "b": vectors(2.0)})
    memo.add(2, {"c": vectors(3.0)})
    assert memo.get(1, ["a", "b"]).keys() == {"b"}  # "a" was the oldest
    assert memo.size == 2 * one
    memo.forget(1)
    assert memo.size == one
    memo.add(2, {"c": vectors(9.0)})  # remembered already: the first stays
    assert memo.get(2, ["c"])["c"].sentence[0] == 3.0


def test_a_sweeps_layers_are_not_remembered_and_their_bytes_not_counted():
    swept = vectors(1.0)
    swept.layer_sentences = swept.layer_spans = np.ones((7, 4), dtype=np.float32)
    memo = RunMemo()
    memo.add(1, {"a": swept})
    kept = memo.get(1, ["a"])["a"]
    assert kept.layer_sentences is None and kept.layer_spans is None
    assert kept.sentence[0] == 1.0 and swept.layer_sentences is not None  # the caller's vectors untouched
    assert memo.size == stored_bytes(vectors(1.0))
