"""Read-only API of annotation campaigns for curators: campaigns, ratings, exports.

Mounted at ``/api/annotation/`` by its own router (config/urls.py). Every endpoint needs a
curator (``core.permissions.IsCurator``).
"""

from __future__ import annotations

from django.db.models import Prefetch, Q
from django.urls import include, path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from annotation import exports
from annotation.actions import create_campaign
from annotation.dashboard import campaigns_with_counts
from annotation.models import CAMPAIGN_SETTINGS, Campaign, FilterPolicy, Item, Rating, SuggestedParaphrase
from annotation.reporting import campaign_report
from core.permissions import IsCurator
from datasets.api.params import choice_param, is_id, query_param, text_param
from datasets.models import Collection, Compound, Sentence
from datasets.vocabulary import CLASS_CHOICES

# Choice columns as plain strings: their names (status, level, role) are taken by dataset enums.
CAMPAIGN_STATUSES = ", ".join(value for value, _ in Campaign.STATUS_CHOICES)
ROLES = ", ".join(value for value, _ in Item.ROLE_CHOICES)


class CampaignSerializer(serializers.ModelSerializer):
    collection = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    level = serializers.CharField(read_only=True, help_text="token or type.")
    status = serializers.CharField(read_only=True, help_text=f"One of: {CAMPAIGN_STATUSES}.")
    item_count = serializers.IntegerField(read_only=True, help_text="Regular items (not training or attention).")
    rating_count = serializers.IntegerField(read_only=True, help_text="Ratings of regular items.")
    annotator_count = serializers.IntegerField(read_only=True)
    progress = serializers.SerializerMethodField(help_text="Ratings of regular items / (items × N), 0-1.")

    class Meta:
        model = Campaign
        fields = [
            "id",
            "name",
            "slug",
            "collection",
            "language",
            "level",
            "status",
            "ratings_per_item",
            "seed",
            "max_items_per_annotator",
            "reservation_minutes",
            "training_pass_mark",
            "gold_tolerance",
            "completion_url",
            "min_items_for_code",
            "expected_seconds_per_item",
            "full_url",
            "screen_out_code",
            "screen_out_url",
            "created_at",
            "item_count",
            "rating_count",
            "annotator_count",
            "progress",
        ]

    @extend_schema_field(OpenApiTypes.FLOAT)
    def get_progress(self, campaign: Campaign) -> float:
        target = campaign.item_count * campaign.ratings_per_item
        return round(min(campaign.rating_count / target, 1.0), 4) if target else 0.0


class CampaignCreateSerializer(serializers.ModelSerializer):
    """A new campaign; its items are every available sentence (token) or compound (type) in scope."""

    collection = serializers.SlugRelatedField(slug_field="slug", queryset=Collection.objects.all())
    item_class = serializers.ChoiceField(
        choices=[c for c, _ in CLASS_CHOICES],
        required=False,
        allow_null=True,
        write_only=True,
        help_text="Only compounds of this compositionality class (default: all).",
    )
    item_ids = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        allow_empty=False,
        write_only=True,
        help_text="The items to rate: sentence ids (token level) or compound ids (type level). "
        "Default: every available naturalistic sentence or compound of the collection and language.",
    )

    class Meta:
        model = Campaign
        fields = ["id", *CAMPAIGN_SETTINGS, "item_class", "item_ids"]

    def validate(self, attrs: dict) -> dict:
        if not Compound.objects.filter(collection=attrs["collection"], language=attrs["language"]).exists():
            raise serializers.ValidationError(
                {"language": f"collection {attrs['collection'].slug!r} has no compounds in {attrs['language']!r}."}
            )
        if ids := attrs.get("item_ids"):
            level = attrs.get("level", Campaign.TOKEN)
            scope = {"collection": attrs["collection"], "language": attrs["language"]}
            if level == Campaign.TOKEN:
                found = Sentence.objects.filter(
                    id__in=ids, available=True, **{f"compound__{k}": x for k, x in scope.items()}
                )
            else:
                found = Compound.objects.filter(id__in=ids, **scope)
            by_id = {obj.id: obj for obj in found}
            missing = [i for i in dict.fromkeys(ids) if i not in by_id]
            if missing:
                what = "available sentences" if level == Campaign.TOKEN else "compounds"
                raise serializers.ValidationError(
                    {"item_ids": f"not {what} of {attrs['collection'].slug}/{attrs['language']}: {missing[:10]}"}
                )
            attrs["targets"] = [by_id[i] for i in dict.fromkeys(ids)]
        return attrs

    def create(self, validated_data: dict) -> Campaign:
        item_class = validated_data.pop("item_class", None)
        targets = validated_data.pop("targets", None)
        validated_data.pop("item_ids", None)
        campaign, _ = create_campaign(
            Campaign(**validated_data), created_by=self.context["request"].user, item_class=item_class, targets=targets
        )
        return campaign


class RatingSerializer(serializers.ModelSerializer):
    campaign = serializers.CharField(source="item.campaign.slug", read_only=True)
    role = serializers.CharField(source="item.role", read_only=True, help_text=f"One of: {ROLES}.")
    compound = serializers.CharField(source="item.compound.text", read_only=True)
    language = serializers.CharField(source="item.compound.language", read_only=True)
    sentence = serializers.IntegerField(source="item.sentence_id", read_only=True, allow_null=True)
    platform = serializers.CharField(source="annotator.platform", read_only=True)
    external_id = serializers.CharField(source="annotator.external_id", read_only=True)
    paraphrases = serializers.SlugRelatedField(slug_field="text", many=True, read_only=True)

    class Meta:
        model = Rating
        fields = [
            "id",
            "campaign",
            "item",
            "role",
            "compound",
            "language",
            "sentence",
            "annotator",
            "platform",
            "external_id",
            "head_score",
            "modifier_score",
            "compound_score",
            "seconds",
            "created_at",
            "paraphrases",
        ]


EXPORT_PARAMETERS = [
    query_param(
        "table",
        "ratings (one row per rating, the default) or paraphrases (one row per paraphrase).",
        enum=list(exports.TABLES),
    ),
    query_param("file", "csv (the default) or json.", enum=list(exports.FORMATS)),
]


class CampaignViewSet(mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Annotation campaigns with their progress; curators create them here or in the UI."""

    serializer_class = CampaignSerializer
    permission_classes = [IsCurator]

    def get_queryset(self):
        return campaigns_with_counts()

    def get_serializer_class(self):
        return CampaignCreateSerializer if self.action == "create" else CampaignSerializer

    def create(self, request, *args, **kwargs):
        serializer = CampaignCreateSerializer(data=request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        campaign = serializer.save()
        return Response(CampaignSerializer(self.get_queryset().get(pk=campaign.pk)).data, status=201)

    @extend_schema(
        parameters=EXPORT_PARAMETERS,
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="CSV with a header row."),
            (200, "application/json"): OpenApiResponse(
                OpenApiTypes.ANY, description="A JSON array of objects, one per row."
            ),
        },
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def export(self, request, pk=None):
        """The campaign's raw ratings or paraphrases as a CSV or JSON download (streamed)."""
        campaign = self.get_object()
        table = choice_param(request, "table", exports.TABLES) or "ratings"
        fmt = choice_param(request, "file", exports.FORMATS) or "csv"
        return exports.streaming_response(campaign, table, fmt)

    @extend_schema(
        parameters=[query_param("policy", "Name of a saved filter policy (default: nobody removed).")],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description="The campaign report (see campaign_report).")},
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def report(self, request, pk=None):
        """Agreement, annotator reliability, the filter policy applied and the aggregates of the kept annotators."""
        campaign = self.get_object()
        policy = None
        if name := text_param(request, "policy"):
            policy = FilterPolicy.objects.filter(name=name).first()
            if policy is None:
                raise ValidationError({"policy": f"No filter policy {name!r}."})
        return Response(campaign_report(campaign, policy))


class FilterPolicySerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    question = serializers.ChoiceField(
        choices=["compound_score", "head_score", "modifier_score"],
        default="compound_score",
        help_text="The question Spearman's rho is computed on.",
    )

    class Meta:
        model = FilterPolicy
        fields = [
            "id",
            "name",
            "description",
            "min_rho",
            "min_items",
            "min_gold_accuracy",
            "question",
            "exclude_flagged",
            "created_by",
            "created_at",
        ]
        read_only_fields = ["created_at"]

    def validate_min_rho(self, value: float | None) -> float | None:
        if value is not None and not -1 <= value <= 1:
            raise serializers.ValidationError("Between -1 and 1.")
        return value


class FilterPolicyViewSet(mixins.ListModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet):
    """Annotator filter policies (list and create; curators only)."""

    serializer_class = FilterPolicySerializer
    permission_classes = [IsCurator]
    queryset = FilterPolicy.objects.select_related("created_by").order_by("name")

    def perform_create(self, serializer):
        serializer.save(created_by=self.request.user)


@extend_schema_view(list=extend_schema(parameters=[query_param("campaign", "Id or slug of the campaign.")]))
class RatingViewSet(viewsets.ReadOnlyModelViewSet):
    """Submitted ratings, oldest first (curators only)."""

    serializer_class = RatingSerializer
    permission_classes = [IsCurator]

    def get_queryset(self):
        queryset = (
            Rating.objects.select_related("item__campaign", "item__compound", "annotator")
            .prefetch_related(Prefetch("paraphrases", queryset=SuggestedParaphrase.objects.order_by("position")))
            .order_by("created_at", "id")
        )
        if self.action == "list" and (campaign := text_param(self.request, "campaign")):
            lookup = Q(item__campaign__slug=campaign)
            if is_id(campaign):
                lookup |= Q(item__campaign_id=int(campaign))
            queryset = queryset.filter(lookup)
        return queryset


router = SimpleRouter()
router.register("campaigns", CampaignViewSet, basename="campaign")
router.register("ratings", RatingViewSet, basename="rating")
router.register("policies", FilterPolicyViewSet, basename="policy")

app_name = "annotation_api"
urlpatterns = [path("", include(router.urls))]
