"""A campaign report's machine annotators: each model beside the people, read from the database.

For each ``MachineAnnotator`` of the campaign: who it is (model, identity, template and its text,
settings, sample), what it answered (items, invalid answers with a few of their raw texts, tokens,
the mean entropy of its digit distributions where it gave them), and the comparison with the
people (``annotation.analysis.machine``) against the ratings the report keeps under its filter
policy. At token level the type/token analysis uses the type-level campaign of the same collection
and language where there is one: its human means, and the same model's answers there (same model,
template, settings and sample), else the compounds' imported type scores for the people.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Avg, Count, FloatField, Q, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from annotation.analysis.machine import machine_comparison
from annotation.models import Campaign, Item, MachineAnnotator, MachineAnswer, SuggestedParaphrase
from datasets.models import Compound

if TYPE_CHECKING:
    import pandas as pd

INVALID_SHOWN = 3  # raw texts of invalid answers shown per model
COLUMNS = ["item", "annotator", "compound", "compound_score", "head_score", "modifier_score"]


def machine_answers(annotator: MachineAnnotator) -> tuple[pd.DataFrame, list[tuple]]:
    """A machine annotator's valid answers to regular items, in ``campaign_ratings``' shape, and its paraphrases
    as (item, compound, text): one read of its rows."""
    import pandas as pd

    rows = list(
        MachineAnswer.objects.filter(annotator=annotator, valid=True, item__role=Item.Role.REGULAR).values_list(
            *("item_id", "annotator_id", "item__compound_id", "compound_score", "head_score", "modifier_score"),
            "paraphrases",
        )
    )
    frame = pd.DataFrame([row[:-1] for row in rows], columns=COLUMNS).astype(
        {"compound_score": float, "head_score": float, "modifier_score": float}
    )
    return frame, [(row[0], row[2], text) for row in rows for text in row[-1] or []]


def _sibling_type_campaign(campaign: Campaign) -> Campaign | None:
    if campaign.level != Campaign.Level.TOKEN:
        return None
    return (
        Campaign.objects.filter(collection=campaign.collection, language=campaign.language, level=Campaign.Level.TYPE)
        .order_by("pk")
        .first()
    )


def _type_scores(type_campaign: Campaign | None, compounds, annotator: MachineAnnotator) -> tuple[dict, dict | None]:
    """The people's and the model's type-level compound scores: a type campaign's, else the imported ones."""
    human = dict(Compound.objects.filter(pk__in=compounds, type_score__isnull=False).values_list("pk", "type_score"))
    if type_campaign is None:
        return human, None
    rated = (
        type_campaign.items.filter(role=Item.Role.REGULAR, ratings__isnull=False)
        .values("compound_id")
        .annotate(mean=Avg("ratings__compound_score"))
    )
    human |= {row["compound_id"]: row["mean"] for row in rated}
    twin = MachineAnnotator.objects.filter(
        campaign=type_campaign,
        model_name=annotator.model_name,
        template_name=annotator.template_name,
        sample=annotator.sample,
        settings=annotator.settings,
    ).first()
    if twin is None:
        return human, None
    machine = dict(
        MachineAnswer.objects.filter(annotator=twin, valid=True).values_list("item__compound_id", "compound_score")
    )
    return human, {k: float(v) for k, v in machine.items()}


def _answer_counts(annotator: MachineAnnotator) -> dict:
    totals = MachineAnswer.objects.filter(annotator=annotator).aggregate(
        answered=Count("pk"),
        invalid=Count("pk", filter=Q(valid=False)),
        cached=Count("pk", filter=Q(cached=True)),
        prompt_tokens=Sum("prompt_tokens"),
        completion_tokens=Sum("completion_tokens"),
    )
    invalid = MachineAnswer.objects.filter(annotator=annotator, valid=False).order_by("item_id")
    examples = [
        {"item": item, "error": error, "raw_text": raw[:500]}
        for item, error, raw in invalid.values_list("item_id", "error", "raw_text")[:INVALID_SHOWN]
    ]
    # Averaged by the database: decoding every answer's distributions here cost more than the comparison.
    spread = MachineAnswer.objects.filter(annotator=annotator, valid=True).aggregate(
        with_distributions=Count("pk", filter=Q(distributions__has_key="compound")),
        **{q: Avg(Cast(KT(f"distributions__{q}__entropy"), FloatField())) for q in ("head", "modifier", "compound")},
    )
    means = [spread[q] for q in ("head", "modifier", "compound") if spread[q] is not None]
    return {
        **{k: int(v or 0) for k, v in totals.items()},
        "invalid_examples": examples,
        "distributions": spread["with_distributions"],
        "mean_entropy_bits": round(sum(means) / len(means), 4) if means else None,
    }


def machine_section(campaign: Campaign, kept_ratings: pd.DataFrame, compounds: dict[int, dict]) -> list[dict]:
    """One entry per machine annotator of ``campaign``: identity, answers and the comparison with ``kept_ratings``
    (``compounds``: the report's text and class of each compound id)."""
    classes = {pk: info.get("class") for pk, info in compounds.items()}
    annotators = list(
        MachineAnnotator.objects.filter(campaign=campaign).order_by("model_name", "template_name", "sample", "pk")
    )
    if not annotators:
        return []
    human_paraphrases = list(
        SuggestedParaphrase.objects.filter(
            rating__item__campaign=campaign,
            rating__item__role=Item.Role.REGULAR,
            rating__annotator_id__in=list(kept_ratings["annotator"].unique()) if not kept_ratings.empty else [],
        ).values_list("rating__item_id", "rating__item__compound_id", "text")
    )
    type_campaign = _sibling_type_campaign(campaign)
    section = []
    for annotator in annotators:
        frame, machine_paraphrases = machine_answers(annotator)
        rated = set(frame["compound"]) | set(kept_ratings["compound"] if not kept_ratings.empty else [])
        human_types, machine_types = _type_scores(type_campaign, rated, annotator)
        comparison = (
            machine_comparison(
                kept_ratings,
                frame,
                classes,
                human_paraphrases,
                machine_paraphrases,
                level=campaign.level,
                human_type_scores=human_types,
                machine_type_scores=machine_types,
            )
            if not frame.empty and not kept_ratings.empty
            else None
        )
        section.append(
            {
                "id": annotator.pk,
                "label": annotator.label,
                "origin": "machine",
                "model": annotator.model_name,
                "kind": annotator.model_kind,
                "identity": annotator.model_identity,
                "template": {
                    "name": annotator.template_name,
                    "version": annotator.template_version,
                    "text": annotator.template_text,
                },
                "settings": annotator.settings,
                "sample": annotator.sample,
                "answers": _answer_counts(annotator),
                "type_campaign": type_campaign.slug
                if type_campaign is not None and machine_types is not None
                else None,
                "comparison": comparison,
                "points": [
                    point
                    | {
                        "class": classes.get(point["compound"]),
                        "text": compounds.get(point["compound"], {}).get("text"),
                    }
                    for point in (comparison or {}).get("points", [])
                ],
            }
        )
    return section
