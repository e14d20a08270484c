"""Serializers of the variant API: a variant, a curator's decision on it, and the bodies of reject and edit."""

from __future__ import annotations

from rest_framework import serializers

from building.models import VariantChange
from building.variants.curation import check_span
from datasets.api.serializers import PROVENANCE_FIELDS, ProvenanceMixin
from datasets.models import Variant


class VariantSerializer(ProvenanceMixin, serializers.ModelSerializer):
    compound = serializers.IntegerField(source="sentence.compound_id", read_only=True)
    collection = serializers.CharField(source="sentence.compound.collection.slug", read_only=True)
    language = serializers.CharField(source="sentence.compound.language", read_only=True)
    kind_label = serializers.CharField(source="get_kind_display", read_only=True)
    replacement = serializers.CharField(read_only=True, help_text="The text that replaces the compound.")

    class Meta:
        model = Variant
        fields = [
            "id",
            "sentence",
            "compound",
            "collection",
            "language",
            "kind",
            "kind_label",
            "rank",
            "isolated",
            "text",
            "span_start",
            "span_end",
            "span_source",
            "replacement",
            "status",
            "origin",
            "source_column",
            *PROVENANCE_FIELDS,
        ]


class VariantChangeSerializer(serializers.ModelSerializer):
    user = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = VariantChange
        fields = ["id", "variant", "action", "user", "at", "before", "after", "note"]


class VariantRejectSerializer(serializers.Serializer):
    note = serializers.CharField(required=False, allow_blank=True, max_length=300, help_text="Why it was rejected.")


class VariantEditSerializer(serializers.Serializer):
    """Either ``marked_text`` with the replacement in [brackets], or ``text`` with the ``span`` of the replacement."""

    marked_text = serializers.CharField(
        required=False,
        trim_whitespace=False,
        help_text="The whole variant with the replacement in [brackets]: "
        '"John Paul II was an effective [representative] for the catholic church."',
    )
    text = serializers.CharField(required=False, trim_whitespace=False, help_text="The whole variant text.")
    span = serializers.ListField(
        child=serializers.IntegerField(min_value=0),
        min_length=2,
        max_length=2,
        required=False,
        help_text="[start, end) character offsets of the replacement in text (an isolated variant: its whole text).",
    )

    def validate(self, data: dict) -> dict:
        if ("marked_text" in data) == ("text" in data):
            raise serializers.ValidationError("Give either marked_text, or text with span.")
        if "span" in data and "text" not in data:
            raise serializers.ValidationError({"span": "A span goes with text, not with marked_text."})
        if "text" in data:
            try:
                check_span(data["text"], data.get("span"), isolated=self.context["variant"].isolated)
            except ValueError as exc:
                raise serializers.ValidationError({"span": str(exc)}) from None
        return data
