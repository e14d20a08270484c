"""Read-only API of the dataset, filtered with plain query parameters.

Each filter is validated (a bad value is a 400 naming the parameter) and documented with
``@extend_schema`` so that the OpenAPI schema lists it.
"""

from __future__ import annotations

from django.db.models import Prefetch, Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets
from rest_framework.exceptions import ValidationError

from datasets import vocabulary as v
from datasets.api import serializers
from datasets.models import Compound, Paraphrase, Sentence, Variant

UNCLASSIFIED = "none"
# Explicit orderings, unique per row so that limit/offset pages neither repeat nor skip rows.
COMPOUND_ORDER = ["collection__slug", "language", "key"]
SENTENCE_ORDER = [f"compound__{field}" for field in COMPOUND_ORDER] + ["kind", "slot"]
VARIANT_ORDER = [f"sentence__{field}" for field in SENTENCE_ORDER] + ["kind", "rank", "isolated"]
CLASS_VALUES = {value: value for value, _ in v.CLASS_CHOICES} | v.CLASS_CODES
BOOLEAN_WORDS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def _text_param(request, name: str) -> str:
    return request.query_params.get(name, "").strip()


def _choice_param(request, name: str, choices) -> str:
    value = _text_param(request, name)
    allowed = [choice for choice, _ in choices]
    if value and value not in allowed:
        raise ValidationError({name: f"{value!r} is not one of: {', '.join(allowed)}."})
    return value


def _id_param(request, name: str) -> int | None:
    value = _text_param(request, name)
    if not value:
        return None
    if not value.isdigit():
        raise ValidationError({name: f"{value!r} is not an id (a positive whole number)."})
    return int(value)


def _bool_param(request, name: str) -> bool | None:
    value = _text_param(request, name).lower()
    if not value:
        return None
    if value not in BOOLEAN_WORDS:
        raise ValidationError({name: f"{value!r} is not a boolean: use true or false."})
    return BOOLEAN_WORDS[value]


def _param(name: str, description: str, type=OpenApiTypes.STR, enum=None) -> OpenApiParameter:
    """An optional query parameter, for ``@extend_schema(parameters=...)``."""
    return OpenApiParameter(
        name,
        type,
        OpenApiParameter.QUERY,
        required=False,
        description=description,
        enum=enum,
    )


def _filter_by_compound(queryset, request, path: str):
    """The collection, language and compound filters shared by sentences and variants."""
    if collection := _text_param(request, "collection"):
        queryset = queryset.filter(**{f"{path}__collection__slug": collection})
    if language := _text_param(request, "language"):
        queryset = queryset.filter(**{f"{path}__language": language})
    if (compound := _id_param(request, "compound")) is not None:
        queryset = queryset.filter(**{f"{path}_id": compound})
    return queryset


COLLECTION = _param("collection", "Slug of the collection (namespace) of the compound, e.g. default or demo.")
LANGUAGE = _param("language", "ISO 639 code of the compound's language, e.g. en or pt.")
COMPOUND = _param("compound", "Id of the compound.", OpenApiTypes.INT)
SENTENCE_KIND = _param("kind", "Sentence kind.", enum=[kind for kind, _ in v.SENTENCE_KIND_CHOICES])


@extend_schema_view(
    list=extend_schema(
        parameters=[
            COLLECTION,
            LANGUAGE,
            _param(
                "class",
                "Compositionality class: idiomatic, partly_compositional or compositional "
                "(or the codes NC, I, PC, C); none for unclassified compounds.",
                enum=[*CLASS_VALUES, UNCLASSIFIED],
            ),
            _param("q", "Text search in the compound (case-insensitive substring)."),
        ]
    )
)
class CompoundViewSet(viewsets.ReadOnlyModelViewSet):
    """Noun compounds with their sentence counts; the detail nests sentences and paraphrases."""

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
        if collection := _text_param(self.request, "collection"):
            queryset = queryset.filter(collection__slug=collection)
        if language := _text_param(self.request, "language"):
            queryset = queryset.filter(language=language)
        compound_class = _text_param(self.request, "class")
        if compound_class == UNCLASSIFIED:
            queryset = queryset.filter(compositionality_class__isnull=True)
        elif compound_class:
            if compound_class not in CLASS_VALUES:
                raise ValidationError({"class": f"{compound_class!r} is not a compositionality class."})
            queryset = queryset.filter(compositionality_class=CLASS_VALUES[compound_class])
        if q := _text_param(self.request, "q"):
            queryset = queryset.filter(Q(key__contains=v.compound_key(q)) | Q(text__icontains=q))
        return queryset


@extend_schema_view(
    list=extend_schema(
        parameters=[
            COLLECTION,
            LANGUAGE,
            COMPOUND,
            SENTENCE_KIND,
            _param(
                "available",
                "true: sentences with text; false: sentences known only by a corpus pointer.",
                OpenApiTypes.BOOL,
            ),
        ]
    )
)
class SentenceViewSet(viewsets.ReadOnlyModelViewSet):
    """Sentences in which a compound occurs, with the character span of the occurrence."""

    serializer_class = serializers.SentenceSerializer

    def get_queryset(self):
        queryset = Sentence.objects.select_related("compound__collection").order_by(*SENTENCE_ORDER)
        if self.action != "list":
            return queryset
        queryset = _filter_by_compound(queryset, self.request, "compound")
        if kind := _choice_param(self.request, "kind", v.SENTENCE_KIND_CHOICES):
            queryset = queryset.filter(kind=kind)
        if (available := _bool_param(self.request, "available")) is not None:
            queryset = queryset.filter(available=available)
        return queryset


@extend_schema_view(
    list=extend_schema(
        parameters=[
            COLLECTION,
            LANGUAGE,
            COMPOUND,
            _param("sentence", "Id of the sentence.", OpenApiTypes.INT),
            _param("kind", "Variant (probe) kind.", enum=[kind for kind, _ in v.VARIANT_KIND_CHOICES]),
            _param("status", "Curation status.", enum=[status for status, _ in v.VARIANT_STATUS_CHOICES]),
        ]
    )
)
class VariantViewSet(viewsets.ReadOnlyModelViewSet):
    """Minimal-pair variants of sentences: the compound replaced by something else."""

    serializer_class = serializers.VariantSerializer

    def get_queryset(self):
        queryset = Variant.objects.select_related("sentence__compound__collection").order_by(*VARIANT_ORDER)
        if self.action != "list":
            return queryset
        queryset = _filter_by_compound(queryset, self.request, "sentence__compound")
        if (sentence := _id_param(self.request, "sentence")) is not None:
            queryset = queryset.filter(sentence_id=sentence)
        if kind := _choice_param(self.request, "kind", v.VARIANT_KIND_CHOICES):
            queryset = queryset.filter(kind=kind)
        if status := _choice_param(self.request, "status", v.VARIANT_STATUS_CHOICES):
            queryset = queryset.filter(status=status)
        return queryset
