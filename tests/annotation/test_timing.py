"""How long a study is said to take (annotation/timing.py: pure, no database)."""

from annotation.timing import (
    Pace,
    duration_text,
    items_per_worker,
    min_items_for_code,
    pace,
    regular_items_per_worker,
)


def test_the_measured_median_replaces_the_guess_once_there_are_enough_ratings():
    assert pace([23.0] * 9, guess=5) == Pace(5.0, False)
    assert pace([23.0] * 9 + [400.0], guess=5) == Pace(23.0, True)  # a median: one long break does not count
    assert pace([None, -1, 30, 10, 20] + [20] * 8, guess=5) == Pace(20.0, True)


def test_a_69_item_study_at_23_seconds_is_about_26_minutes_not_five():
    assert duration_text(69 * 23) == "about 26 minutes"
    assert duration_text(60) == "about 1 minute"
    assert duration_text(20) == "less than a minute"


def test_the_items_a_worker_sees_include_practice_and_attention_checks():
    assert regular_items_per_worker(100, None) == 100
    assert regular_items_per_worker(100, 20) == 20
    # 20 regular items, 2 practice items, an attention check after every fifth (3 exist: 3 shown).
    assert items_per_worker(100, 20, training_items=2, attention_items=3, attention_every=5) == 25
    assert items_per_worker(3, None, training_items=0, attention_items=2, attention_every=5) == 3


def test_the_code_never_needs_more_items_than_a_worker_can_be_given():
    assert min_items_for_code(10, 20) == 10
    assert min_items_for_code(10, 4) == 4
    assert min_items_for_code(1, 0) == 1
