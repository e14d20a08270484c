"""API of the dataset (compounds, sentences), filtered with plain query parameters: curators only.

The working dataset holds the answers crowd workers are asked for (scores, classes, paraphrases),
so it is not public; published releases are (releases/api.py). Variants and the curators'
decisions on them are building's (building/api.py), which shares the compound scope of the filters
(datasets/api/filters.py: a bad value is a 400 naming the parameter, and the schema lists each one).
"""

from __future__ import annotations

from django.db.models import Prefetch
from rest_framework import viewsets

from core.filters import ListFilterBackend
from core.permissions import IsCurator
from datasets.api import serializers
from datasets.api.filters import CompoundFilterSet, SentenceFilterSet
from datasets.models import Compound, Paraphrase, Sentence

# Explicit orderings, unique per row so that limit/offset pages neither repeat nor skip rows.
COMPOUND_ORDER = ["collection__slug", "language", "key"]
SENTENCE_ORDER = [f"compound__{field}" for field in COMPOUND_ORDER] + ["kind", "slot"]


class CompoundViewSet(viewsets.ReadOnlyModelViewSet):
    """Noun compounds with their sentence counts; the detail nests sentences and paraphrases (curators only)."""

    permission_classes = [IsCurator]
    filter_backends = [ListFilterBackend]
    filterset_class = CompoundFilterSet

    def get_serializer_class(self):
        if self.action == "retrieve":
            return serializers.CompoundDetailSerializer
        return serializers.CompoundSerializer

    def get_queryset(self):
        queryset = Compound.objects.with_counts().select_related("collection").order_by(*COMPOUND_ORDER)
        if self.action == "retrieve":
            return queryset.prefetch_related(
                # Each prefetched sentence's .compound is the compound itself: no join needed.
                Prefetch("sentences", queryset=Sentence.objects.order_by("kind", "slot")),
                Prefetch(
                    "paraphrases",
                    queryset=Paraphrase.objects.order_by("-level", "sentence_id", "-frequency", "text"),
                ),
            )
        sentence_ids = Sentence.objects.only("id", "compound_id").order_by("kind", "slot")
        return queryset.prefetch_related(Prefetch("sentences", queryset=sentence_ids))


class SentenceViewSet(viewsets.ReadOnlyModelViewSet):
    """Sentences in which a compound occurs, with the character span of the occurrence (curators only)."""

    permission_classes = [IsCurator]
    serializer_class = serializers.SentenceSerializer
    filter_backends = [ListFilterBackend]
    filterset_class = SentenceFilterSet

    def get_queryset(self):
        return Sentence.objects.select_related("compound__collection").order_by(*SENTENCE_ORDER)
