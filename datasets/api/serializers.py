"""Serializers of the dataset (read-only, but for a curator's decisions on variants).

One serializer per model: the compound detail nests ``SentenceSerializer`` itself rather than a
trimmed copy, so each choice set (sentence kinds, variant kinds) belongs to one schema component
and drf-spectacular names its enum without a collision warning.
"""

from __future__ import annotations

from rest_framework import serializers

from datasets.curation import check_span
from datasets.models import Compound, Paraphrase, Sentence, Variant, VariantChange

PROVENANCE_FIELDS = ["source_file", "source_line", "provenance", "flags"]


class ProvenanceMixin(serializers.Serializer):
    provenance = serializers.CharField(read_only=True, help_text="source_file:source_line, blank if none.")


class ParaphraseSerializer(serializers.ModelSerializer):
    class Meta:
        model = Paraphrase
        fields = ["id", "level", "sentence", "text", "frequency"]


class SentenceSerializer(ProvenanceMixin, serializers.ModelSerializer):
    collection = serializers.CharField(source="compound.collection.slug", read_only=True)
    language = serializers.CharField(source="compound.language", read_only=True)
    compound_text = serializers.CharField(source="compound.text", read_only=True)
    surface = serializers.CharField(read_only=True, help_text="The compound as it occurs in the text.")

    class Meta:
        model = Sentence
        fields = [
            "id",
            "compound",
            "compound_text",
            "collection",
            "language",
            "kind",
            "slot",
            "text",
            "span_start",
            "span_end",
            "span_source",
            "surface",
            "plural",
            "available",
            "corpus_pointer",
            "token_score",
            *PROVENANCE_FIELDS,
        ]


class CompoundSerializer(ProvenanceMixin, serializers.ModelSerializer):
    collection = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    class_short = serializers.CharField(read_only=True, help_text="NC, PC or C (blank if unclassified).")
    sentence_count = serializers.IntegerField(read_only=True)
    available_sentence_count = serializers.IntegerField(read_only=True)
    sentence_ids = serializers.PrimaryKeyRelatedField(source="sentences", many=True, read_only=True)

    class Meta:
        model = Compound
        fields = [
            "id",
            "collection",
            "language",
            "text",
            "key",
            "modifier",
            "head",
            "compositionality_class",
            "class_short",
            "type_score",
            "token_score",
            "gold_synonym",
            "frequency",
            "modifier_frequency",
            "head_frequency",
            "frequency_source",
            "sentence_count",
            "available_sentence_count",
            "sentence_ids",
            *PROVENANCE_FIELDS,
        ]


class CompoundDetailSerializer(CompoundSerializer):
    sentences = SentenceSerializer(many=True, read_only=True)
    paraphrases = ParaphraseSerializer(
        many=True, read_only=True, help_text="Type-level (sentence null) and token-level paraphrases."
    )

    class Meta(CompoundSerializer.Meta):
        fields = [*CompoundSerializer.Meta.fields, "sentences", "paraphrases"]


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
    user = serializers.SlugRelatedField(slug_field="username", read_only=True)

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
