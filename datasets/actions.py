"""Writes to the dataset that span rows: each an action with a verb name."""

from __future__ import annotations

from django.utils import timezone

from datasets import vocabulary
from datasets.models import Compound


def choose_gold_synonym(compound: Compound, text: str, user) -> Compound:
    """A curator's pick, recorded with who and when; derivation never overrides it."""
    text = " ".join(text.split())
    if not text:
        raise ValueError("the gold synonym cannot be empty")
    compound.gold_synonym, compound.gold_synonym_source = text, vocabulary.GOLD_FROM_CURATOR
    compound.gold_synonym_set_by, compound.gold_synonym_set_at = user, timezone.now()
    compound.save(update_fields=["gold_synonym", "gold_synonym_source", "gold_synonym_set_by", "gold_synonym_set_at"])
    return compound
