"""One question's ratings as (annotator, item, value) triples, the sparse form every agreement figure starts from.

Pure module (numpy and pandas, no Django). A crowd worker rates about a hundred of thousands of items, so an
annotators × items matrix is almost all holes: at 10,000 workers × 9,000 items it is 90 million cells for a
million ratings. Alpha needs only each item's count of each value (items × values), the per-annotator
figures need each annotator's own ratings, and the top-k search needs who rated which item: all three are
O(ratings) from the triples, sorted by annotator then item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it


@dataclass(frozen=True)
class Triples:
    """Ratings of one question: codes per rating, sorted by (annotator, item), and the labels the codes stand for.

    ``annotators`` and ``items`` are the sorted labels (the reliability matrix's rows and columns);
    ``value`` indexes ``domain``.
    """

    annotators: np.ndarray
    items: np.ndarray
    annotator: np.ndarray
    item: np.ndarray
    value: np.ndarray
    domain: np.ndarray

    @property
    def n_annotators(self) -> int:
        return len(self.annotators)

    @property
    def n_items(self) -> int:
        return len(self.items)

    def annotator_starts(self) -> np.ndarray:
        """Where each annotator's ratings start in the arrays (length n_annotators + 1, CSR style)."""
        return np.concatenate([[0], np.cumsum(np.bincount(self.annotator, minlength=self.n_annotators))])

    def scores(self) -> np.ndarray:
        """Each rating's value in the domain's units."""
        return self.domain[self.value]


def _encode(annotators, items, annotator, item, values, value_domain: Sequence[float], question: str) -> Triples:
    """Triples from codes and raw values: checks the domain and that no annotator rated an item twice."""
    domain = np.asarray(value_domain, dtype=float)
    values = np.asarray(values, dtype=float)
    order = np.argsort(domain, kind="stable")
    at = np.clip(np.searchsorted(domain[order], values), 0, len(domain) - 1)
    if values.size and not (domain[order][at] == values).all():
        raise ValueError(f"ratings outside the value domain {domain.tolist()}")
    annotator = np.asarray(annotator, dtype=np.int64)
    item = np.asarray(item, dtype=np.int64)
    sort = np.lexsort((item, annotator))
    annotator, item, value = annotator[sort], item[sort], order[at][sort]
    if annotator.size > 1 and ((annotator[1:] == annotator[:-1]) & (item[1:] == item[:-1])).any():
        # Two ratings of one item by one annotator would silently count as two coders agreeing with each other.
        raise ValueError(f"{question}: some annotator rated an item more than once")
    return Triples(np.asarray(annotators), np.asarray(items), annotator, item, value, domain)


def triples(ratings: pd.DataFrame, question: str, value_domain: Sequence[float]) -> Triples:
    """The non-missing ratings of ``question`` in a long DataFrame (``annotator``, ``item``) as triples."""
    import pandas as pd

    rated = ratings.loc[ratings[question].notna(), ["annotator", "item", question]]
    # factorize(sort=True) orders labels as pivot does, so codes are the reliability matrix's rows and columns.
    annotator, annotators = pd.factorize(rated["annotator"], sort=True)
    item, items = pd.factorize(rated["item"], sort=True)
    return _encode(annotators, items, annotator, item, rated[question].to_numpy(float), value_domain, question)


def from_matrix(matrix: np.ndarray, value_domain: Sequence[float]) -> Triples:
    """Triples of an annotators × items matrix (NaN: not rated); labels are the row and column indices."""
    matrix = np.asarray(matrix, dtype=float)
    annotator, item = np.nonzero(~np.isnan(matrix))
    return _encode(
        np.arange(matrix.shape[0]),
        np.arange(matrix.shape[1]),
        annotator,
        item,
        matrix[annotator, item],
        value_domain,
        "",
    )


def value_counts(t: Triples) -> np.ndarray:
    """Items × values: how many annotators gave each value to each item (``agreement.value_counts`` sparsely)."""
    v = len(t.domain)
    return np.bincount(t.item * v + t.value, minlength=t.n_items * v).reshape(t.n_items, v).astype(float)


def common_items(t: Triples, rows: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The items every annotator of ``rows`` rated, and their items × values counts over those annotators only."""
    mask = np.isin(t.annotator, np.asarray(rows, dtype=np.int64))
    shared = np.bincount(t.item[mask], minlength=t.n_items) == len(rows)
    keep = mask & shared[t.item]
    v = len(t.domain)
    counts = np.bincount(t.item[keep] * v + t.value[keep], minlength=t.n_items * v).reshape(t.n_items, v)
    return np.flatnonzero(shared), counts[shared].astype(float)


def raters_of_items(t: Triples) -> tuple[np.ndarray, np.ndarray]:
    """Who rated each item, CSC style: (starts per item, annotator codes ascending within each item)."""
    by_item = np.argsort(t.item, kind="stable")  # stable: annotators stay ascending within an item
    starts = np.concatenate([[0], np.cumsum(np.bincount(t.item, minlength=t.n_items))])
    return starts, t.annotator[by_item]
