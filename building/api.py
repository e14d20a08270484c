"""API of the variants (/api/variants/): read them and decide on them (approve, reject, edit, reset), curators only.

The filters share the dataset API's compound scope (datasets/api/filters.py); every decision goes through
``building.variants.curation``, which records who decided what and when (``VariantChange``).
"""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from building import serializers as building_serializers
from building.models import VariantChange
from building.variants import curation
from core.filters import BooleanFilter, ChoiceFilter, IdFilter, ListFilterBackend
from core.permissions import IsCurator
from datasets import vocabulary
from datasets.api.filters import CompoundScopeFilterSet, compound_filter
from datasets.api.views import SENTENCE_ORDER
from datasets.models import Variant

VARIANT_ORDER = [f"sentence__{field}" for field in SENTENCE_ORDER] + ["kind", "rank", "isolated"]


class VariantFilterSet(CompoundScopeFilterSet):
    compound_path = "sentence__compound"

    compound = compound_filter()
    sentence = IdFilter(field_name="sentence_id", help_text="Id of the sentence.")
    kind = ChoiceFilter(choices=vocabulary.VARIANT_KIND_CHOICES, help_text="Variant (probe) kind.")
    status = ChoiceFilter(choices=vocabulary.VARIANT_STATUS_CHOICES, help_text="Curation status.")
    flagged = BooleanFilter(
        method="filter_flagged",
        help_text="true: variants with flags (agreement, plural, article, capital); false: variants without.",
    )

    def filter_flagged(self, queryset: QuerySet, name: str, flagged: bool) -> QuerySet:
        return queryset.exclude(flags=[]) if flagged else queryset.filter(flags=[])


class VariantViewSet(viewsets.ReadOnlyModelViewSet):
    """Minimal-pair variants of sentences: the compound replaced by something else; curators read and decide on them."""

    permission_classes = [IsCurator]
    serializer_class = building_serializers.VariantSerializer
    filter_backends = [ListFilterBackend]
    filterset_class = VariantFilterSet

    def get_queryset(self):
        return Variant.objects.select_related("sentence__compound__collection").order_by(*VARIANT_ORDER)

    def _decided(self, variant: Variant) -> Response:
        """The variant as the action left it; who decided and when are in its changes."""
        return Response(building_serializers.VariantSerializer(variant, context=self.get_serializer_context()).data)

    @extend_schema(request=None, responses=building_serializers.VariantSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsCurator])
    def approve(self, request, pk=None):
        """Approve the variant (curators only); recorded with who and when."""
        return self._decided(curation.approve_variant(self.get_object(), request.user))

    @extend_schema(
        request=building_serializers.VariantRejectSerializer, responses=building_serializers.VariantSerializer
    )
    @action(detail=True, methods=["post"], permission_classes=[IsCurator])
    def reject(self, request, pk=None):
        """Reject the variant (curators only), with an optional note saying why."""
        body = building_serializers.VariantRejectSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self._decided(
            curation.reject_variant(self.get_object(), request.user, body.validated_data.get("note", ""))
        )

    @extend_schema(request=building_serializers.VariantEditSerializer, responses=building_serializers.VariantSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsCurator])
    def edit(self, request, pk=None):
        """Rewrite the variant (curators only): its status becomes edited and its flags are resolved."""
        variant = self.get_object()
        body = building_serializers.VariantEditSerializer(data=request.data, context={"variant": variant})
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

    @extend_schema(request=None, responses=building_serializers.VariantSerializer)
    @action(detail=True, methods=["post"], permission_classes=[IsCurator])
    def reset(self, request, pk=None):
        """Put the variant back to pending (generated) (curators only)."""
        return self._decided(curation.reset_variant(self.get_object(), request.user))

    @extend_schema(responses=building_serializers.VariantChangeSerializer(many=True))
    @action(detail=True, methods=["get"], permission_classes=[IsCurator], pagination_class=None)
    def changes(self, request, pk=None):
        """Every curator decision on the variant, newest first: who, when, the state before and after."""
        variant = self.get_object()
        changes = VariantChange.objects.filter(variant=variant).select_related("user").order_by("-at", "-id")
        return Response(building_serializers.VariantChangeSerializer(changes, many=True).data)
