"""Agreement by scale type: every measure of a question in one table, each named, explained and referenced.

Pure module (no Django). A campaign's 0-5 answers are read as an interval scale (interval alpha, ICC), as an
ordinal one (ordinal alpha, weighted kappa, Spearman), and the reader picks the measure of their field, as
Potato's agreement page does. The figures come from the modules that compute them (``agreement``,
``scales``, ``reliability``); this module only lays them side by side, under ``scales.MEASURES``' names.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from annotation.analysis.scales import MEASURES

SCALE_OF = {
    "alpha_interval": "interval",
    "icc2_1": "interval",
    "icc2_k": "interval",
    "alpha_ordinal": "ordinal",
    "kappa_quadratic": "ordinal",
    "spearman_loo": "ordinal",
}
ORDER = tuple(SCALE_OF)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def spearman_row(question: str, reliability_rows: Iterable[Mapping]) -> dict:
    """The workers' Spearman rho against the others, summarised: the median, the range as low and high."""
    rhos = [rho for row in reliability_rows if (rho := _number(row.get("rho"))) is not None]
    return {
        "question": question,
        "measure": "spearman_loo",
        "value": _median(rhos),
        "low": min(rhos) if rhos else None,
        "high": max(rhos) if rhos else None,
        "n_items": None,
        "n_annotators": len(rhos),
        "note": f"median of {len(rhos)} workers (low, high: the range)" if rhos else "no worker shares 3 items",
    }


def table(
    alpha_rows: Iterable[Mapping],
    scale_rows: Iterable[Mapping],
    reliability_rows: Iterable[Mapping] = (),
    reliability_question: str = "compound_score",
) -> list[dict]:
    """Rows {question, measure, label, scale, explanation, reference, value, low, high, n_items, n_annotators, note}.

    ``alpha_rows``: ``agreement.agreement_table``'s rows (the all-annotators procedure is taken);
    ``scale_rows``: ``scales.scale_agreement``'s; ``reliability_rows``: ``reliability.annotator_reliability``'s,
    computed on ``reliability_question``. Questions in the order they first appear.
    """
    found: dict[tuple[str, str], dict] = {}
    for row in alpha_rows:
        if row.get("procedure", "full") == "full" and row.get("level") in ("interval", "ordinal"):
            found[(row["question"], f"alpha_{row['level']}")] = {
                "question": row["question"],
                "value": row.get("alpha"),
                **{key: row.get(key) for key in ("low", "high", "n_items", "n_annotators")},
                "note": row.get("interval_note", ""),
            }
    for row in scale_rows:
        found[(row["question"], row["measure"])] = dict(row)
    reliability_rows = list(reliability_rows)
    if reliability_rows:
        found[(reliability_question, "spearman_loo")] = spearman_row(reliability_question, reliability_rows)
    questions = list(dict.fromkeys(question for question, _ in found))
    rows = []
    for question in questions:
        for measure in ORDER:
            if (row := found.get((question, measure))) is None:
                continue
            label, explanation, reference = MEASURES[measure]
            rows.append(
                {
                    **{key: row.get(key) for key in ("question", "value", "low", "high", "n_items", "n_annotators")},
                    "measure": measure,
                    "label": label,
                    "scale": SCALE_OF[measure],
                    "explanation": explanation,
                    "reference": reference,
                    "value": _number(row.get("value")),
                    "low": _number(row.get("low")),
                    "high": _number(row.get("high")),
                    "note": row.get("note") or "",
                }
            )
    return rows
