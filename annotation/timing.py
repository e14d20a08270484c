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
    return training_items + regular + checks_per_worker(regular, attention_items, attention_every)


def minutes(seconds: float) -> int:
    """Whole minutes, at least one."""
    return max(1, round(seconds / 60))


def duration_text(seconds: float) -> str:
    """'about 20 minutes', 'about 1 minute', or 'less than a minute'."""
    if seconds < 45:
        return "less than a minute"
    count = minutes(seconds)
    return f"about {count} minute{'' if count == 1 else 's'}"


def min_items_for_code(required: int | None, regular_per_worker: int) -> int:
    """The rated items a worker needs for the completion code: every item a worker is given when the
    campaign sets no minimum, else its minimum, but never more than a worker can be given (at least one)."""
    if required is None:
        return max(1, regular_per_worker)
    return max(1, min(required, regular_per_worker))


def skip_cap(max_skip_share: float, regular_per_worker: int) -> int:
    """How many regular items a worker may skip: the campaign's share of the items per worker, rounded down,
    but at least one while the share is above zero (a single unknown expression never screens anyone out)."""
    if max_skip_share <= 0:
        return 0
    return max(1, int(max_skip_share * regular_per_worker))


def checks_per_worker(regular_per_worker: int, attention_items: int, attention_every: int) -> int:
    """Attention checks a worker who goes to the end is shown: one after every ``attention_every`` rated items."""
    return min(attention_items, regular_per_worker // attention_every)


def low_code_minimum(required: int | None, confirmed: bool, low: int) -> str | None:
    """Why a campaign's completion-code minimum needs the curator's confirmation, or None when it does not.

    A code after one or two rated items pays for almost no work; open-ended studies may still want a
    small number, said out loud. Blank (None) is every item a worker is given.
    """
    if required is None or required >= low or confirmed:
        return None
    return (
        f"A completion code after {required} rated item{'s' if required != 1 else ''} pays for very little work. "
        f"Leave it blank (every item a worker is given), set {low} or more, or confirm this number."
    )
