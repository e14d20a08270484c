"""Multiple-choice metrics as lm-evaluation-harness defines them (pure: no Django, no torch).

An item has a context, choices and the index of the right one; each choice has the model's
log-likelihood of its text after the context (the continuation: the target delimiter, " ", then
the choice) and, for mutual information, after an empty context. The harness's ``multiple_choice``
output type (``lm_eval/api/task.py``, ``process_results``) scores an item as:

- ``acc``: the choice with the highest log-likelihood is the right one;
- ``acc_norm``: the same after dividing each log-likelihood by the choice's length in characters
  (the choice as written, without the delimiter);
- ``acc_bytes``: dividing by the choice's length in UTF-8 bytes instead;
- ``acc_mutual_info``: the highest log-likelihood less that of the choice after the empty context.

Ties go to the first choice (``numpy.argmax``), as in the harness. A metric over items is the mean.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

METRICS = ("acc", "acc_norm", "acc_bytes", "acc_mutual_info")


@dataclass(frozen=True)
class ScoredItem:
    """One multiple-choice item as scored: the choices, their log-likelihoods, the right index."""

    choices: tuple[str, ...]  # as written (the continuation scored is the delimiter and the choice)
    loglikelihoods: tuple[float, ...]
    gold: int
    unconditional: tuple[float, ...] | None = None  # after the empty context, for acc_mutual_info

    def __post_init__(self) -> None:
        if len(self.choices) != len(self.loglikelihoods) or not self.choices:
            raise ValueError("an item needs one log-likelihood per choice, and at least one choice")
        if not 0 <= self.gold < len(self.choices):
            raise ValueError(f"gold index {self.gold} is not one of the {len(self.choices)} choices")
        if self.unconditional is not None and len(self.unconditional) != len(self.choices):
            raise ValueError("the unconditional log-likelihoods need one value per choice")


def argmax(values: Sequence[float]) -> int:
    """The index of the largest value, the first on ties (numpy's rule, which the harness uses)."""
    best = 0
    for index, value in enumerate(values):
        if value > values[best]:
            best = index
    return best


def item_metrics(item: ScoredItem) -> dict[str, int | None]:
    """1 or 0 per metric for one item (``acc_mutual_info`` is None without the unconditional scores)."""
    lls = item.loglikelihoods
    chars = [ll / max(len(text), 1) for ll, text in zip(lls, item.choices, strict=True)]
    utf8 = [ll / max(len(text.encode("utf-8")), 1) for ll, text in zip(lls, item.choices, strict=True)]
    found: dict[str, int | None] = {
        "acc": int(argmax(lls) == item.gold),
        "acc_norm": int(argmax(chars) == item.gold),
        "acc_bytes": int(argmax(utf8) == item.gold),
        "acc_mutual_info": None,
    }
    if item.unconditional is not None:
        informative = [ll - base for ll, base in zip(lls, item.unconditional, strict=True)]
        found["acc_mutual_info"] = int(argmax(informative) == item.gold)
    return found


def mean_metrics(items: Sequence[ScoredItem]) -> dict[str, float | None]:
    """Each metric's mean over the items (None for a metric no item has, or for no items)."""
    per_item = [item_metrics(item) for item in items]
    means: dict[str, float | None] = {}
    for metric in METRICS:
        values = [found[metric] for found in per_item if found[metric] is not None]
        means[metric] = sum(values) / len(values) if values else None
    return means
