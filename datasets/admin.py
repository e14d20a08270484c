"""Admin of the dataset: browse and correct rows; import runs are a read-only record."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.template.defaultfilters import truncatechars
from django.utils.html import format_html

from datasets.models import Collection, Compound, ImportRun, Paraphrase, Sentence, Variant
from datasets.release_models import Release, ReleaseError, ReleaseFile, ReleaseFrozen

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


class ReleaseFileInline(admin.TabularInline):
    """The files of a release with their checksums (never their content, never editable)."""

    model = ReleaseFile
    fields = ["path", "size", "media_type", "sha256"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["path"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Release)
class ReleaseAdmin(admin.ModelAdmin):
    """Releases are made by create_release (command or page) and only ever viewed here; drafts can be published."""

    list_display = ["version", "language_list", "status", "created_at", "published_at", "checksum_prefix"]
    list_filter = ["status"]
    search_fields = ["version", "title"]
    date_hierarchy = "created_at"
    inlines = [ReleaseFileInline]
    actions = ["publish"]
    fields = [
        "version",
        "status",
        "title",
        "description",
        "licence",
        "citation",
        "languages",
        "scores",
        "counts",
        "checksum",
        "zip_sha256",
        "created_by",
        "created_at",
        "published_by",
        "published_at",
        "manifest_json",
    ]
    readonly_fields = fields

    @admin.display(description="Languages")
    def language_list(self, release: Release) -> str:
        return ", ".join(release.languages)

    @admin.display(description="Checksum")
    def checksum_prefix(self, release: Release) -> str:
        return release.checksum[:12]

    @admin.display(description="manifest.json")
    def manifest_json(self, release: Release) -> str:
        return format_html("<pre>{}</pre>", json.dumps(release.manifest, indent=2, ensure_ascii=False))

    # Files are generated from the data when a release is created; editing any field here would
    # make them disagree with README.md and datapackage.json. A correction is a new version.
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        if obj is not None and obj.is_published:
            return False
        return super().has_delete_permission(request, obj)

    def delete_queryset(self, request, queryset) -> None:
        if queryset.filter(status=Release.PUBLISHED).exists():
            raise ReleaseFrozen("published releases cannot be deleted")
        super().delete_queryset(request, queryset)

    def has_publish_permission(self, request) -> bool:
        return request.user.has_perm("datasets.change_release")

    @admin.action(description="Publish the selected drafts (they can never change again)", permissions=["publish"])
    def publish(self, request, queryset) -> None:
        # Imported here: the release actions pull in the file formats, which the rest of the admin never needs.
        from datasets.formats.release import ReleaseIntegrityError
        from datasets.releases.actions import publish_release

        published = []
        for release in queryset.filter(status=Release.DRAFT).order_by("created_at"):
            try:
                published.append(publish_release(release, request.user).version)
            except (ReleaseError, ReleaseIntegrityError) as exc:
                self.message_user(request, f"{release.version}: {exc}", messages.ERROR)
        if published:
            self.message_user(request, f"Published {', '.join(published)}.", messages.SUCCESS)
        skipped = queryset.filter(status=Release.PUBLISHED).exclude(version__in=published).count()
        if skipped:
            self.message_user(request, f"{skipped} already published: left as they are.", messages.WARNING)


@admin.register(ReleaseFile)
class ReleaseFileAdmin(admin.ModelAdmin):
    """Browse release files and their checksums; the content is served by the release pages, verified."""

    list_display = ["path", "release", "size", "media_type", "sha256"]
    list_filter = ["release"]
    search_fields = ["path", "release__version"]
    list_select_related = ["release"]
    fields = ["release", "path", "size", "media_type", "sha256"]
    readonly_fields = fields

    def get_queryset(self, request):
        return super().get_queryset(request).defer("content")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        # Only as part of deleting a draft release (the admin asks about each file it would cascade to).
        return obj is not None and not obj.release.is_published and super().has_delete_permission(request, obj)

    def delete_view(self, request, object_id, extra_context=None):
        raise PermissionDenied("a release file goes with its release: delete the draft release instead")
