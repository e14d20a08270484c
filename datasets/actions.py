"""Writes to the dataset that span rows: each an action with a verb name."""

from __future__ import annotations

from collections import Counter

from django.db import transaction
from django.utils import timezone

from annotation.analysis.paraphrases import gold_synonym, normalise
from datasets import vocabulary as v
from datasets.frequency import SOURCE, compound_frequencies
from datasets.models import Compound


def fill_frequencies(collection: str, language: str, overwrite: bool = False) -> int:
    """Fill compound/modifier/head frequencies from wordfreq; returns how many compounds changed."""
    compounds = Compound.objects.filter(collection__slug=collection, language=language)
    if not overwrite:
        compounds = compounds.filter(frequency__isnull=True)
    changed = []
    for compound in compounds.only("id", "text", "modifier", "head", "language"):
        f = compound_frequencies(compound.text, compound.modifier, compound.head, compound.language)
        compound.frequency, compound.modifier_frequency, compound.head_frequency = f.compound, f.modifier, f.head
        compound.frequency_source = SOURCE
        # PMI under wordfreq's independence estimate is 0 by construction: it says nothing, so none is kept.
        compound.pmi = compound.ppmi = None
        changed.append(compound)
    with transaction.atomic():
        Compound.objects.bulk_update(
            changed,
            ["frequency", "modifier_frequency", "head_frequency", "frequency_source", "pmi", "ppmi"],
            batch_size=500,
        )
    return len(changed)


def derive_gold_synonyms(collection: str | None = None, language: str | None = None) -> int:
    """Set each compound's gold synonym to its most frequent type-level paraphrase.

    A synonym a curator picked, or one the imported file gave, is kept. Returns how many changed.
    """
    compounds = Compound.objects.exclude(gold_synonym_source__in=[v.GOLD_FROM_CURATOR, v.GOLD_FROM_FILE])
    if collection:
        compounds = compounds.filter(collection__slug=collection)
    if language:
        compounds = compounds.filter(language=language)
    changed = []
    for compound in compounds.prefetch_related("paraphrases"):
        frequencies: Counter = Counter()
        for paraphrase in compound.paraphrases.all():
            if paraphrase.level == v.TYPE_LEVEL:
                frequencies[normalise(paraphrase.text)] += paraphrase.frequency
        best = gold_synonym(frequencies) or ""
        if (compound.gold_synonym, compound.gold_synonym_source) != (best, v.GOLD_FROM_PARAPHRASES if best else ""):
            compound.gold_synonym = best
            compound.gold_synonym_source = v.GOLD_FROM_PARAPHRASES if best else ""
            changed.append(compound)
    Compound.objects.bulk_update(changed, ["gold_synonym", "gold_synonym_source"], batch_size=500)
    return len(changed)


def choose_gold_synonym(compound: Compound, text: str, user) -> Compound:
    """A curator's pick, recorded with who and when; derivation never overrides it."""
    text = " ".join(text.split())
    if not text:
        raise ValueError("the gold synonym cannot be empty")
    compound.gold_synonym, compound.gold_synonym_source = text, v.GOLD_FROM_CURATOR
    compound.gold_synonym_set_by, compound.gold_synonym_set_at = user, timezone.now()
    compound.save(update_fields=["gold_synonym", "gold_synonym_source", "gold_synonym_set_by", "gold_synonym_set_at"])
    return compound
