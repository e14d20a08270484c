"""NC_Rand: frequency-matched and unmatched random compounds from a pool."""

import random

from building.counts.frequency import Frequencies
from building.rules.nc_rand.random_match import Candidate, MatchingPool, frequency_matched, unmatched


def candidate(text, f_avg):
    # f_NC = f_w1 = f_w2 = f_avg keeps every average exact.
    return Candidate(text, tuple(text.split()), Frequencies(f_avg, f_avg, f_avg))


POOL = [
    candidate("fire truck", 5.0),
    candidate("dog house", 7.0),
    candidate("hat stand", 8.0),
    candidate("bus stop", 8.0),
    candidate("apple tree", 9.0),
    candidate("ice age", 10.0),  # shares "ice" with the target
    candidate("ice cream", 10.0),  # the target itself
    candidate("sour créam", 10.25),  # shares "cream", accents aside
    candidate("brick wall", 11.0),
    candidate("coal mine", 12.0),
    candidate("egg white", 14.0),
    candidate("jam jar", 15.5),
]
# Distances from 10: apple tree and brick wall 1; bus stop, coal mine and hat stand 2; dog house 3;
# egg white 4; fire truck 5; jam jar 5.5.
RANKING = [
    "apple tree",
    "brick wall",
    "bus stop",
    "coal mine",
    "hat stand",
    "dog house",
    "egg white",
    "fire truck",
    "jam jar",
]


def texts(candidates):
    return [c.text for c in candidates]


def test_f_avg_is_the_mean_of_the_compound_and_its_two_words():
    assert Candidate("eager beaver", ("eager", "beaver"), Frequencies(0.3, 12.0, 2.7)).f_avg == 5.0


def test_the_nearest_f_avg_come_first_and_equal_distances_go_by_text():
    pool = MatchingPool(POOL)
    assert texts(pool.frequency_matched("Ice Cream", ["ice", "cream"], 10.0)) == RANKING[:5]


def test_later_sentences_take_the_next_slice_of_the_ranking():
    pool = MatchingPool(POOL)
    assert texts(pool.frequency_matched("ice cream", ["ice", "cream"], 10.0, n=5, skip=5)) == RANKING[5:]
    assert pool.frequency_matched("ice cream", ["ice", "cream"], 10.0, n=5, skip=10) == []


def test_the_compound_and_candidates_sharing_a_word_are_never_offered():
    pool = MatchingPool(POOL)
    offered = texts(pool.frequency_matched("ice cream", ["ice", "cream"], 10.0, n=len(POOL)))
    assert offered == RANKING


def test_targets_beyond_either_end_of_the_pool_still_get_the_nearest():
    pool = MatchingPool(POOL)
    assert texts(pool.frequency_matched("ice cream", ["ice", "cream"], 0.0, n=3)) == [
        "fire truck",
        "dog house",
        "bus stop",
    ]
    assert texts(pool.frequency_matched("ice cream", ["ice", "cream"], 1000.0, n=2)) == ["jam jar", "egg white"]


def test_a_plain_list_works_as_a_pool_and_repeats_count_once():
    pool = [*POOL, candidate("Apple Tree", 9.0)]
    assert texts(frequency_matched("ice cream", ["ice", "cream"], 10.0, pool, n=2)) == ["apple tree", "brick wall"]
    assert len(MatchingPool(pool)) == len(POOL)


def test_unmatched_draws_are_the_same_for_the_same_seed_whatever_the_pool_order():
    shuffled = POOL[:]
    random.Random(1).shuffle(shuffled)
    first = unmatched("ice cream", ["ice", "cream"], POOL, seed="ice cream|1")
    again = unmatched("ice cream", ["ice", "cream"], MatchingPool(shuffled), seed="ice cream|1")
    assert len(first) == 5 and first == again
    assert unmatched("ice cream", ["ice", "cream"], POOL) == unmatched("ice cream", ["ice", "cream"], POOL, seed=None)


def test_unmatched_draws_change_with_the_seed_and_keep_the_exclusions():
    pool = MatchingPool(POOL)
    draws = {tuple(texts(pool.unmatched("ice cream", ["ice", "cream"], seed=f"seed {i}"))) for i in range(20)}
    assert len(draws) > 1
    assert all(set(draw) <= set(RANKING) for draw in draws)


def test_unmatched_gives_what_there_is_when_the_pool_is_small():
    assert sorted(texts(unmatched("ice cream", ["ice", "cream"], POOL, n=50, seed="x"))) == sorted(RANKING)
