"""API of the dataset, filtered with plain query parameters: read by anyone, curated by curators.

Each filter is validated (a bad value is a 400 naming the parameter) and documented with
``@extend_schema`` so that the OpenAPI schema lists it. The only writes are a curator's decisions on
variants (approve, reject, edit, reset), which go through ``datasets.curation``.
"""

from __future__ import annotations

from django.db.models import Prefetch, Q
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from annotation.permissions import IsCurator
from datasets import curation
from datasets import vocabulary as v
from datasets.api import serializers
from datasets.models import Compound, Paraphrase, Sentence, Variant, VariantChange

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
            _param(
                "flagged",
                "true: variants with flags (agreement, plural, article, capital); false: variants without.",
                OpenApiTypes.BOOL,
            ),
        ]
    )
)
class VariantViewSet(viewsets.ReadOnlyModelViewSet):
    """Minimal-pair variants of sentences: the compound replaced by something else; curators decide on them."""

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
        if (flagged := _bool_param(self.request, "flagged")) is not None:
            queryset = queryset.exclude(flags=[]) if flagged else queryset.filter(flags=[])
        return queryset

    def _decided(self, variant: Variant) -> Response:
        """The variant as the action left it; who decided and when are in its changes."""
        return Response(serializers.VariantSerializer(variant, context=self.get_serializer_context()).data)

    @extend_schema(request=None, responses=serializers.VariantSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsCurator])
    def approve(self, request, pk=None):
        """Approve the variant (curators only); recorded with who and when."""
        return self._decided(curation.approve_variant(self.get_object(), request.user))

    @extend_schema(request=serializers.VariantRejectSerializer, responses=serializers.VariantSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsCurator])
    def reject(self, request, pk=None):
        """Reject the variant (curators only), with an optional note saying why."""
        body = serializers.VariantRejectSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self._decided(
            curation.reject_variant(self.get_object(), request.user, body.validated_data.get("note", ""))
        )

    @extend_schema(request=serializers.VariantEditSerializer, responses=serializers.VariantSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsCurator])
    def edit(self, request, pk=None):
        """Rewrite the variant (curators only): its status becomes edited and its flags are resolved."""
        variant = self.get_object()
        body = serializers.VariantEditSerializer(data=request.data, context={"variant": variant})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            if "marked_text" in data:
                curation.edit_variant(variant, request.user, data["marked_text"])
            else:
                curation.edit_variant_text(variant, request.user, data["text"], data.get("span"))
        except ValueError as exc:
            raise ValidationError({"marked_text" if "marked_text" in data else "span": str(exc)}) from None
        return self._decided(variant)

    @extend_schema(request=None, responses=serializers.VariantSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsCurator])
    def reset(self, request, pk=None):
        """Put the variant back to pending (generated) (curators only)."""
        return self._decided(curation.reset_variant(self.get_object(), request.user))

    @extend_schema(responses=serializers.VariantChangeSerializer(many=True))
    @action(detail=True, methods=["get"], permission_classes=[IsCurator], pagination_class=None)
    def changes(self, request, pk=None):
        """Every curator decision on the variant, newest first: who, when, the state before and after."""
        variant = self.get_object()
        changes = VariantChange.objects.filter(variant=variant).select_related("user").order_by("-at", "-id")
        return Response(serializers.VariantChangeSerializer(changes, many=True).data)
