"""The machine-made ratings a release carries when a curator opts in, read from the database.

Every answer (``annotation.models.MachineAnswer``) of the named campaigns' machine annotators to
their regular items, valid or not, whose compound the release holds, becomes a ``MachineRating``
labelled with its model, template and settings. They travel beside the scores and never enter them:
the scores and the agreement come from the campaigns' reports (``releases.collect``), which read
annotators' ratings (``Rating``) alone.
"""

from __future__ import annotations

from collections.abc import Collection

from annotation.models import Item, MachineAnswer
from releases.formats.machine import QUESTIONS, as_float, public_identity
from releases.snapshot import MachineRating

_COLUMNS = (
    "annotator__campaign__slug",
    "annotator__campaign__level",
    "annotator__label",
    "annotator__model_name",
    "annotator__model_kind",
    "annotator__model_identity",
    "annotator__template_name",
    "annotator__template_version",
    "annotator__settings",
    "annotator__sample",
    "item__compound_id",
    "item__compound__language",
    "item__compound__text",
    "item__sentence__kind",
    "item__sentence__slot",
    "valid",
    "error",
    "head_score",
    "modifier_score",
    "compound_score",
    "distributions",
    "paraphrases",
)


def collect_machine_ratings(campaigns: Collection[str], compounds: Collection[int]) -> tuple[MachineRating, ...]:
    """The answers of the machine annotators of ``campaigns`` (slugs) about ``compounds`` (ids), in one query."""
    answers = MachineAnswer.objects.filter(
        annotator__campaign__slug__in=list(campaigns), item__role=Item.Role.REGULAR
    ).values(*_COLUMNS)
    return tuple(_rating(row) for row in answers.iterator(chunk_size=2000) if row["item__compound_id"] in compounds)


def _rating(row: dict) -> MachineRating:
    distributions = row["distributions"] or {}
    sentence = (row["item__sentence__kind"], row["item__sentence__slot"]) if row["item__sentence__kind"] else None
    return MachineRating(
        language=row["item__compound__language"],
        compound=row["item__compound__text"],
        campaign=row["annotator__campaign__slug"],
        level=row["annotator__campaign__level"],
        sentence=sentence,
        annotator=row["annotator__label"],
        model=row["annotator__model_name"],
        model_kind=row["annotator__model_kind"],
        model_identity=public_identity(row["annotator__model_identity"]),
        template=row["annotator__template_name"],
        template_version=row["annotator__template_version"],
        settings=dict(row["annotator__settings"] or {}),
        sample=row["annotator__sample"],
        valid=row["valid"],
        error=row["error"],
        head_score=row["head_score"],
        modifier_score=row["modifier_score"],
        compound_score=row["compound_score"],
        expected=tuple(as_float((distributions.get(q) or {}).get("expected")) for q in QUESTIONS),
        paraphrases=tuple(row["paraphrases"] or ()),
    )
