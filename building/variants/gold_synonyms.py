"""Gold synonyms from the annotators' paraphrases: the NC_Syn replacement each compound gets.

The rule (paraphrases grouped across case, accents, number and articles; ties broken by
token-level proposals, then the first proposed; words on the language's offensive list never picked) is
``building.rules.synonyms.gold_synonym``; its reason and the
runners-up are kept in ``Compound.gold_synonym_evidence`` for the curator. A curator's pick
(``datasets.actions.choose_gold_synonym``) or a synonym an imported file gave is never overridden.
"""

from __future__ import annotations

from building.counts.frequency import per_million
from building.rules.synonyms.gold_synonym import pick_gold_synonym
from building.rules.synonyms.offensive import word_list
from datasets import vocabulary
from datasets.models import Compound

FIELDS = ["gold_synonym", "gold_synonym_source", "gold_synonym_evidence"]


def paraphrase_levels(compound: Compound) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """The compound's (text, frequency) paraphrases at type and at token level, in the order they were recorded
    (a file's own order: the gold-synonym rule's last tie-break is the first proposed)."""
    paraphrases = sorted(compound.paraphrases.all(), key=lambda p: p.pk)
    return (
        [(p.text, p.frequency) for p in paraphrases if p.level == vocabulary.TYPE_LEVEL],
        [(p.text, p.frequency) for p in paraphrases if p.level == vocabulary.TOKEN_LEVEL],
    )


def derive_gold_synonyms(collection: str | None = None, language: str | None = None) -> int:
    """Set each compound's gold synonym from its paraphrases, with the reason for the pick.

    A synonym a curator picked, or one the imported file gave, is kept. Returns how many changed.
    """
    compounds = Compound.objects.exclude(
        gold_synonym_source__in=[vocabulary.GOLD_FROM_CURATOR, vocabulary.GOLD_FROM_FILE]
    )
    if collection:
        compounds = compounds.filter(collection__slug=collection)
    if language:
        compounds = compounds.filter(language=language)
    changed = []
    for compound in compounds.prefetch_related("paraphrases"):
        pick = pick_gold_synonym(
            *paraphrase_levels(compound),
            compound.language,
            lambda text, language=compound.language: per_million(text, language),
            word_list(compound.language).blocks,  # never an offensive word, however often proposed
        )
        wanted = (pick.text, vocabulary.GOLD_FROM_PARAPHRASES, pick.as_dict()) if pick else ("", "", {})
        if tuple(getattr(compound, name) for name in FIELDS) != wanted:
            for name, value in zip(FIELDS, wanted, strict=True):
                setattr(compound, name, value)
            changed.append(compound)
    Compound.objects.bulk_update(changed, FIELDS, batch_size=500)
    return len(changed)
