"""API of releases: list, detail with the manifest, verified file downloads, diffs; curators create and publish.

A release never changes once published, and the API offers no way to change one at all: PUT, PATCH
and DELETE answer 405 for everyone, as does any upload to a release's files. Drafts are visible to
curators only (a 404 for anyone else). A release whose stored files no longer match its manifest
answers 409 with the integrity error instead of its data.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, MethodNotAllowed
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.response import Response

from annotation.models import Campaign, FilterPolicy
from core.permissions import IsCurator, is_curator
from releases.actions import MEDIA_TYPES, create_release, publish_release, release_files, release_zip
from releases.doi_actions import record_doi
from releases.formats import ReleaseIntegrityError
from releases.formats.meta import Creator
from releases.models import RELEASE_FIELDS, SEMVER, ZIP_NAME, Release, ReleaseError
from releases.views import attachment, release_diff_data, release_order, visible_releases

VERSION_PATTERN = SEMVER.pattern.strip("^$")
FROZEN = "Releases cannot be changed or deleted: create a new version instead."


class Conflict(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The release is not in a state that allows this."
    default_code = "conflict"


class DoiSerializer(serializers.Serializer):
    doi = serializers.CharField(
        max_length=200, help_text="The deposit's DOI: 10.5281/zenodo.1234567 or its doi.org link."
    )


class ReleaseSerializer(serializers.ModelSerializer):
    """A release without its manifest."""

    # A plain string: a second "status" enum would collide with the variants' in the schema's component names.
    status = serializers.CharField(read_only=True, help_text="draft or published.")
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    published_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    url = serializers.SerializerMethodField(help_text="This release in the API.")
    zip_url = serializers.SerializerMethodField(help_text="Every file in one zip.")
    doi = serializers.CharField(read_only=True, help_text="The DOI of the release's deposit, once entered; else empty.")

    class Meta:
        model = Release
        fields = [*RELEASE_FIELDS, "url", "zip_url"]
        read_only_fields = fields

    def to_representation(self, instance: Release) -> dict:
        data = super().to_representation(instance)
        request = self.context.get("request")
        if not (request and is_curator(request.user)):
            # Who made a release is for curators: outsiders see when, not who.
            data["created_by"] = data["published_by"] = None
        return data

    def _absolute(self, path: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    def get_url(self, release: Release) -> str:
        return self._absolute(reverse("api:release-detail", args=[release.version]))

    def get_zip_url(self, release: Release) -> str:
        return self._absolute(reverse("api:release-zip", args=[release.version]))


class ReleaseFileSerializer(serializers.Serializer):
    path = serializers.CharField()
    size = serializers.IntegerField()
    sha256 = serializers.CharField()
    media_type = serializers.CharField()
    url = serializers.CharField(help_text="Download (checked against the manifest).")


class ReleaseDetailSerializer(ReleaseSerializer):
    """A release with its manifest and the list of its files."""

    files = serializers.SerializerMethodField()

    class Meta(ReleaseSerializer.Meta):
        fields = [*ReleaseSerializer.Meta.fields, "manifest", "files"]
        read_only_fields = fields

    @extend_schema_field(ReleaseFileSerializer(many=True))
    def get_files(self, release: Release) -> list[dict]:
        rows = release.files.exclude(path=ZIP_NAME).order_by("path").values("path", "size", "sha256", "media_type")
        return [
            row | {"url": self._absolute(reverse("api:release-file", args=[release.version, row["path"]]))}
            for row in rows
        ]


class ReleaseCreateSerializer(serializers.Serializer):
    """What a curator chooses; the files, counts and checksums are computed from the data."""

    version = serializers.RegexField(SEMVER, max_length=32, help_text="MAJOR.MINOR.PATCH, never used before.")
    languages = serializers.ListField(child=serializers.CharField(max_length=10), allow_empty=False)
    publish = serializers.BooleanField(default=False, help_text="Publish at once (it can never change afterwards).")
    title = serializers.CharField(max_length=200, required=False, default="", allow_blank=True)
    description = serializers.CharField(required=False, default="", allow_blank=True)
    citation = serializers.CharField(required=False, default="", allow_blank=True)
    collections = serializers.ListField(
        child=serializers.SlugField(), required=False, default=list, help_text="Collection slugs (default: all)."
    )
    campaigns = serializers.ListField(
        child=serializers.SlugField(),
        required=False,
        default=list,
        help_text="Campaign slugs whose aggregated ratings give the scores (default: the reference scores).",
    )
    policy = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        help_text="Name of a filter policy (with campaigns; default: 'exclude flagged'; 'none' keeps everyone).",
    )
    machine_annotators = serializers.BooleanField(
        default=False,
        help_text="Carry the campaigns' machine-made ratings (language models' answers) too, in a table of their own "
        "labelled machine; they never enter the scores (with campaigns only).",
    )
    creators = serializers.ListField(
        child=serializers.CharField(max_length=500),
        required=False,
        default=list,
        help_text="Authors, each 'Name | affiliation | ORCID' (the last two optional).",
    )
    intended_use = serializers.CharField(required=False, default="", allow_blank=True)
    limitations = serializers.CharField(required=False, default="", allow_blank=True)
    biases = serializers.CharField(required=False, default="", allow_blank=True)

    def validate_creators(self, lines: list[str]) -> list[str]:
        for number, line in enumerate(lines, start=1):
            try:
                Creator.parse(line)
            except ValueError as error:
                raise serializers.ValidationError(f"Creator {number}: {error}") from None
        return lines

    def validate_version(self, version: str) -> str:
        if Release.objects.filter(version=version).exists():
            raise serializers.ValidationError(f"Release {version} already exists, and releases never change.")
        return version

    def validate_campaigns(self, slugs: list[str]) -> list[str]:
        known = set(Campaign.objects.filter(slug__in=slugs).values_list("slug", flat=True))
        if unknown := sorted(set(slugs) - known):
            raise serializers.ValidationError(f"No campaign {', '.join(unknown)}.")
        return slugs

    def validate_policy(self, name: str) -> str:
        if name and not FilterPolicy.objects.filter(name=name).exists():
            raise serializers.ValidationError(f"No filter policy {name!r}.")
        return name

    def validate(self, data: dict) -> dict:
        if data["policy"] and not data["campaigns"]:
            raise serializers.ValidationError(
                {"policy": "A filtering policy applies to campaign ratings: name campaigns."}
            )
        if data["machine_annotators"] and not data["campaigns"]:
            raise serializers.ValidationError(
                {"machine_annotators": "Machine-made ratings are the answers to campaigns: name campaigns."}
            )
        return data


VERSION = OpenApiParameter("version", OpenApiTypes.STR, OpenApiParameter.PATH, description="Semantic version.")
OTHER = OpenApiParameter("other", OpenApiTypes.STR, OpenApiParameter.PATH, description="The newer version.")
PATH = OpenApiParameter("path", OpenApiTypes.STR, OpenApiParameter.PATH, description="A path from the manifest.")
# A release file comes with its own media type (CSV, JSON Lines, Markdown, Parquet, JSON…).
FILE_TYPES = sorted({*MEDIA_TYPES.values(), "application/octet-stream"} - {"application/zip"})
BINARY = {
    (200, media_type): OpenApiTypes.OBJECT if media_type == "application/json" else OpenApiTypes.BINARY
    for media_type in FILE_TYPES
}
INTEGRITY = OpenApiResponse(description="The stored files do not match the manifest: nothing is served.")
ZIP = {(200, "application/zip"): OpenApiTypes.BINARY}
NOT_PUBLISHABLE = OpenApiResponse(description="Published already, or its stored files do not match the manifest.")


@extend_schema_view(
    list=extend_schema(description="Published releases (and drafts, for curators), newest version first."),
    retrieve=extend_schema(parameters=[VERSION], description="One release with its manifest and files."),
)
class ReleaseViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Versioned, immutable releases of the dataset and their files."""

    lookup_field = "version"
    lookup_value_regex = VERSION_PATTERN

    def get_queryset(self):
        releases = visible_releases(self.request.user)
        return releases.defer("manifest") if self.action == "list" else releases

    def list(self, request, *args, **kwargs):
        rows = release_order(self.get_queryset())
        page = self.paginate_queryset(rows)
        serializer = ReleaseSerializer(page, many=True, context=self.get_serializer_context())
        return self.get_paginated_response(serializer.data)

    def get_serializer_class(self):
        if self.action == "create":
            return ReleaseCreateSerializer
        if self.action == "list":
            return ReleaseSerializer
        return ReleaseDetailSerializer

    def get_permissions(self):
        if self.action in ("create", "publish", "doi"):
            return [IsCurator()]
        return super().get_permissions()

    def http_method_not_allowed(self, request, *args, **kwargs):
        raise MethodNotAllowed(request.method, detail=f"Method {request.method} not allowed. {FROZEN}")

    def _detail(self, release: Release, code: int = status.HTTP_200_OK) -> Response:
        return Response(ReleaseDetailSerializer(release, context=self.get_serializer_context()).data, status=code)

    @extend_schema(
        request=ReleaseCreateSerializer,
        responses={201: ReleaseDetailSerializer},
        description="Build a release from the current data (curators only), as a draft or published.",
    )
    def create(self, request, *args, **kwargs):
        body = ReleaseCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            release = create_release(
                data["version"],
                data["languages"],
                user=request.user,
                publish=data["publish"],
                collections=data["collections"] or None,
                campaigns=data["campaigns"] or None,
                policy=data["policy"] or None,
                title=data["title"],
                description=data["description"],
                citation=data["citation"],
                machine_annotators=data["machine_annotators"],
                creators=data["creators"],
                intended_use=data["intended_use"],
                limitations=data["limitations"],
                biases=data["biases"],
            )
        except ReleaseError as error:
            raise DRFValidationError({"detail": str(error)}) from None
        return self._detail(release, status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[VERSION],
        request=None,
        responses={200: ReleaseDetailSerializer, 409: NOT_PUBLISHABLE},
        description="Publish a draft (curators only): from then on it never changes. 409 if already published.",
    )
    @action(detail=True, methods=["post"])
    def publish(self, request, version=None):
        release = self.get_object()
        if release.is_published:
            raise Conflict(f"Release {release.version} is already published. {FROZEN}")
        try:
            publish_release(release, request.user)
        except ReleaseIntegrityError as error:
            raise Conflict(str(error)) from None
        except ReleaseError as error:
            raise DRFValidationError({"detail": str(error)}) from None
        return self._detail(release)

    @extend_schema(
        parameters=[VERSION],
        request=DoiSerializer,
        responses={200: ReleaseDetailSerializer, 409: INTEGRITY},
        description="Record the DOI a repository gave the release's deposit (curators only, once): its metadata "
        "files then name it; its data files and their checksums stay as they are. 400 for a malformed or taken DOI.",
    )
    @action(detail=True, methods=["post"])
    def doi(self, request, version=None):
        release = self.get_object()
        body = DoiSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            record_doi(release, body.validated_data["doi"], request.user)
        except ReleaseIntegrityError as error:
            raise Conflict(str(error)) from None
        except ReleaseError as error:
            raise DRFValidationError({"doi": [str(error)]}) from None
        return self._detail(Release.objects.get(pk=release.pk))

    @extend_schema(parameters=[VERSION], responses={**ZIP, 409: INTEGRITY}, description="Every file in one zip.")
    @action(detail=True, methods=["get"])
    def zip(self, request, version=None):
        release = self.get_object()
        try:
            data = release_zip(release)
        except ReleaseIntegrityError as error:
            raise Conflict(str(error)) from None
        return attachment(data, f"release-{release.version}.zip", "application/zip")

    @extend_schema(
        parameters=[VERSION, OTHER],
        responses={200: OpenApiTypes.OBJECT, 409: INTEGRITY},
        description="What changed from this release to the other one (see releases.diff).",
    )
    @action(detail=True, methods=["get"], url_path=rf"diff/(?P<other>{VERSION_PATTERN})")
    def diff(self, request, version=None, other=None):
        old = self.get_object()
        new = get_object_or_404(self.get_queryset(), version=other)
        try:
            return Response(release_diff_data(old, new))
        except ReleaseIntegrityError as error:
            raise Conflict(str(error)) from None

    @extend_schema(
        parameters=[VERSION, PATH],
        responses={**BINARY, 409: INTEGRITY},
        description="One file of the release, checked against the manifest, as an attachment.",
    )
    def file(self, request, version=None, path=None) -> HttpResponse:
        release = self.get_object()
        row = get_object_or_404(release.files.exclude(path=ZIP_NAME).only("media_type"), path=path)
        try:
            data = release_files(release)[path]
        except ReleaseIntegrityError as error:
            raise Conflict(str(error)) from None
        return attachment(data, path.rsplit("/", 1)[-1], row.media_type)
