"""What a curator sets up besides the campaign's own fields: check items, worked examples, quality thresholds.

Writes go through the functions here (views only translate forms); reads for the pages that
show the setup (instructions, dashboard) are here too.
"""

from __future__ import annotations

from annotation.analysis.quality import Thresholds
from annotation.examples import Example, campaign_examples, presented, split_paraphrases
from annotation.models import Campaign, QualityPolicy, WorkedExample
from datasets.models import Compound, Sentence
from datasets.vocabulary import NATURALISTIC

# Quality thresholds.


def campaign_thresholds(campaign: Campaign) -> Thresholds:
    """The campaign's quality thresholds (the defaults when the curator never set them)."""
    policy = QualityPolicy.objects.filter(campaign=campaign).first()
    if policy is None:
        return Thresholds()
    return Thresholds(
        min_median_seconds=policy.min_median_seconds,
        max_same_answer_share=policy.max_same_answer_share,
        max_attention_failures=policy.max_attention_failures,
        min_rho=policy.min_rho,
        min_items=policy.min_items,
        max_skip_share=policy.max_skip_share,
    )


def quality_policy(campaign: Campaign) -> QualityPolicy:
    """The campaign's QualityPolicy row, unsaved with the defaults when it has none."""
    return QualityPolicy.objects.filter(campaign=campaign).first() or QualityPolicy(campaign=campaign)


# Check items: practice (training, with feedback) and attention checks, each with gold answers.


def item_compound_texts(campaign: Campaign) -> set[str]:
    return set(Compound.objects.filter(pk__in=campaign.items.values("compound_id")).values_list("text", flat=True))


def check_targets(campaign: Campaign):
    """What a check item may show: naturalistic sentences (token level) or compounds (type level) of the language."""
    if campaign.level == Campaign.Level.TOKEN:
        return (
            Sentence.objects.filter(compound__language=campaign.language, kind=NATURALISTIC, available=True)
            .exclude(text="")
            .select_related("compound__collection")
            .order_by("compound__text", "compound__collection__slug", "slot", "id")
        )
    return Compound.objects.filter(language=campaign.language).select_related("collection").order_by("text", "id")


# Worked examples.


def example_of(row: WorkedExample) -> Example:
    return Example(
        compound=row.compound,
        sentence=row.sentence,
        head_score=row.head_score,
        modifier_score=row.modifier_score,
        compound_score=row.compound_score,
        head_note=row.head_note,
        modifier_note=row.modifier_note,
        compound_note=row.compound_note,
        paraphrases=split_paraphrases(row.paraphrases),
    )


def instruction_examples(campaign: Campaign) -> list[dict]:
    """The worked examples the instructions show, ready for the template (never about one of the campaign's items)."""
    own = [example_of(row) for row in campaign.worked_examples.all()]
    return [presented(e, campaign.language) for e in campaign_examples(own, item_compound_texts(campaign))]
