"""Admin of annotation campaigns: campaigns and items are edited here too; answers are a record."""

from __future__ import annotations

from django.contrib import admin
from django.db import models
from django.db.models import Count

from annotation.models import (
    Annotator,
    Assignment,
    Campaign,
    FilterPolicy,
    Item,
    PolicyRun,
    QualityPolicy,
    Rating,
    Skip,
    SuggestedParaphrase,
    WorkedExample,
)
from annotation.setup_actions import items_changed


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "collection", "language", "level", "status", "ratings_per_item", "item_count"]
    list_filter = ["status", "level", "language", "collection"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    raw_id_fields = ["created_by"]
    readonly_fields = ["created_at"]
    date_hierarchy = "created_at"
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("collection").annotate(item_total=Count("items"))

    @admin.display(description="Items", ordering="item_total")
    def item_count(self, campaign: Campaign) -> int:
        return campaign.item_total


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["id", "campaign", "compound", "sentence", "role", "order_key", "taken"]
    list_filter = ["role", "campaign"]
    search_fields = ["compound__text", "sentence__text", "campaign__slug"]
    list_select_related = ["campaign", "compound", "sentence__compound"]
    raw_id_fields = ["compound", "sentence"]
    fieldsets = [
        (None, {"fields": ["campaign", "compound", "sentence", "role", "order_key", "taken"]}),
        ("Gold answers (training and attention items)", {"fields": ["gold_head", "gold_modifier", "gold_compound"]}),
        (None, {"fields": ["feedback"]}),
    ]

    # The journey keeps each campaign's item counts under its items_version: move it on every change here.
    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        items_changed(obj.campaign)

    def delete_model(self, request, obj) -> None:
        super().delete_model(request, obj)
        items_changed(obj.campaign)

    def delete_queryset(self, request, queryset) -> None:
        campaigns = list(Campaign.objects.filter(items__in=queryset).distinct())
        super().delete_queryset(request, queryset)
        for campaign in campaigns:
            items_changed(campaign)


@admin.register(Annotator)
class AnnotatorAdmin(admin.ModelAdmin):
    list_display = ["id", "campaign", "user", "platform", "external_id", "status", "training_passed", "completed_at"]
    list_filter = ["status", "platform", "training_passed", "campaign"]
    search_fields = ["external_id", "user__username", "study_id", "session_id", "assignment_id"]
    list_select_related = ["campaign", "user"]
    raw_id_fields = ["user"]
    readonly_fields = ["created_at"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "item", "annotator", "status", "reserved_at", "expires_at", "submitted_at"]
    list_filter = ["status", "item__campaign"]
    search_fields = ["token", "annotator__external_id", "item__compound__text"]
    list_select_related = ["item__campaign", "item__compound", "annotator__user"]
    raw_id_fields = ["item", "annotator"]
    readonly_fields = ["token", "reserved_at"]


class SuggestedParaphraseInline(admin.TabularInline):
    model = SuggestedParaphrase
    extra = 0


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "item",
        "annotator",
        "head_score",
        "modifier_score",
        "compound_score",
        "seconds",
        "created_at",
    ]
    list_filter = ["item__campaign", "item__role"]
    search_fields = ["item__compound__text", "annotator__external_id"]
    list_select_related = ["item__campaign", "item__compound", "annotator__user"]
    raw_id_fields = ["assignment", "item", "annotator"]
    readonly_fields = ["created_at"]
    inlines = [SuggestedParaphraseInline]


@admin.register(Skip)
class SkipAdmin(admin.ModelAdmin):
    list_display = ["item", "annotator", "reason", "seconds", "created_at"]
    list_filter = ["reason", "item__campaign"]
    list_select_related = ["item__campaign", "item__compound", "annotator__user"]
    raw_id_fields = ["assignment", "item", "annotator"]
    readonly_fields = ["created_at"]


@admin.register(SuggestedParaphrase)
class SuggestedParaphraseAdmin(admin.ModelAdmin):
    list_display = ["text", "position", "rating"]
    search_fields = ["text"]
    list_filter = ["rating__item__campaign"]
    list_select_related = ["rating"]
    raw_id_fields = ["rating"]


@admin.register(FilterPolicy)
class FilterPolicyAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "min_rho",
        "min_items",
        "min_gold_accuracy",
        "question",
        "exclude_flagged",
        "created_by",
        "created_at",
    ]
    search_fields = ["name", "description"]
    readonly_fields = ["created_by", "created_at"]


@admin.register(PolicyRun)
class PolicyRunAdmin(admin.ModelAdmin):
    list_display = ["policy", "campaign", "kept", "computed_at"]
    list_filter = ["policy"]
    list_select_related = ["policy", "campaign"]
    readonly_fields = ["policy", "campaign", "removed", "kept", "computed_at"]


@admin.register(QualityPolicy)
class QualityPolicyAdmin(admin.ModelAdmin):
    list_display = ["campaign", "min_median_seconds", "max_same_answer_share", "max_attention_failures", "min_rho"]
    list_select_related = ["campaign"]


@admin.register(WorkedExample)
class WorkedExampleAdmin(admin.ModelAdmin):
    list_display = ["compound", "campaign", "position", "head_score", "modifier_score", "compound_score"]
    list_filter = ["campaign"]
    list_select_related = ["campaign"]
