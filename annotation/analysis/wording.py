"""Pure: a filtering policy and a figure in words, for the campaign report and the release pages alike.

One wording everywhere a reader meets a policy: the report's policy line and list, the release
page and the publish confirmation (``releases.display`` uses these).
"""

from __future__ import annotations

import math

DECIMALS = 3


def number(value: float, decimals: int = DECIMALS) -> str:
    """A float for reading: at most ``decimals`` decimals, no trailing zeros (1.5999999999999999 -> 1.6)."""
    if not math.isfinite(value):
        return "–"
    text = f"{round(value, decimals):.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def policy_words(policy: dict | None) -> list[str]:
    """The filtering policy of a release's scores (annotation.reports.build.policy_parameters) as phrases."""
    if not policy:
        return []
    name = policy.get("name")
    words = ["no annotator left out" if name in (None, "none") else f"policy “{name}”"]
    if policy.get("min_rho") is not None:
        words.append(f"Spearman ρ against the others at least {number(policy['min_rho'])}")
    if policy.get("min_items"):
        words.append(f"at least {policy['min_items']} rated items")
    if policy.get("min_gold_accuracy") is not None:
        words.append(f"at least {number(100 * policy['min_gold_accuracy'], 1)} % of gold items right")
    if name not in (None, "none"):
        question = str(policy.get("question") or "compound_score").replace("_", " ")
        words.append(f"ρ computed on the {question}")
        words.append("workers flagged by the quality checks left out" if policy.get("exclude_flagged") else "")
    return [word for word in words if word]
