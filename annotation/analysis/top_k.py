"""The paper's top-k annotator search (Garcia et al. 2021): the k annotators with the most items all of them rated.

Pure module (numpy, no Django). Exact, with the dense search's ties: of the pairs or triples with the most
items in common, the first in lexicographic order of annotator indices (i < j < l).

Cost, with R ratings, A annotators and r raters per item: for each annotator i the raters of i's items are
gathered and counted (``S[i, j]``, the items i shares with each j): Σ over items of r², i.e. R·r in all,
with no annotators × annotators or annotators × items array. The pair is the largest ``S[i, j]``. A triple
(i, j, l) shares at most min(S[i, j], S[i, l]) items, so for each i only the j with ``S[i, j]`` at least the
best count so far can complete a better triple; their items-of-i incidence gives all triples of i in one
small product. The best third for the top pair starts the bound, so at a million uniform ratings (10,000
annotators, 9,000 items) each i keeps a few hundred candidates instead of 10,000. The worst case
(candidates never pruned) stays cubic, as any exact search for the densest triple is in general.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from annotation.analysis.triples import Triples, raters_of_items


def _neighbourhoods(t: Triples) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """Per annotator i: (i, i's item codes, the raters of those items, the position of each rater's item in i's)."""
    starts = t.annotator_starts()
    item_starts, raters = raters_of_items(t)
    for i in range(t.n_annotators):
        own = t.item[starts[i] : starts[i + 1]]
        first, lengths = item_starts[own], item_starts[own + 1] - item_starts[own]
        total = int(lengths.sum())
        # Flat indices of every (item of i, rater of that item): each item's run of raters, end to end.
        run_start = np.repeat(first - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
        who = raters[run_start + np.arange(total)]
        yield i, own, who, np.repeat(np.arange(len(own)), lengths)


def top_pair(t: Triples) -> tuple[list[int], int]:
    """The pair of annotators with the most items in common (the first such pair i < j), and that number."""
    if t.n_annotators < 2:
        raise ValueError(f"need at least 2 annotators, have {t.n_annotators}")
    best, best_count = [0, 1], 0
    for i, _, who, _ in _neighbourhoods(t):
        if i >= t.n_annotators - 1:
            break
        shared = np.bincount(who, minlength=t.n_annotators)[i + 1 :]
        j = int(np.argmax(shared))  # the first maximum: ties go to the lowest j
        if shared[j] > best_count:
            best, best_count = [i, i + 1 + j], int(shared[j])
    return best, best_count


def _best_third(t: Triples, pair: list[int]) -> int:
    """The most items a third annotator shares with ``pair`` (a count some triple reaches: a lower bound)."""
    starts = t.annotator_starts()
    a, b = pair
    both = np.intersect1d(t.item[starts[a] : starts[a + 1]], t.item[starts[b] : starts[b + 1]])
    others = np.isin(t.item, both) & (t.annotator != a) & (t.annotator != b)
    counts = np.bincount(t.annotator[others], minlength=t.n_annotators)
    return int(counts.max()) if counts.size else 0


def top_triple(t: Triples, pair: list[int] | None = None) -> tuple[list[int], int]:
    """The triple of annotators with the most items in common (the first such i < j < l), and that number.

    ``pair``: ``top_pair(t)``'s annotators when the caller has them (any pair gives the same answer, only slower).
    """
    n = t.n_annotators
    if n < 3:
        raise ValueError(f"need at least 3 annotators, have {n}")
    # Some triple reaches `floor`, so no triple below it can be the answer: it prunes before the loop finds one.
    floor = max(_best_third(t, pair or top_pair(t)[0]), 1)
    best, best_count = [0, 1, 2], -1
    position = np.full(n, -1)
    for i, own, who, column in _neighbourhoods(t):
        if i >= n - 2:
            break
        shared = np.bincount(who, minlength=n)
        shared[: i + 1] = 0
        candidates = np.flatnonzero(shared >= max(floor, best_count + 1))  # ascending: keeps the tie order
        if len(candidates) < 2:
            continue
        position[candidates] = np.arange(len(candidates))
        row = position[who]
        hit = row >= 0
        incidence = np.zeros((len(candidates), len(own)))
        incidence[row[hit], column[hit]] = 1.0
        position[candidates] = -1
        triple = incidence @ incidence.T
        triple = np.triu(triple, 1) + np.tril(np.full_like(triple, -1.0))
        j, m = np.unravel_index(int(np.argmax(triple)), triple.shape)
        if triple[j, m] > best_count:
            best, best_count = [i, int(candidates[j]), int(candidates[m])], int(triple[j, m])
    if best_count < 0:
        return [0, 1, 2], 0  # no item is shared by any three annotators: the first triple, as the dense search
    return best, best_count


def top_k(t: Triples, k: int, pair: list[int] | None = None) -> tuple[list[int], int]:
    """Row indices (annotator codes) of the k annotators with the most items rated by all of them, and that number.

    ``pair``: for k = 3, the top pair if already known (``top_triple``).
    """
    if k not in (2, 3):
        raise ValueError("k must be 2 or 3")
    return top_pair(t) if k == 2 else top_triple(t, pair)
