"""How long a study takes, told honestly (pure: no Django).

The campaign's own measured median seconds per item once enough ratings exist, else the
curator's guess, times the items a worker will see (regular items up to the per-worker
maximum, the practice items, and the attention checks among them).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

# Ratings a campaign needs before its measured median replaces the curator's guess.
MIN_MEASURED = 10


@dataclass(frozen=True)
class Pace:
    """Seconds per item, and whether they were measured on this campaign or guessed by its curator."""

    seconds: float
    measured: bool


def pace(measured: Iterable[float | None], guess: float, min_measured: int = MIN_MEASURED) -> Pace:
    """The median of ``measured`` once there are ``min_measured`` values, else ``guess``."""
    values = [float(s) for s in measured if s is not None and s >= 0]
    if len(values) >= min_measured:
        return Pace(statistics.median(values), True)
    return Pace(float(guess), False)


def regular_items_per_worker(regular_items: int, max_per_worker: int | None) -> int:
    return regular_items if max_per_worker is None else min(regular_items, max_per_worker)


def items_per_worker(
    regular_items: int, max_per_worker: int | None, training_items: int, attention_items: int, attention_every: int
) -> int:
    """Everything a worker who goes to the end is shown: practice, regular items and attention checks."""
    regular = regular_items_per_worker(regular_items, max_per_worker)
    return training_items + regular + min(attention_items, regular // attention_every)


def minutes(seconds: float) -> int:
    """Whole minutes, at least one."""
    return max(1, round(seconds / 60))


def duration_text(seconds: float) -> str:
    """'about 20 minutes', 'about 1 minute', or 'less than a minute'."""
    if seconds < 45:
        return "less than a minute"
    count = minutes(seconds)
    return f"about {count} minute{'' if count == 1 else 's'}"


def min_items_for_code(required: int, regular_per_worker: int) -> int:
    """The ratings a worker needs for the completion code: the campaign's minimum, but never more than
    a worker can be given (at least one)."""
    return max(1, min(required, regular_per_worker))
