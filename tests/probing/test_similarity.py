"""Cosines of all pairs at once equal the per-pair definition (eq. 2), raw and after standardisation."""

from __future__ import annotations

import numpy as np
import pytest

from probing.embedding.base import TextSpan, Vectors
from probing.measures import similarity
from probing.measures.metrics import (
    context_similarities,
    cosine,
    fit_standardiser,
    fit_standardisers,
    pair_similarities,
)
from probing.measures.probes import ContextPair, Pair
from probing.measures.similarity import VectorTable, cosines, row_cosines

DIM = 24


def vectors_for(items: list[TextSpan], seed: int = 0) -> dict[TextSpan, Vectors]:
    rng = np.random.default_rng(seed)
    out = {}
    for item in items:
        # An anisotropic space, as models make: a large shared offset in a few "rogue" dimensions.
        offset = np.zeros(DIM, dtype=np.float32)
        offset[:3] = 8.0
        sentence = (rng.normal(size=DIM) + offset).astype(np.float32)
        span = None if item.span is None else (rng.normal(size=DIM) + offset).astype(np.float32)
        out[item] = Vectors(sentence, span, tokens=5)
    return out


def test_every_pair_cosine_equals_the_per_pair_definition():
    originals = [TextSpan(f"sentence {i:02d} with a compound", (17, 27)) for i in range(40)]
    variants = [TextSpan(f"sentence {i:02d} with a replacement {r}", (17, 30)) for i in range(40) for r in range(3)]
    pairs = [
        Pair("en", f"c{i}", "naturalistic", "naturalistic-1", "rand", r, originals[i], variants[3 * i + r])
        for i in range(40)
        for r in range(3)
    ]
    vectors = vectors_for([*originals, *variants])
    vectors[variants[5]].span = None  # no span vector: no NC-level cosine
    vectors[variants[7]].sentence = np.zeros(DIM, dtype=np.float32)  # a zero vector: no cosine either
    standardisers = fit_standardisers([i for p in pairs for i in (p.original, p.variant)], vectors)

    found = {(ps.pair, ps.level): ps for ps in pair_similarities(pairs, vectors, standardisers)}

    checked = 0
    for pair in pairs:
        for level in ("sentence", "nc"):
            a = getattr(vectors[pair.original], "sentence" if level == "sentence" else "span")
            b = getattr(vectors[pair.variant], "sentence" if level == "sentence" else "span")
            expected = None if a is None or b is None else cosine(a, b)
            if expected is None:
                assert (pair, level) not in found
                continue
            z = standardisers[level]
            assert abs(found[pair, level].sim - expected) < 1e-6
            assert abs(found[pair, level].sim_std - cosine(z.transform(a), z.transform(b))) < 1e-6
            checked += 1
    assert checked == 2 * len(pairs) - 2
    # Standardisation matters in this space: the rogue dimensions dominate the raw cosines.
    assert np.mean([ps.sim for ps in found.values()]) > 0.6 > np.mean([ps.sim_std for ps in found.values()])


def test_context_cosines_compare_the_compound_with_the_mean_of_its_words_alone():
    inside = [TextSpan(f"the eager beaver {i} worked", (4, 16)) for i in range(10)]
    head, modifier = TextSpan("beaver", (0, 6)), TextSpan("eager", (0, 5))
    pairs = [
        ContextPair(
            "en", "eager beaver", "naturalistic", f"naturalistic-{i}", "nc_out_comp", inside[i], (head, modifier)
        )
        for i in range(10)
    ]
    vectors = vectors_for([*inside, head, modifier], seed=3)
    z = fit_standardiser([vectors[i].span for i in [*inside, head, modifier]])

    for cs in context_similarities(pairs, vectors, z):
        alone = (vectors[head].span.astype(np.float64) + vectors[modifier].span) / 2
        inner = vectors[cs.pair.in_context].span
        assert abs(cs.sim - cosine(inner, alone)) < 1e-6
        assert abs(cs.sim_std - cosine(z.transform(inner), z.transform(alone))) < 1e-6


def test_missing_and_zero_rows_give_no_cosine():
    a = np.array([[1.0, 0.0], [0.0, 0.0], [np.nan, np.nan], [2.0, 2.0]])
    b = np.array([[1.0, 1.0], [1.0, 0.0], [1.0, 0.0], [-1.0, -1.0]])
    out = cosines(a, b)
    assert abs(out[0] - 2**-0.5) < 1e-12 and np.isnan(out[1]) and np.isnan(out[2]) and abs(out[3] + 1) < 1e-12


def test_row_cosines_equal_the_cosines_of_the_gathered_rows(monkeypatch):
    """Norms once per row and gathering in chunks change no number, across chunk edges and missing rows."""
    monkeypatch.setattr(similarity, "CHUNK_ROWS", 7)
    rng = np.random.default_rng(5)
    matrix = rng.normal(size=(30, DIM)).astype(np.float32)
    matrix[4] = np.nan  # a missing vector
    matrix[9] = 0.0  # a zero vector
    a = rng.integers(0, 30, size=50)
    b = rng.integers(0, 30, size=50)
    a[:3], b[:3] = 4, 9  # pairs with the missing and the zero row
    found, expected = row_cosines(matrix, a, b), cosines(matrix[a], matrix[b])
    np.testing.assert_array_equal(np.isnan(found), np.isnan(expected))
    assert np.isnan(found[:3]).all()
    np.testing.assert_allclose(found[~np.isnan(found)], expected[~np.isnan(expected)], rtol=0, atol=1e-12)


def test_a_table_keeps_the_order_of_its_items_and_fills_missing_ones_with_nan():
    items = [TextSpan("a b", (0, 1)), TextSpan("c", None)]
    vectors = vectors_for(items[:1])
    table = VectorTable.from_vectors(vectors, items)
    assert table.rows(items[::-1]).tolist() == [1, 0]
    assert np.isnan(table.sentence[1]).all() and np.isnan(table.span[1]).all()
    np.testing.assert_array_equal(table.span[0], vectors[items[0]].span)


def test_a_table_copies_every_row_in_place_and_refuses_vectors_of_another_size():
    items = [TextSpan(f"text {i}", (0, 4)) for i in range(5)]
    vectors = vectors_for(items)
    vectors[items[2]].span = None  # a span lost to max_length: a NaN row among copied ones
    table = VectorTable.from_vectors(vectors, items)
    for row, item in enumerate(items):
        np.testing.assert_array_equal(table.sentence[row], vectors[item].sentence)
    assert np.isnan(table.span[2]).all()
    np.testing.assert_array_equal(table.span[[0, 1, 3, 4]], [vectors[items[i]].span for i in (0, 1, 3, 4)])
    vectors[items[4]].sentence = np.concatenate([vectors[items[4]].sentence, [1.0]]).astype(np.float32)
    with pytest.raises(ValueError, match="one model's vectors only"):
        VectorTable.from_vectors(vectors, items)


def test_a_table_filled_chunk_by_chunk_equals_the_table_of_all_vectors_at_once():
    items = [TextSpan(f"text {i}", (0, 4)) for i in range(7)]
    vectors = vectors_for(items)
    vectors[items[2]].span = None
    del vectors[items[5]]  # not cached: a NaN row until it is filled
    whole = VectorTable.from_vectors(vectors, items)
    chunks = [{item: vectors[item] for item in items[i : i + 3] if item in vectors} for i in range(0, 7, 3)]
    table = VectorTable.from_chunks(items, chunks[::-1])  # in any order: each vector goes to its item's row
    np.testing.assert_array_equal(table.sentence, whole.sentence)
    np.testing.assert_array_equal(table.span, whole.span)
    assert np.isnan(table.sentence[5]).all()
    late = vectors_for([items[5]])
    table.fill(late)
    np.testing.assert_array_equal(table.sentence[5], late[items[5]].sentence)
    everything = {**vectors, **late}
    np.testing.assert_array_equal(table.sentence, VectorTable.from_vectors(everything, items).sentence)
    assert VectorTable.from_chunks(items, [{}, {}]).sentence.shape == (7, 0)


def test_a_full_fill_out_of_order_puts_each_vector_in_its_own_row():
    items = [TextSpan(f"text {i}", None) for i in range(4)]
    vectors = vectors_for(items)
    table = VectorTable.from_chunks(items, [{items[0]: vectors[items[0]]}])
    table.fill({item: vectors[item] for item in items[::-1]})  # every row, reversed
    for row, item in enumerate(items):
        np.testing.assert_array_equal(table.sentence[row], vectors[item].sentence)


def test_mean_rows_equal_each_groups_own_mean_and_nan_for_a_missing_or_empty_group():
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(20, DIM)).astype(np.float32)
    matrix[3] = np.nan
    groups = [np.array([1, 2]), np.array([], dtype=np.int64), np.array([3, 4, 5]), np.array([7]), np.array([2, 1, 9])]
    found = similarity.mean_rows(matrix, groups)
    for g, rows in enumerate(groups):
        expected = np.asarray(matrix[rows], dtype=np.float64).mean(axis=0) if len(rows) else np.full(DIM, np.nan)
        np.testing.assert_array_equal(found[g], expected)  # the same numbers, NaN where a row is missing
    assert np.isnan(found[1]).all() and np.isnan(found[2]).all() and not np.isnan(found[4]).any()
    assert similarity.mean_rows(matrix, []).shape == (0, DIM)


def test_chunks_hold_a_bounded_number_of_bytes_whatever_the_width(monkeypatch):
    assert similarity.chunk_rows(np.zeros((10, 384))) == similarity.CHUNK_BYTES // (8 * 384)
    assert similarity.chunk_rows(np.zeros((10, 5120))) == similarity.CHUNK_BYTES // (8 * 5120)
    assert similarity.chunk_rows(np.zeros((10, 2))) == similarity.CHUNK_ROWS  # narrow rows: the row bound
    assert similarity.chunk_rows(np.zeros((10, 10**7))) == 1
    monkeypatch.setattr(similarity, "CHUNK_ROWS", 7)
    assert similarity.chunk_rows(np.zeros((10, 384))) == 7
