"""Model-proposed synonyms in the admin: read them, and change a proposal's status (the review page is the usual way)."""

from django.contrib import admin

from building.models import ProposedSynonym, SynonymRequest


class ProposalInline(admin.TabularInline):
    model = ProposedSynonym
    fields = ["side", "rank", "word", "status"]
    readonly_fields = ["side", "rank", "word"]
    extra = 0
    can_delete = False


@admin.register(SynonymRequest)
class SynonymRequestAdmin(admin.ModelAdmin):
    list_display = ["compound", "model_name", "template_name", "template_version", "valid", "attempts", "updated_at"]
    list_filter = ["valid", "model_name", "template_name"]
    search_fields = ["compound__text", "model_name"]
    readonly_fields = [f.name for f in SynonymRequest._meta.fields]
    inlines = [ProposalInline]


@admin.register(ProposedSynonym)
class ProposedSynonymAdmin(admin.ModelAdmin):
    list_display = ["word", "side", "compound", "rank", "status", "source"]
    list_filter = ["status", "side", "source"]
    search_fields = ["word", "compound__text"]
    readonly_fields = ["request", "compound", "side", "word", "rank", "source"]
