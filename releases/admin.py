"""Admin of releases: browse them and their checksums; drafts can be published, nothing can be edited."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.utils.html import format_html

from releases.actions import publish_release
from releases.formats import ReleaseIntegrityError
from releases.models import RELEASE_FIELDS, Release, ReleaseError, ReleaseFile, ReleaseFrozen


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
    fields = [*RELEASE_FIELDS, "manifest_json"]
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
        if queryset.filter(status=Release.Status.PUBLISHED).exists():
            raise ReleaseFrozen("published releases cannot be deleted")
        super().delete_queryset(request, queryset)

    def has_publish_permission(self, request) -> bool:
        return request.user.has_perm("releases.change_release")

    @admin.action(description="Publish the selected drafts (they can never change again)", permissions=["publish"])
    def publish(self, request, queryset) -> None:
        published = []
        for release in queryset.filter(status=Release.Status.DRAFT).order_by("created_at"):
            try:
                published.append(publish_release(release, request.user).version)
            except (ReleaseError, ReleaseIntegrityError) as exc:
                self.message_user(request, f"{release.version}: {exc}", messages.ERROR)
        if published:
            self.message_user(request, f"Published {', '.join(published)}.", messages.SUCCESS)
        skipped = queryset.filter(status=Release.Status.PUBLISHED).exclude(version__in=published).count()
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
