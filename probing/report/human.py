"""Which human score a probe report correlates with, and what a report says when a release has none (pure on snapshots).

Both families of runs (similarity, ``probing.report.build``; likelihood, ``probing.report.likelihood``)
take a compound's human compositionality score by ``HUMAN_RULE``.
"""

from __future__ import annotations

from collections import Counter

from probing.measures.analysis import human_scores

HUMAN_RULE = "the compound's token_score (mean over its sentences) when present, else its type_score"
NO_HUMAN_SCORES = (
    "No human compositionality scores: release {release} has none for its compounds, so there are no "
    "correlations. Add them, publish a new release and probe it again: import human_compositionality_scores.csv "
    "with import_ncimp (--scores FILE, or the file beside the language folders), or import NCTTI (import_nctti), "
    "or build the release from an annotation campaign (create_release --campaigns)."
)
SOME_HUMAN_SCORES_MISSING = (
    "{missing} of {total} compounds have no human compositionality score: the correlations leave them out."
)


def human_comp(snapshot) -> tuple[dict, dict]:
    """The human mapping for correlations, with ``comp`` chosen by HUMAN_RULE, and how often each source served."""
    token = human_scores(snapshot, "token")
    human, sources = {}, Counter()
    for key, info in human_scores(snapshot, "type").items():
        if token[key]["comp"] is not None:
            comp, source = token[key]["comp"], "token_score"
        elif info["comp"] is not None:
            comp, source = info["comp"], "type_score"
        else:
            comp, source = None, "missing"
        human[key] = {**info, "comp": comp, "comp_source": source}
        sources[source] += 1
    return human, dict(sources)


def human_score_note(human_score: dict | None, release: str) -> str:
    """What a report lacks for want of human scores, with how to add them; empty when nothing is missing."""
    sources = (human_score or {}).get("sources") or {}
    missing, total = sources.get("missing", 0), sum(sources.values())
    if not missing:
        return ""
    if missing == total:
        return NO_HUMAN_SCORES.format(release=release)
    return SOME_HUMAN_SCORES_MISSING.format(missing=missing, total=total)


def with_note(human_score: dict | None, release: str) -> dict | None:
    return None if human_score is None else {**human_score, "note": human_score_note(human_score, release)}
