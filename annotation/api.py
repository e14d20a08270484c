"""Read-only API of annotation campaigns for curators: campaigns, ratings, exports.

Mounted at ``/api/annotation/`` by its own router (config/urls.py). Every endpoint needs a
curator (``core.permissions.IsCurator``).
"""

from __future__ import annotations

from django.db.models import Prefetch, Q, QuerySet
from django.urls import include, path
from django_filters import FilterSet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from annotation.curate import exports
from annotation.curate.campaign_forms import RESERVED_SLUGS, allocation_problems
from annotation.curate.dashboard import campaigns_with_counts
from annotation.models import (
    CAMPAIGN_SETTINGS,
    LOW_CODE_MINIMUM,
    Campaign,
    FilterPolicy,
    Item,
    Rating,
    SuggestedParaphrase,
)
from annotation.reports.build import campaign_report
from annotation.setup_actions import create_campaign, create_filter_policy
from annotation.timing import low_code_minimum
from core.filters import ListFilterBackend, TextFilter, is_id
from core.permissions import IsCurator
from datasets.models import Collection, Compound, Sentence
from datasets.vocabulary import CLASS_CHOICES

# Choice columns as plain strings: their names (status, level, role) are taken by dataset enums.
CAMPAIGN_STATUSES = ", ".join(value for value, _ in Campaign.Status.choices)
ROLES = ", ".join(value for value, _ in Item.Role.choices)


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
        # What a curator sets (one list, the form's and the create endpoint's too), then what the campaign counts.
        fields = ["id", *CAMPAIGN_SETTINGS, "created_at", "item_count", "rating_count", "annotator_count", "progress"]

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
    confirm_low_minimum = serializers.BooleanField(
        required=False,
        default=False,
        write_only=True,
        help_text=f"Needed to set min_items_for_code below {LOW_CODE_MINIMUM}.",
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
        fields = ["id", *CAMPAIGN_SETTINGS, "item_class", "item_ids", "confirm_low_minimum"]

    def validate_slug(self, slug: str) -> str:
        if slug in RESERVED_SLUGS:
            raise serializers.ValidationError(f"{slug!r} is reserved for a page: choose another slug.")
        return slug

    def validate(self, attrs: dict) -> dict:
        confirmed = attrs.pop("confirm_low_minimum", False)
        if problems := allocation_problems(attrs):
            raise serializers.ValidationError(problems)
        if problem := low_code_minimum(attrs.get("min_items_for_code"), confirmed, LOW_CODE_MINIMUM):
            raise serializers.ValidationError({"min_items_for_code": problem})
        if not Compound.objects.filter(collection=attrs["collection"], language=attrs["language"]).exists():
            raise serializers.ValidationError(
                {"language": f"collection {attrs['collection'].slug!r} has no compounds in {attrs['language']!r}."}
            )
        if ids := attrs.get("item_ids"):
            level = attrs.get("level", Campaign.Level.TOKEN)
            scope = {"collection": attrs["collection"], "language": attrs["language"]}
            if level == Campaign.Level.TOKEN:
                found = Sentence.objects.filter(
                    id__in=ids, available=True, **{f"compound__{k}": x for k, x in scope.items()}
                )
            else:
                found = Compound.objects.filter(id__in=ids, **scope)
            by_id = {obj.id: obj for obj in found}
            missing = [i for i in dict.fromkeys(ids) if i not in by_id]
            if missing:
                what = "available sentences" if level == Campaign.Level.TOKEN else "compounds"
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
    """One rating with where it comes from: the columns of the ratings export (``exports.RATING_FIELDS``)."""

    campaign = serializers.CharField(source="item.campaign.slug", read_only=True)
    rating_id = serializers.IntegerField(source="id", read_only=True)
    item_id = serializers.IntegerField(read_only=True)
    annotator_id = serializers.IntegerField(read_only=True)
    role = serializers.CharField(source="item.role", read_only=True, help_text=f"One of: {ROLES}.")
    compound = serializers.CharField(source="item.compound.text", read_only=True)
    language = serializers.CharField(source="item.compound.language", read_only=True)
    sentence_id = serializers.IntegerField(source="item.sentence_id", read_only=True, allow_null=True)
    sentence_slot = serializers.IntegerField(source="item.sentence.slot", read_only=True, allow_null=True)
    platform = serializers.CharField(source="annotator.platform", read_only=True)
    external_id = serializers.CharField(source="annotator.external_id", read_only=True)
    paraphrases = serializers.SlugRelatedField(slug_field="text", many=True, read_only=True)
    annotator_origin = serializers.SerializerMethodField(help_text="human, or simulated (the demo's panel).")

    class Meta:
        model = Rating
        fields = exports.RATING_FIELDS

    def get_annotator_origin(self, rating: Rating) -> str:
        return exports.origin(rating.annotator)


class ExportQuerySerializer(serializers.Serializer):
    """The query parameters of a campaign's export."""

    table = serializers.ChoiceField(
        choices=list(exports.TABLES),
        default="ratings",
        help_text="ratings (one row per rating, the default), paraphrases (one row per paraphrase), skips, annotators "
        "or machine_answers (a model's answers, kept apart).",
        error_messages={"invalid_choice": f"{{input!r}} is not one of: {', '.join(exports.TABLES)}."},
    )
    file = serializers.ChoiceField(
        choices=list(exports.FORMATS),
        default="csv",
        help_text="csv (the default) or json.",
        error_messages={"invalid_choice": f"{{input!r}} is not one of: {', '.join(exports.FORMATS)}."},
    )


class ReportQuerySerializer(serializers.Serializer):
    """The query parameters of a campaign's report."""

    policy = serializers.SlugRelatedField(
        slug_field="name",
        queryset=FilterPolicy.objects.all(),
        required=False,
        allow_null=True,
        help_text="Name of a saved filter policy (default: nobody removed).",
        error_messages={"does_not_exist": "No filter policy {value!r}."},
    )


def query(serializer_class: type[serializers.Serializer], request) -> dict:
    """The validated query parameters of a detail action (a bad value is a 400 naming the parameter)."""
    body = serializer_class(data=request.query_params)
    body.is_valid(raise_exception=True)
    return body.validated_data


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
        parameters=[ExportQuerySerializer],
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
        params = query(ExportQuerySerializer, request)
        return exports.streaming_response(campaign, params["table"], params["file"])

    @extend_schema(
        parameters=[ReportQuerySerializer],
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT, description="The campaign report (see campaign_report).")},
    )
    @action(detail=True, methods=["get"], pagination_class=None)
    def report(self, request, pk=None):
        """Agreement, annotator reliability, the filter policy applied and the aggregates of the kept annotators."""
        campaign = self.get_object()
        return Response(campaign_report(campaign, query(ReportQuerySerializer, request).get("policy")))


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

    def create(self, validated_data: dict) -> FilterPolicy:
        return create_filter_policy(FilterPolicy(**validated_data))

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


class RatingFilterSet(FilterSet):
    campaign = TextFilter(method="filter_campaign", help_text="Id or slug of the campaign.")

    def filter_campaign(self, queryset: QuerySet, name: str, campaign: str) -> QuerySet:
        lookup = Q(item__campaign__slug=campaign)
        if is_id(campaign):
            lookup |= Q(item__campaign_id=int(campaign))
        return queryset.filter(lookup)


class RatingViewSet(viewsets.ReadOnlyModelViewSet):
    """Submitted ratings, oldest first (curators only)."""

    serializer_class = RatingSerializer
    permission_classes = [IsCurator]
    filter_backends = [ListFilterBackend]
    filterset_class = RatingFilterSet

    def get_queryset(self):
        return (
            Rating.objects.select_related("item__campaign", "item__compound", "item__sentence", "annotator")
            .prefetch_related(Prefetch("paraphrases", queryset=SuggestedParaphrase.objects.order_by("position")))
            .order_by("created_at", "id")
        )


router = SimpleRouter()
router.register("campaigns", CampaignViewSet, basename="campaign")
router.register("ratings", RatingViewSet, basename="rating")
router.register("policies", FilterPolicyViewSet, basename="policy")

app_name = "annotation_api"
urlpatterns = [path("", include(router.urls))]
