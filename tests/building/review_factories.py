"""Personas and a compound ready for review, shared by the curation tests.

alice and carol are curators, bob annotates (no curation rights). The compound "eager beaver" has one
naturalistic and one neutral sentence with variants in each state a curator meets.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from core.permissions import CURATORS_GROUP
from datasets import vocabulary
from datasets.models import Compound, Variant
from tests.datasets.factories import make_compound, make_sentence, make_variant

AGREEMENT_FLAG = "agreement: 'an' before 'keen person' may need 'a'"


def make_curator(name: str = "alice"):
    user = get_user_model().objects.create_user(name, password="pw")
    user.groups.add(Group.objects.get_or_create(name=CURATORS_GROUP)[0])
    return user


def make_annotator(name: str = "bob"):
    return get_user_model().objects.create_user(name, password="pw")


def make_isolated_variant(sentence, text: str = "enthusiast", kind: str = vocabulary.SYNONYM_NC, **fields) -> Variant:
    defaults = {"rank": 1, "span_start": 0, "span_end": len(text), "span_source": vocabulary.SPAN_FROM_DIFF}
    return Variant.objects.create(sentence=sentence, kind=kind, isolated=True, text=text, **(defaults | fields))


def make_review_compound(text: str = "eager beaver", **fields) -> dict:
    """A compound whose variants are pending, flagged, approved and rejected, by name."""
    compound: Compound = make_compound(text, **fields)
    natural = make_sentence(compound, f"Carol is such an {text} that she starts at six.")
    neutral = make_sentence(compound, f"This is an {text}.", kind=vocabulary.NEUTRAL_SHORT, slot=1)
    return {
        "compound": compound,
        "natural": natural,
        "neutral": neutral,
        "synonym": make_variant(natural, "enthusiast"),
        "flagged": make_variant(natural, "keen person", kind=vocabulary.SYNONYM_BOTH, flags=[AGREEMENT_FLAG]),
        "head": make_variant(natural, "beaver", kind=vocabulary.HEAD_ONLY),
        "approved": make_variant(natural, "eager", kind=vocabulary.MODIFIER_ONLY, status=vocabulary.APPROVED),
        "rejected": make_variant(natural, "olive oil", kind=vocabulary.RANDOM_FREQ, status=vocabulary.REJECTED),
        "neutral_synonym": make_variant(neutral, "enthusiast"),
        "isolated": make_isolated_variant(natural),
    }
