"""PMI, PPMI and frequencies per million, checked against values worked out by hand."""

from __future__ import annotations

import pytest

from building.counts.association import per_million, pmi, ppmi


def test_pmi_of_words_seen_together_more_than_by_chance():
    # P(xy) = 10/1000, P(x) = 20/1000, P(y) = 25/1000: 0.01 / 0.0005 = 20 times chance.
    assert pmi(10, 20, 25, 1000) == pytest.approx(4.321928, abs=1e-6)  # log2(20)
    assert ppmi(10, 20, 25, 1000) == pytest.approx(4.321928, abs=1e-6)


def test_pmi_of_independent_words_is_zero():
    assert pmi(1, 10, 100, 1000) == 0.0


def test_ppmi_clips_words_seen_together_less_than_by_chance():
    assert pmi(1, 100, 100, 1000) == pytest.approx(-3.321928, abs=1e-6)  # log2(1/10)
    assert ppmi(1, 100, 100, 1000) == 0.0


@pytest.mark.parametrize("counts", [(0, 20, 25, 1000), (10, 0, 25, 1000), (10, 20, 0, 1000), (10, 20, 25, 0)])
def test_a_zero_count_leaves_pmi_undefined(counts):
    assert pmi(*counts) is None
    assert ppmi(*counts) is None


def test_per_million():
    assert per_million(3, 2_000_000) == 1.5
    assert per_million(0, 10) == 0.0
    assert per_million(5, 0) is None
