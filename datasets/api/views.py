"""API of the dataset (compounds, sentences), filtered with plain query parameters: curators only.

The working dataset holds the answers crowd workers are asked for (scores, classes, paraphrases),
so it is not public; published releases are (releases/api.py). Variants and the curators'
decisions on them are building's (building/api.py), which shares the filters defined here.

Each filter is validated (a bad value is a 400 naming the parameter) and documented with
``@extend_schema`` so that the OpenAPI schema lists it.
"""

from __future__ import annotations

from django.db.models import Prefetch, Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import viewsets

from core.permissions import IsCurator
from datasets import vocabulary
from datasets.api import serializers
from datasets.api.params import bool_param, choice_param, id_param, query_param, text_param
from datasets.models import Compound, Paraphrase, Sentence

UNCLASSIFIED = "none"
# Explicit orderings, unique per row so that limit/offset pages neither repeat nor skip rows.
COMPOUND_ORDER = ["collection__slug", "language", "key"]
SENTENCE_ORDER = [f"compound__{field}" for field in COMPOUND_ORDER] + ["kind", "slot"]
CLASS_VALUES = {value: value for value, _ in vocabulary.CLASS_CHOICES} | vocabulary.CLASS_CODES
SENTENCE_KINDS = [kind for kind, _ in vocabulary.SENTENCE_KIND_CHOICES]


def filter_by_compound(queryset, request, path: str):
    """The collection, language and compound filters shared by sentences and variants."""
    if collection := text_param(request, "collection"):
        queryset = queryset.filter(**{f"{path}__collection__slug": collection})
    if language := text_param(request, "language"):
        queryset = queryset.filter(**{f"{path}__language": language})
    if (compound := id_param(request, "compound")) is not None:
        queryset = queryset.filter(**{f"{path}_id": compound})
    return queryset


COLLECTION = query_param("collection", "Slug of the collection (namespace) of the compound, e.g. default or demo.")
LANGUAGE = query_param("language", "ISO 639 code of the compound's language, e.g. en or pt.")
COMPOUND = query_param("compound", "Id of the compound.", OpenApiTypes.INT)
SENTENCE_KIND = query_param("kind", "Sentence kind.", enum=SENTENCE_KINDS)


@extend_schema_view(
    list=extend_schema(
        parameters=[
            COLLECTION,
            LANGUAGE,
            query_param(
                "class",
                "Compositionality class: idiomatic, partly_compositional or compositional "
                "(or the codes NC, I, PC, C); none for unclassified compounds.",
                enum=[*CLASS_VALUES, UNCLASSIFIED],
            ),
            query_param("q", "Text search in the compound (case-insensitive substring)."),
        ]
    )
)
class CompoundViewSet(viewsets.ReadOnlyModelViewSet):
    """Noun compounds with their sentence counts; the detail nests sentences and paraphrases (curators only)."""

    permission_classes = [IsCurator]

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
        queryset = queryset.prefetch_related(Prefetch("sentences", queryset=sentence_ids))
        if collection := text_param(self.request, "collection"):
            queryset = queryset.filter(collection__slug=collection)
        if language := text_param(self.request, "language"):
            queryset = queryset.filter(language=language)
        compound_class = choice_param(self.request, "class", [*CLASS_VALUES, UNCLASSIFIED])
        if compound_class == UNCLASSIFIED:
            queryset = queryset.filter(compositionality_class__isnull=True)
        elif compound_class:
            queryset = queryset.filter(compositionality_class=CLASS_VALUES[compound_class])
        if q := text_param(self.request, "q"):
            queryset = queryset.filter(Q(key__contains=vocabulary.compound_key(q)) | Q(text__icontains=q))
        return queryset


@extend_schema_view(
    list=extend_schema(
        parameters=[
            COLLECTION,
            LANGUAGE,
            COMPOUND,
            SENTENCE_KIND,
            query_param(
                "available",
                "true: sentences with text; false: sentences known only by a corpus pointer.",
                OpenApiTypes.BOOL,
            ),
        ]
    )
)
class SentenceViewSet(viewsets.ReadOnlyModelViewSet):
    """Sentences in which a compound occurs, with the character span of the occurrence (curators only)."""

    permission_classes = [IsCurator]

    serializer_class = serializers.SentenceSerializer

    def get_queryset(self):
        queryset = Sentence.objects.select_related("compound__collection").order_by(*SENTENCE_ORDER)
        if self.action != "list":
            return queryset
        queryset = filter_by_compound(queryset, self.request, "compound")
        if kind := choice_param(self.request, "kind", SENTENCE_KINDS):
            queryset = queryset.filter(kind=kind)
        if (available := bool_param(self.request, "available")) is not None:
            queryset = queryset.filter(available=available)
        return queryset
