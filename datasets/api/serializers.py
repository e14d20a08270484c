"""Serializers of the dataset: compounds, sentences and paraphrases (read-only; variants: building/serializers.py).

One serializer per model: the compound detail nests ``SentenceSerializer`` itself rather than a
trimmed copy, so each choice set (sentence kinds, variant kinds) belongs to one schema component
and drf-spectacular names its enum without a collision warning.
"""

from __future__ import annotations

from rest_framework import serializers

from datasets.models import Compound, Paraphrase, Sentence

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
