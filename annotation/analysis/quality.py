"""Quality signals of crowd workers, and the flags a campaign's thresholds raise (pure: no Django).

Per worker: the median seconds per item (speeders), the share of items answered with the
worker's most common answer triple (straight-lining; 1.0 is zero variance), the attention checks
failed (a skipped check is failed), Spearman's rho against the mean of the others
(``reliability.annotator_reliability``), and the share of items skipped ("I don't know this
expression": a few are honest, many are a way to reach the end without rating).

Defaults follow Prolific's guidance for researchers: a submission may be rejected for
"exceptionally fast" completion, for failing attention checks (more than one in a study of five
minutes or more) and for clear low effort; a low agreement with the others is a reason to leave
the ratings out of the analyses (Garcia et al. 2021: rho < 0.2), not to withhold pay.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from annotation.analysis.reliability import annotator_reliability

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

ANSWERS = ("head_score", "modifier_score", "compound_score")
SPEEDER = "speeder"
STRAIGHT_LINING = "straight-lining"
ATTENTION_FAILED = "attention checks failed"
LOW_AGREEMENT = "low agreement"
SKIPPING = "skipped often"
SIGNALS = (SPEEDER, STRAIGHT_LINING, ATTENTION_FAILED, LOW_AGREEMENT, SKIPPING)


@dataclass(frozen=True)
class Thresholds:
    """When a worker is flagged; None turns a signal off."""

    min_median_seconds: float | None = 3.0
    max_same_answer_share: float | None = 0.8
    max_attention_failures: int | None = 1
    min_rho: float | None = 0.2
    # Straight-lining and agreement say little about a handful of items.
    min_items: int = 10
    max_skip_share: float | None = 0.1


@dataclass(frozen=True)
class Signals:
    """What a worker's answers show, whatever the thresholds."""

    annotator: Hashable
    n_items: int = 0
    median_seconds: float | None = None
    same_answer_share: float | None = None
    modal_answers: tuple[int, int, int] | None = None
    attention_checks: int = 0
    attention_failures: int = 0
    rho: float | None = None
    n_shared: int = 0
    skipped: int = 0

    @property
    def skip_share(self) -> float | None:
        """Skipped regular items among those rated or skipped (None before any)."""
        seen = self.n_items + self.skipped
        return self.skipped / seen if seen else None


@dataclass(frozen=True)
class Flag:
    """One reason to distrust a worker: the signal's name and the numbers behind it."""

    name: str
    reason: str

    def __str__(self) -> str:
        return f"{self.name} ({self.reason})"


def median_seconds(seconds: pd.Series) -> float | None:
    """The median of the known times (None without any)."""
    import pandas as pd

    values = pd.to_numeric(seconds, errors="coerce").dropna()
    return float(values.median()) if len(values) else None


def same_answers(answers: pd.DataFrame) -> tuple[float | None, tuple[int, int, int] | None]:
    """The share of rows equal to the most common answer triple, and that triple (None, None without rows)."""
    triples = answers[list(ANSWERS)].dropna()
    if triples.empty:
        return None, None
    counts = triples.astype(int).value_counts(sort=False)
    # Ties between triples: the smallest one, so the answer never depends on row order.
    top = counts.max()
    modal = min(tuple(int(x) for x in key) for key, n in counts.items() if n == top)
    return float(top / len(triples)), modal


def _per_annotator(ratings: pd.DataFrame) -> pd.DataFrame:
    """Per annotator, in order of first appearance: items, median seconds, same-answer share and modal triple.

    ``median_seconds`` and ``same_answers`` of each annotator's rows, computed for all annotators in a few
    grouped passes (a loop over 10,000 annotators' frames took minutes).
    """
    import pandas as pd

    order = pd.unique(ratings["annotator"])
    grouped = ratings.groupby("annotator", sort=False)
    out = pd.DataFrame({"n_items": grouped["item"].nunique()}).reindex(order)
    if "seconds" in ratings:
        seconds = pd.to_numeric(ratings["seconds"], errors="coerce")
        out["seconds"] = seconds.groupby(ratings["annotator"], sort=False).median().reindex(order)
        out["seconds"] = out["seconds"].astype(object).where(out["seconds"].notna(), None)
    else:
        out["seconds"] = None
    answered = ratings[["annotator", *ANSWERS]].dropna(subset=list(ANSWERS))
    answered = answered.astype({a: int for a in ANSWERS})
    # Sorted by (annotator, triple): an annotator's first triple with the top count is the smallest of the ties.
    sizes = answered.groupby(["annotator", *ANSWERS], sort=True).size().rename("n").reset_index()
    sizes["total"] = sizes.groupby("annotator")["n"].transform("sum")
    sizes["top"] = sizes.groupby("annotator")["n"].transform("max")
    modal = sizes[sizes["n"] == sizes["top"]].groupby("annotator").head(1).set_index("annotator")
    out["share"] = (modal["top"] / modal["total"]).reindex(order)
    triples = [tuple(int(x) for x in row) for row in modal[list(ANSWERS)].itertuples(index=False, name=None)]
    out["modal"] = pd.Series(triples, index=modal.index, dtype=object).reindex(order)
    out["modal"] = out["modal"].where(out["modal"].notna(), None)
    return out[["n_items", "seconds", "share", "modal"]]


def worker_signals(
    ratings: pd.DataFrame,
    attention: pd.DataFrame | None = None,
    question: str = "compound_score",
    skipped: Mapping[Hashable, int] | None = None,
) -> dict[Hashable, Signals]:
    """Signals per annotator.

    ``ratings``: one row per rating of a regular item (``item``, ``annotator``, the three answers,
    optionally ``seconds``); ``attention``: one row per answered attention check (``annotator``,
    ``correct``; a skipped check is a row with ``correct`` False); ``skipped``: regular items each
    annotator skipped. Annotators found in any of them get a row.
    """
    result: dict[Hashable, Signals] = {}
    if not ratings.empty:
        table = annotator_reliability(ratings, question)
        reliability = {row.annotator: row for row in table.itertuples(index=False)}
        per_annotator = _per_annotator(ratings)
        for annotator, n_items, seconds, share, modal in per_annotator.itertuples(index=True, name=None):
            row = reliability.get(annotator)
            rho = None if row is None or np.isnan(row.rho) else float(row.rho)
            result[annotator] = Signals(
                annotator=annotator,
                n_items=int(n_items),
                median_seconds=None if seconds is None or np.isnan(seconds) else float(seconds),
                same_answer_share=None if share is None or np.isnan(share) else float(share),
                modal_answers=modal,
                rho=rho,
                n_shared=int(row.n_shared) if row is not None else 0,
            )
    if attention is not None and not attention.empty:
        for annotator, own in attention.groupby("annotator", sort=False):
            base = result.get(annotator, Signals(annotator=annotator))
            failures = int((~own["correct"].astype(bool)).sum())
            result[annotator] = replace(base, attention_checks=len(own), attention_failures=failures)
    for annotator, count in (skipped or {}).items():
        if count:
            result[annotator] = replace(result.get(annotator, Signals(annotator=annotator)), skipped=int(count))
    return result


def flags(signals: Signals, thresholds: Thresholds) -> list[Flag]:
    """The flags ``thresholds`` raise on ``signals``, in the order of ``SIGNALS``."""
    raised = []
    t = thresholds
    if t.min_median_seconds is not None and signals.median_seconds is not None:
        if signals.median_seconds < t.min_median_seconds:
            raised.append(Flag(SPEEDER, f"median {signals.median_seconds:.1f} s per item < {t.min_median_seconds:g} s"))
    if (
        t.max_same_answer_share is not None
        and signals.same_answer_share is not None
        and signals.n_items >= t.min_items
        and signals.same_answer_share >= t.max_same_answer_share
    ):
        same = round(signals.same_answer_share * signals.n_items)
        answers = "/".join(str(a) for a in signals.modal_answers or ())
        raised.append(
            Flag(
                STRAIGHT_LINING,
                f"{same} of {signals.n_items} items answered {answers} "
                f"({signals.same_answer_share:.0%} ≥ {t.max_same_answer_share:.0%})",
            )
        )
    if t.max_attention_failures is not None and signals.attention_failures > t.max_attention_failures:
        raised.append(
            Flag(
                ATTENTION_FAILED,
                f"{signals.attention_failures} of {signals.attention_checks} failed "
                f"(more than {t.max_attention_failures})",
            )
        )
    if (
        t.min_rho is not None
        and signals.rho is not None
        and signals.n_shared >= t.min_items
        and signals.rho < t.min_rho
    ):
        raised.append(Flag(LOW_AGREEMENT, f"rho {signals.rho:.2f} with the others < {t.min_rho:g}"))
    share = signals.skip_share
    if t.max_skip_share is not None and share is not None and share > t.max_skip_share:
        seen = signals.n_items + signals.skipped
        raised.append(
            Flag(SKIPPING, f"{signals.skipped} of {seen} items skipped ({share:.0%} > {t.max_skip_share:.0%})")
        )
    return raised
