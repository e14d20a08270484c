"""The dashboard's per-annotator figures, grouped over the whole frame, against each annotator's rows one by one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotation.curate.dashboard import GOLD_FIELDS, _correct, _per_annotator
from annotation.models import Item
from annotation.protocol import QUESTIONS, gold_correct

ROLES = [Item.Role.REGULAR, Item.Role.TRAINING, Item.Role.ATTENTION]


def frame(seed: int) -> pd.DataFrame:
    """Ratings of every role by a dozen annotators; gold answers on the checks only, some times unknown."""
    rng = np.random.default_rng(seed)
    n = 300
    role = rng.choice(ROLES, n, p=[0.7, 0.15, 0.15])
    data = {
        "annotator_id": rng.integers(1, 13, n),
        "item_id": rng.integers(1, 80, n),
        "role": role,
        "seconds": np.where(rng.random(n) < 0.2, np.nan, rng.exponential(8, n)),
        **{q: rng.integers(0, 6, n) for q in QUESTIONS},
    }
    for gold in GOLD_FIELDS.values():
        given = rng.integers(0, 6, n).astype(float)
        data[gold] = np.where((role != Item.Role.REGULAR) & (rng.random(n) < 0.8), given, np.nan)
    return pd.DataFrame(data)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("tolerance", [0, 1])
def test_correct_is_gold_correct_on_every_row(seed: int, tolerance: int) -> None:
    ratings = frame(seed)
    expected = [
        all(
            gold_correct(int(row[a]), None if pd.isna(row[g]) else int(row[g]), tolerance)
            for a, g in GOLD_FIELDS.items()
        )
        for _, row in ratings.iterrows()
    ]
    assert _correct(ratings, tolerance).tolist() == expected


@pytest.mark.parametrize("seed", range(3))
def test_per_annotator_figures_equal_each_annotators_own_rows(seed: int) -> None:
    ratings = frame(seed)
    ratings["correct"] = _correct(ratings, 1)
    figures = _per_annotator(ratings)
    assert set(figures) == set(ratings["annotator_id"])
    for annotator, own in ratings.groupby("annotator_id"):
        regular = own[own["role"] == Item.Role.REGULAR]
        training = own[own["role"] == Item.Role.TRAINING]
        attention = own[own["role"] == Item.Role.ATTENTION]
        seconds = regular["seconds"].dropna()
        assert figures[annotator] == (
            len(regular),
            float(seconds.median()) if len(seconds) else None,
            float(training["correct"].mean()) if len(training) else None,
            float(attention["correct"].mean()) if len(attention) else None,
        )
