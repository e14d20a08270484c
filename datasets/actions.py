"""Writes to the dataset that span rows: each an action with a verb name."""

from __future__ import annotations

from django.db import transaction

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
        changed.append(compound)
    with transaction.atomic():
        Compound.objects.bulk_update(
            changed, ["frequency", "modifier_frequency", "head_frequency", "frequency_source"], batch_size=500
        )
    return len(changed)
