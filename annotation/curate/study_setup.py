"""What a curator sets up besides the campaign's own fields: check items, worked examples, quality thresholds.

Writes go through the functions here (views only translate forms); reads for the pages that
show the setup (instructions, dashboard) are here too.
"""

from __future__ import annotations

from annotation.analysis.quality import Thresholds
from annotation.examples import Example, campaign_examples, presented, split_paraphrases
from annotation.models import Campaign, Item, QualityPolicy, WorkedExample
from datasets.formats.spans import fold
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


def item_targets(campaign: Campaign, compound_class: str | None = None) -> list:
    """What ``add_items`` should add: sentences (token level) or compounds (type level) not yet in."""
    compounds = Compound.objects.filter(collection=campaign.collection, language=campaign.language)
    if compound_class:
        compounds = compounds.filter(compositionality_class=compound_class)
    if campaign.level == Campaign.Level.TOKEN:
        taken = Item.objects.filter(campaign=campaign, sentence__isnull=False).values("sentence_id")
        return list(
            Sentence.objects.filter(compound__in=compounds, kind=NATURALISTIC, available=True)
            .exclude(id__in=taken)
            .select_related("compound")
            .order_by("compound__key", "slot", "id")
        )
    taken = Item.objects.filter(campaign=campaign, sentence__isnull=True).values("compound_id")
    return list(compounds.exclude(id__in=taken).order_by("key", "id"))


def pick_candidates(campaign: Campaign, compound_class: str | None = None, query: str = "") -> list:
    """The sentences (token level) or compounds (type level) of the campaign's scope not yet in it, of one class,
    whose compound or sentence holds every word of ``query`` (case and accents aside)."""
    words = [fold(word) for word in query.split()]
    found = []
    for target in item_targets(campaign, compound_class):
        text = target.text if isinstance(target, Compound) else f"{target.compound.text} {target.text}"
        if all(word in fold(text) for word in words):
            found.append(target)
    return found
