"""Admin of the dataset: browse and correct rows; import runs are a read-only record."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count
from django.template.defaultfilters import truncatechars

from datasets.models import Collection, Compound, ImportRun, Paraphrase, Sentence, Variant

PROVENANCE_FIELDSET = ("Provenance", {"fields": ["import_run", "source_file", "source_line", "flags"]})


@admin.register(ImportRun)
class ImportRunAdmin(admin.ModelAdmin):
    """What an importer read and did: written by the importers, never edited by hand."""

    list_display = ["id", "importer", "source_dir", "started_at", "finished_at", "file_count"]
    list_filter = ["importer"]
    search_fields = ["importer", "source_dir"]
    date_hierarchy = "started_at"

    @admin.display(description="Files")
    def file_count(self, run: ImportRun) -> int:
        return len(run.files or [])

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "compound_count", "created_at"]
    search_fields = ["slug", "name", "description"]
    prepopulated_fields = {"slug": ["name"]}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(compound_count=Count("compounds"))

    @admin.display(description="Compounds", ordering="compound_count")
    def compound_count(self, collection: Collection) -> int:
        return collection.compound_count


class ReadOnlyTabularInline(admin.TabularInline):
    """A short list of children with links to their own change page."""

    extra = 0
    can_delete = False
    show_change_link = True

    def get_readonly_fields(self, request, obj=None):
        return self.fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class SentenceInline(ReadOnlyTabularInline):
    model = Sentence
    fields = ["kind", "slot", "text", "available", "token_score"]
    ordering = ["kind", "slot"]


class VariantInline(ReadOnlyTabularInline):
    model = Variant
    fields = ["kind", "rank", "isolated", "text", "status"]
    ordering = ["kind", "rank", "isolated"]


@admin.register(Compound)
class CompoundAdmin(admin.ModelAdmin):
    list_display = [
        "text",
        "language",
        "collection",
        "compositionality_class",
        "type_score",
        "token_score",
        "gold_synonym",
        "sentence_count",
        "provenance",
    ]
    list_filter = ["collection", "language", "compositionality_class"]
    search_fields = ["text", "key", "head", "modifier", "gold_synonym"]
    ordering = ["collection__slug", "language", "key"]
    autocomplete_fields = ["collection"]
    raw_id_fields = ["import_run"]
    list_select_related = ["collection"]
    readonly_fields = ["key"]
    inlines = [SentenceInline]
    fieldsets = [
        (None, {"fields": ["collection", "language", "text", "key", "modifier", "head", "gold_synonym"]}),
        ("Compositionality", {"fields": ["compositionality_class", "type_score", "token_score"]}),
        (
            "Frequencies",
            {
                "fields": ["frequency", "modifier_frequency", "head_frequency", "frequency_source"],
                "classes": ["collapse"],
            },
        ),
        PROVENANCE_FIELDSET,
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(sentence_count=Count("sentences"))

    @admin.display(description="Sentences", ordering="sentence_count")
    def sentence_count(self, compound: Compound) -> int:
        return compound.sentence_count


@admin.register(Sentence)
class SentenceAdmin(admin.ModelAdmin):
    list_display = ["compound", "kind", "slot", "short_text", "available", "span_source", "token_score"]
    list_filter = [
        "compound__collection",
        ("compound__language", admin.AllValuesFieldListFilter),
        "kind",
        "available",
        "span_source",
    ]
    search_fields = ["text", "corpus_pointer", "compound__text"]
    autocomplete_fields = ["compound"]
    raw_id_fields = ["import_run"]
    list_select_related = ["compound"]
    inlines = [VariantInline]
    fieldsets = [
        (None, {"fields": ["compound", "kind", "slot", "text", "plural", "token_score"]}),
        ("Span", {"fields": ["span_start", "span_end", "span_source"]}),
        ("Availability", {"fields": ["available", "corpus_pointer"]}),
        PROVENANCE_FIELDSET,
    ]

    @admin.display(description="Text")
    def short_text(self, sentence: Sentence) -> str:
        return truncatechars(sentence.text or sentence.corpus_pointer, 80)


@admin.register(Paraphrase)
class ParaphraseAdmin(admin.ModelAdmin):
    list_display = ["text", "compound", "level", "sentence", "frequency"]
    list_filter = ["compound__collection", ("compound__language", admin.AllValuesFieldListFilter), "level"]
    search_fields = ["text", "compound__text"]
    autocomplete_fields = ["compound"]
    raw_id_fields = ["sentence", "import_run"]
    list_select_related = ["compound", "sentence__compound"]


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ["short_text", "compound", "kind", "rank", "isolated", "status", "origin"]
    list_filter = [
        "sentence__compound__collection",
        ("sentence__compound__language", admin.AllValuesFieldListFilter),
        "kind",
        "status",
        "origin",
        "isolated",
    ]
    search_fields = ["text", "sentence__compound__text"]
    raw_id_fields = ["sentence", "import_run"]
    list_select_related = ["sentence__compound"]
    fieldsets = [
        (None, {"fields": ["sentence", "kind", "rank", "isolated", "text"]}),
        ("Span", {"fields": ["span_start", "span_end", "span_source"]}),
        ("Curation", {"fields": ["status", "origin", "source_column"]}),
        PROVENANCE_FIELDSET,
    ]

    @admin.display(description="Text")
    def short_text(self, variant: Variant) -> str:
        return truncatechars(variant.text, 80)

    @admin.display(description="Compound", ordering="sentence__compound__key")
    def compound(self, variant: Variant) -> Compound:
        return variant.sentence.compound
